// What facets.cpp offers the other files of the shim.
#pragma once

#include "database.hpp"

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
    /// Each match's number, in id order (a number facet counted on one database).
    std::vector<double> numbers;
};

/// The counts a search makes over every match (`cx_facet_request`) of `enquire`; `collect` makes
/// them once the match has run.
class Facets {
  public:
    /// Adds the spies the counts need to `enquire`, a match over `database`. On one database a
    /// spy collects the matches' ids, and `collect` reads each counted slot's value stream in id
    /// order: a number as it is (one `double` a match, which the Kit reduces to its least,
    /// greatest and ranges), a text into a count per distinct value. Across shards Xapian's
    /// `ValueCountMatchSpy` counts each distinct value, which remote shards run and merge. With
    /// `keeping`, a read-only handle on one database that keeps fields in memory, a counted slot
    /// is read from its kept column (`cx::column`) instead of its value stream.
    Facets(const Xapian::Database &database, Xapian::Enquire &enquire, const cx_facet_request *requests,
           size_t count, bool sharded, cx_database *keeping);
    ~Facets();
    Facets(const Facets &) = delete;
    Facets &operator=(const Facets &) = delete;

    /// The counts, in the order requested.
    std::vector<FacetCounts> collect();

  private:
    class MatchIds;
    const Xapian::Database &database;
    std::vector<cx_facet_request> requests;
    cx_database *keeping;
    std::unique_ptr<MatchIds> matches;
    std::vector<std::unique_ptr<Xapian::ValueCountMatchSpy>> counted;
};

}  // namespace cx
