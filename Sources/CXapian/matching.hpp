// What matching.cpp offers the other files of the shim: queries handed to Xapian's matcher in a
// form it runs on every index, the weighting of a count, and what a built query's description
// tells that Xapian 1.4 has no accessor for.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <xapian.h>

namespace cx {

/// `query` as Xapian 1.4's matcher runs it on every index: each term that weighs nothing in it
/// (under a filter, an exclusion or a weight scale of 0, outside a phrase; every term, when
/// `weighs` is false) and that every item holds is given as what it matches, every item
/// (`Query::MatchAll`).
///
/// Xapian reads such a term from the list of all items, which it names after the term. In an
/// index with gaps in its document ids (an item was removed) that list spans chunks of item
/// lengths, and the move to its second chunk compares the chunk's key with the term's name and
/// fails: "Unexpected end of posting list", a `DatabaseCorruptError`, for a sound index
/// (`matcher/localsubmatch.cc` and `backends/glass/glass_postlist.cc`, Xapian 1.4.22 to 1.4.28).
/// In a topology, a term that every item of one shard holds, but not every item, is not given
/// as `MatchAll`, and a search reading it weighing nothing on that shard still fails.
Xapian::Query matchable(const Xapian::Database &reader, const Xapian::Query &query, bool weighs = true);

/// Sets `enquire`'s query to `matchable(reader, query)`, for a weighted search.
void set_matchable_query(Xapian::Enquire &enquire, const Xapian::Database &reader, const Xapian::Query &query);

/// Sets `enquire` to count the matches of `query`: weighing nothing (`BoolWeight`, under which
/// Xapian weighs no term), its query `matchable(reader, query, false)`.
void set_counting_query(Xapian::Enquire &enquire, const Xapian::Database &reader, const Xapian::Query &query);

/// The factor of an `OP_SCALE_WEIGHT` query. Xapian 1.4 gives no accessor for it; its
/// description prints it ("Query(0.10000000000000000555 * …)") with 20 digits, which read back
/// the same double.
double scale_factor(const Xapian::Query &query);

/// A term leaf's frequency in the query (its wqf), at least 1: what Xapian gives as a leaf's length
/// (`Query::get_length`, the sum of the wqfs of a query's terms).
inline unsigned leaf_wqf(const Xapian::Query &leaf) { return std::max(1u, unsigned(leaf.get_length())); }

/// The pattern of an `OP_WILDCARD` query, from its description ("Query(WILDCARD SYNONYM foo)").
std::optional<std::string> wildcard_pattern(const Xapian::Query &query);

}  // namespace cx
