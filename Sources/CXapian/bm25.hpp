// BM25, as every search weighs: its constants, Xapian's weighting object with them, and the parts
// of its arithmetic that the shim computes itself (the impact tiers' bounds, the kept lengths'
// weighing, the suggestions' and the made-up words' weights), each in the order Xapian 1.4
// computes it (`weight/bm25weight.cc`), so that a weight computed here is Xapian's to the bit.
#pragma once

#include <algorithm>
#include <cmath>
#include <xapian.h>

namespace cx::bm25 {

/// `k1` and `b`: 1.2 and 0.5, the values that ranked best on CACM (docs/ranking.md); Xapian's
/// defaults are 1 and 0.5.
constexpr double k1 = 1.2;
constexpr double b = 0.5;
/// `k3` (Xapian's default: a term repeated in a query weighs (k3 + 1) wqf / (k3 + wqf) times) and
/// the least normalised length (Xapian's default).
constexpr double k3 = 1;
constexpr double min_normlen = 0.5;

/// The weighting every search gives Xapian's matcher.
inline Xapian::BM25Weight weighting() { return Xapian::BM25Weight(k1, 0, k3, b, min_normlen); }

/// The logarithm of a term's inverse document frequency, for a term `frequency` of `items` items
/// hold, without relevance data: Xapian 1.4 raises a ratio under 2 (where the official formula can
/// go negative) to ratio / 2 + 1.
inline double idf(double items, double frequency) {
    double ratio = (items - frequency + 0.5) / (frequency + 0.5);
    if (ratio < 2) ratio = ratio * 0.5 + 1;
    return std::log(ratio);
}

/// What a term repeated `wqf` times in the query is multiplied by.
inline double query_factor(double wqf) { return (k3 + 1) * wqf / (k3 + wqf); }

/// An item's impact for a term: its within-item frequency over BM25's denominator at the item's
/// normalised length (its length over the average, at least `min_normlen`); below 1. A term's
/// weight in the item is its term weight, idf × (k1 + 1) × the query factor, times this.
inline double impact(double wdf, double normalised_length) {
    return wdf / (k1 * (normalised_length * b + (1 - b)) + wdf);
}

/// An item's length over the average, as BM25 floors it.
inline double normalised_length(double length, double average) {
    return std::max(average > 0 ? length / average : 1.0, min_normlen);
}

}  // namespace cx::bm25
