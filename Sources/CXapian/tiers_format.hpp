// The impact tiers as an index keeps them in its metadata: shared by tiers.cpp, which builds and
// keeps them, and tiered_search.cpp, which reads them for a ranked search.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>
#include <xapian.h>

namespace cx {

/// A posting of a tier: the item, and its impact at the build's average length rounded up to
/// 255ths (what orders a search's candidates, `ceiling`).
struct TierPosting {
    Xapian::docid id;
    uint8_t impact;
    bool operator<(const TierPosting &other) const { return id < other.id; }
};

/// The `cx.tiers` record: the average length the tiers were built at, and the revision they are
/// current at.
struct TiersRecord {
    double average = 0;
    Xapian::rev current = 0;
};

/// The tiers of `reader`'s revision, when they are current at it.
std::optional<TiersRecord> current_tiers(const Xapian::Database &reader);

/// Reads the tier of `term`: its θ and its postings, in ascending ids. False when it has none.
bool read_tier(const Xapian::Database &reader, const std::string &term, double &threshold,
               std::vector<TierPosting> &postings);

/// A posting of a pair's tier (pairs.cpp): the item, and its impacts for the pair's first and second
/// word, as `TierPosting::impact`.
struct PairTierPosting {
    Xapian::docid id;
    uint8_t first;
    uint8_t second;
};

/// Reads the tier of the pair term `pair`: θ for each of its words (every item holding the pair that
/// the tier leaves out has impacts at most these) and its postings, in ascending ids. False when it
/// has none.
bool read_pair_tier(const Xapian::Database &reader, const std::string &pair, double &first_threshold,
                    double &second_threshold, std::vector<PairTierPosting> &postings);

/// The two words of the pair term `pair`, or false when it is not one.
bool pair_words(const std::string &pair, std::string &first, std::string &second);

/// An item's impact for a term it holds `wdf` times, when its length is `length` and the average
/// is `average`: wdf / (k1 (b · max(length / average, ½) + 1 − b) + wdf), below 1. With a length
/// of 0, the most any item holding the term that often can have, whatever its length.
double impact(Xapian::termcount wdf, double length, double average);

/// Whether `term` is one a query weighs: a word of the shared term space, a stem (`Z`) or a word
/// beginning (`XB`). Prefixed terms (capital letters) are boolean filters.
bool is_weighed_term(const std::string &term);

}  // namespace cx
