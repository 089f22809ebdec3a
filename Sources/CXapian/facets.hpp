// What facets.cpp offers the other files of the shim.
#pragma once

#include "errors.hpp"

namespace cx {

/// One requested count's values, as a search hands them back: each distinct text (or number)
/// with how many matches hold it, or, for a number counted on one database, every match's number.
struct FacetCounts {
    struct Value {
        std::string text;
        double number = 0;
        uint64_t count = 0;
    };
    std::vector<Value> values;
    /// Each match's number, in match order (a number facet counted by `NumberSpy`).
    std::vector<double> numbers;
};

/// The counts a search makes over every match (`cx_facet_request`), as match spies on `enquire`;
/// `collect` reads them once the match has run.
class Facets {
  public:
    /// Adds a spy for each request to `enquire`. On one database a number is collected as it is
    /// (one `double` a match, which the Kit reduces to its least, greatest and ranges); across
    /// shards, and for texts, Xapian's `ValueCountMatchSpy` counts each distinct value, which
    /// remote shards run and merge.
    Facets(Xapian::Enquire &enquire, const cx_facet_request *requests, size_t count, bool sharded);
    ~Facets();
    Facets(const Facets &) = delete;
    Facets &operator=(const Facets &) = delete;

    /// The counts, in the order requested.
    std::vector<FacetCounts> collect() const;

  private:
    struct Spy;
    std::vector<std::unique_ptr<Spy>> spies;
};

}  // namespace cx
