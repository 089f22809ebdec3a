// A page's percentages as Xapian 1.4 rates them, for the pages the shim assembles itself (the
// tiered search's, and the pages sorted over shards); tiered_search.cpp computes them.
#pragma once

#include <cstdint>
#include <optional>
#include <xapian.h>

namespace cx {

/// Xapian 1.4's rating of a weight with a page's percent factor (`MSet::convert_to_percent`).
int32_t rated_percent(double weight, double factor);

/// The percent factor of `mset` (`MSet::convert_to_percent`), which Xapian keeps private: 100
/// times the share of the query's weighed parts that its best result matches, over that result's
/// weight; 0 for a page without weights. `parts` is the query's count (`weighed_parts`); `extra`
/// counts the parts the page's run matched in every result beyond those of the query it stands for
/// (a posting source filtering it, which Xapian counts as matched), and are taken out. The share
/// is read from one rating; nothing when it cannot be (the best result matched 100 parts or more,
/// or a count that does not fit).
std::optional<double> percent_factor(const Xapian::MSet &mset, unsigned parts, unsigned extra = 0);

}  // namespace cx
