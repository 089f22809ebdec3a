// What search.cpp offers the other files of the shim.
#pragma once

#include <optional>
#include <xapian.h>

namespace cx {

/// BM25's `k1` and `b` for every search: 1.2 and 0.5, the values that ranked best on CACM
/// (docs/ranking.md); Xapian's defaults are 1 and 0.5.
constexpr double bm25_k1 = 1.2;
constexpr double bm25_b = 0.5;
/// BM25's k3 (Xapian's default: a term repeated in a query weighs (k3 + 1) wqf / (k3 + wqf) times)
/// and the least normalised length, as `weighting()` has them.
constexpr double bm25_k3 = 1;
constexpr double bm25_min_normlen = 0.5;

/// The weighting every search uses: BM25 with `bm25_k1` and `bm25_b`, Xapian's defaults otherwise.
Xapian::BM25Weight weighting();

/// What a term found in `frequency` of `items` items adds to the score of an item of average
/// length under `weighting()`, with `wdf` occurrences' worth of within-item frequency.
double term_weight(double items, double frequency, double wdf);

/// Xapian 1.4's rating of a weight with a page's percent factor (`MSet::convert_to_percent`).
int32_t rated_percent(double weight, double factor);

/// The percent factor of `mset`: 100 times the share of the query's weighed parts its best result
/// matches, over that result's weight (0 for a page without weights); nothing when it cannot be
/// found.
std::optional<double> percent_factor(const Xapian::MSet &mset);

}  // namespace cx
