// What matching.cpp offers the other files of the shim: queries handed to Xapian's matcher in a
// form it runs on every index, the weighting of a count, the weight scales of a query with their
// factors recorded as they are built (Xapian 1.4 has no accessor for them), and how many weighed
// parts Xapian counts in a query for its percentages.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <xapian.h>

namespace cx {

/// A query matching every item, made anew: Xapian's own `Query::MatchAll` is one static object
/// whose reference count is not atomic, so copying it in two threads at once can free it (it did,
/// under AddressSanitizer, with searches running in parallel). The shim never names it.
inline Xapian::Query match_all() { return Xapian::Query(std::string()); }

/// `query` as Xapian 1.4's matcher runs it on every index: each term that weighs nothing in it
/// (under a filter, an exclusion or a weight scale of 0, outside a phrase; every term, when
/// `weighs` is false) and that every item holds is given as what it matches, every item
/// (`Query::MatchAll`). A weight scale's subquery was made so as the scale was built (`scaled`):
/// where a scale weighs, it is taken as it is. Weighing nothing (`weighs` false), an `OP_AND_MAYBE`
/// is given as its first subquery, which decides its matches: the others only weigh, and a count
/// need not read them (as-you-type's words match, their beginning's term, every item holding a
/// word so begun, only weighs).
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

/// `query` weighing `factor` times what it weighs (Xapian's `OP_SCALE_WEIGHT`), its subquery made
/// matchable (`matchable`) for what it weighs. Every weight scale of the shim is made here.
Xapian::Query scaled(const Xapian::Database &reader, const Xapian::Query &query, double factor);

/// The factors of the weight scales of a query, recorded as it is built (Xapian 1.4 keeps a
/// scale's factor private): what the readers of a built query's tree (the impact tiers' walk, the
/// weighing from kept lengths, the count of weighed parts) ask for each scale they meet.
class ScaleFactors {
  public:
    /// `scaled(reader, query, factor)`, its factor recorded.
    Xapian::Query scaled(const Xapian::Database &reader, const Xapian::Query &query, double factor);

    /// The factor of `scale`, an `OP_SCALE_WEIGHT` query: nothing when it was not recorded here.
    std::optional<double> of(const Xapian::Query &scale) const;

  private:
    /// Each scale recorded, by its node, which the query kept beside it holds alive.
    std::unordered_map<const void *, std::pair<Xapian::Query, double>> recorded_;
};

/// How many weighed parts Xapian 1.4's matcher counts in `query` for its percentages (a page's
/// percent factor is 100 times the share of them its best result matches, over that result's
/// weight): each term, posting source, value range, synonym and `OP_MAX` reached with a weight
/// factor other than 0; nothing under a filter's or an exclusion's other parts. Nothing when the
/// query holds a scale `factors` has not recorded.
std::optional<unsigned> weighed_parts(const Xapian::Query &query, const ScaleFactors &factors);

/// A term leaf's frequency in the query (its wqf), at least 1: what Xapian gives as a leaf's length
/// (`Query::get_length`, the sum of the wqfs of a query's terms).
inline unsigned leaf_wqf(const Xapian::Query &leaf) { return std::max(1u, unsigned(leaf.get_length())); }

}  // namespace cx
