// A page's percentages as Xapian 1.4 rates them, for the pages the shim assembles itself (the
// tiered search's and the sorted pages' bounds); tiered_search.cpp computes them.
#pragma once

#include <cstdint>
#include <optional>
#include <xapian.h>

namespace cx {

/// Xapian 1.4's rating of a weight with a page's percent factor (`MSet::convert_to_percent`).
int32_t rated_percent(double weight, double factor);

/// The percent factor of `mset`: 100 times the share of the query's weighed parts its best result
/// matches, over that result's weight (0 for a page without weights); nothing when it cannot be
/// found.
std::optional<double> percent_factor(const Xapian::MSet &mset);

}  // namespace cx
