// What weighing.cpp offers the other files of the shim: a search's words weighed from the items'
// lengths kept in memory rather than from Xapian's list of them.
#pragma once

#include <memory>
#include <xapian.h>

#include "columns.hpp"
#include "matching.hpp"

namespace cx {

/// `query` with each word it weighs (a term outside a phrase or a window, and a word's forms in
/// several languages, one synonym) read as a posting source that weighs it exactly as
/// `bm25::weighting()` does, bit for bit, taking the item's length from `lengths` rather than from
/// Xapian's list of lengths. Xapian reads a length from its list for each match, decoding the list
/// up to it: for two words in 8,000 and 740,000 of 1,000,000 items, 3 ms of the search's 5. The
/// scores, the order, the percentages and the counts are the same; a phrase, a synonym of other
/// than distinct terms or another leaf keeps its own weighing, under the factor of the weight
/// scales above it (their factors from `factors`; a scale not recorded there keeps its subquery's
/// own weighing too).
Xapian::Query weighed_from_lengths(const Xapian::Database &reader, const Xapian::Query &query,
                                   const ScaleFactors &factors, std::shared_ptr<const Lengths> lengths);

}  // namespace cx
