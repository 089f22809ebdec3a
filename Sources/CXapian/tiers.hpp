// What tiers.cpp offers the other files of the shim: impact tiers, each frequent term's postings
// of highest impact, which a ranked search reads first, with a bound that proves whether the rest
// can reach its page.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include <xapian.h>

#include "database.hpp"
#include "matching.hpp"

namespace cx {

/// A term holds a tier when more items than this hold it. A search reads the whole posting list
/// of a rarer term as candidates.
constexpr Xapian::doccount whole_list_limit = 2000;

/// How many postings a tier holds when it is built: the term's postings of highest impact (less
/// those tied with the first left out). Writes add to it until it is built again.
constexpr Xapian::doccount tier_size = 1000;

/// A pair of common words (pairs.cpp) has a tier of its own when more items than this hold it: a
/// phrase of a rarer pair is evaluated in full among the pair's items, as quickly.
constexpr Xapian::doccount pair_tier_limit = 2000;

/// The most candidates a tiered search weighs; with more, a full evaluation is as quick.
constexpr size_t most_candidates = 12000;

/// Builds every tier of `database` from its postings, replacing those it held, and stamps them as
/// current at its next commit. Called before the commit of a bulk build's merge, and before a
/// compaction.
void build_tiers(Xapian::WritableDatabase &database);

/// Stamps the tiers `database` holds (built before a compaction made it) as current at its next
/// commit.
void restamp_tiers(Xapian::WritableDatabase &database);

/// Notes the postings of `document`, stored as `id` by `database`'s writer, that enter a tier:
/// `flush_tiers` writes them.
void note_tiers(cx_database &database, Xapian::docid id, const Xapian::Document &document);

/// Writes the noted postings into their tiers, and stamps the tiers as current at the revision the
/// commit that follows makes. Every commit of a transaction calls it, so that tiers a writer
/// without them (an earlier version) left behind are never trusted.
void flush_tiers(cx_database &database);

/// Forgets the noted postings: the transaction was cancelled.
void forget_tiers(cx_database &database);

/// A page proven from the tiers.
struct TieredPage {
    Xapian::MSet mset;
    /// Each result's percentage, as a full evaluation rates it.
    std::vector<int32_t> percents;
};

struct ViewBoosts;

/// What recorded views add to a search's weights: `weight` times each viewed item's boost (none
/// when `viewed` is null).
struct ViewsBound {
    double weight = 0;
    std::shared_ptr<const ViewBoosts> viewed;
};

/// The page `offset`, `limit` of a search of `words` (its weight scales' factors in `factors`)
/// ranked by `weighting`, when the tiers of its terms prove it: `among(candidates)` gives the search's whole query (visibility, expiry and
/// views, which add to weights what `views()` says) limited to the candidates (every tier, every
/// rarer term's whole list, and the viewed items whose views could lift them into the page), or
/// nothing when it cannot. The page is the candidates' when its last result outweighs the most an
/// item outside them can weigh, or when no item outside them matches. Nothing when a full
/// evaluation is needed: the index has no current
/// tiers, the tiers prove nothing, or every match lies in posting lists of `whole_list_limit` items
/// or fewer (Xapian's matcher, driven by them, is as quick, and counts exactly).
std::optional<TieredPage> tiered_page(const Xapian::Database &reader, const Xapian::Query &words,
                                      const ScaleFactors &factors,
                                      const std::function<std::optional<Xapian::Query>(std::vector<Xapian::docid>)> &among,
                                      const std::function<ViewsBound()> &views, Xapian::doccount offset, Xapian::doccount limit,
                                      const Xapian::Weight &weighting);

/// A query matching the documents `ids` (ascending), each weighing nothing.
Xapian::Query id_query(std::vector<Xapian::docid> ids);
Xapian::Query id_query(std::shared_ptr<const std::vector<Xapian::docid>> ids);

}  // namespace cx
