// What hybrid.cpp offers search.cpp: ranking by meaning, and its fusion with ranking by words.
#pragma once

#include <vector>
#include <xapian.h>

#include "CXapian.h"
#include "read.hpp"

namespace cx {

/// Whether a search of `request` on `database` ranks by meaning too: it carries a vector and a
/// ratio above 0, is ordered by relevance, and the index is one database (not shards) holding
/// vectors.
bool searches_by_meaning(const cx_database &database, const cx_search_request &request);

/// The query tree `nodes` less the plain words of its root: what selects the items a search may
/// find by meaning alone. Phrases, filters, ranges, exclusions and explicit operators stay; with
/// nothing left, every item.
std::vector<cx_query_node> selection_nodes(const cx_query_node *nodes, size_t count);

/// The items nearest in meaning to `vector` that a search of `request` may see now (visibility and
/// expiry applied) among those `selection` selects (null: every item), less the item of unique
/// term `excluded` (empty: none), best first: at most `count`, each at least `least_similarity`
/// (cosine) near. With `matches`, also how many items are that near, of which every one is checked.
/// Every item is compared without the matcher; a selection, or scope private, goes through the
/// matcher. Either reads the kept vectors when the search keeps fields (`cx::vectors`), else the
/// value stream.
std::vector<std::pair<Xapian::docid, double>> nearest(cx_database &database, Snapshot &snapshot,
                                                      const cx_search_request &request, const Xapian::Query *selection,
                                                      const std::string &excluded, const float *vector,
                                                      uint32_t dimensions, Xapian::doccount count,
                                                      double least_similarity, Xapian::doccount *matches = nullptr);

/// How many of `ids` (ascending) `query` matches.
Xapian::doccount count_matching(const Xapian::Database &reader, const Xapian::Query &query,
                                const std::vector<Xapian::docid> &ids);

/// The stored vector of meaning of document `id`, as floats; empty when it has none.
std::vector<float> stored_vector(const Xapian::Database &reader, Xapian::docid id);

/// The cosine similarity of unrelated texts, about: all-MiniLM-L6-v2's vectors of a CACM question
/// and the collection's articles are 0.13 near at the median. A hybrid search scores meaning from
/// here (0) to the nearest item's similarity (1).
constexpr double unrelated_similarity = 0.15;

/// The cosine similarity an item found by meaning alone must reach; nearer items are candidates
/// of a hybrid search and of `similar`. Chosen on CACM (docs/ranking.md): from 0.15 to 0.30 it
/// changes nDCG@10 by under 1 %, past 0.35 it costs 3 %.
constexpr double least_meaning_similarity = 0.3;

}  // namespace cx
