// What hybrid.cpp offers search.cpp: ranking by meaning, and its fusion with ranking by words.
#pragma once

#include <vector>
#include <xapian.h>

#include "CXapian.h"
#include "read.hpp"

namespace cx {

/// The similarities of the items a search by meaning compared, for the query's closeness to them
/// (`nearest`'s `closeness`): their mean, as if `unrelated_items` items of similarity 0 were
/// among them, so that in an index of a handful of items, all of them near, the near ones are not
/// their own yardstick. Among thousands, the mean itself.
struct Closeness {
    static constexpr double unrelated_items = 10;

    double sum = 0;
    Xapian::doccount count = 0;

    void add(double similarity) {
        sum += similarity;
        ++count;
    }
    /// An item added at `estimate` (a compact code's), since compared in full at `similarity`.
    void replace(double estimate, double similarity) { sum += similarity - estimate; }
    /// An item added at `estimate` that has no vector after all.
    void remove(double estimate) {
        sum -= estimate;
        --count;
    }
    /// The items of `other`, compared apart (another shard's vectors copy), counted in.
    void merge(const Closeness &other) {
        sum += other.sum;
        count += other.count;
    }
    double mean() const { return sum / (count + unrelated_items); }
};

/// Whether `database`'s vectors of meaning can be compared here: one index, or a view of local
/// shards; not shards read through a shard server.
bool compares_meaning(const cx_database &database);

/// Whether a search of `request` on `database` ranks by meaning too: it carries a vector and a
/// ratio above 0, is ordered by relevance, and the index holds vectors it compares here
/// (`compares_meaning`).
bool searches_by_meaning(const cx_database &database, const cx_search_request &request);

/// The query tree `nodes` less the plain words of its root: what selects the items a search may
/// find by meaning alone. Phrases, filters, ranges, exclusions and explicit operators stay; with
/// nothing left, every item.
std::vector<cx_query_node> selection_nodes(const cx_query_node *nodes, size_t count);

/// The items nearest in meaning to `vector` that a search of `request` may see now (visibility and
/// expiry applied) among those `selection` selects (null: every item), less the item of unique
/// term `excluded` (empty: none), best first: at most `count`, each at least `least_similarity`
/// (cosine) near. With `matches`, also how many items are that near, of which every one is
/// checked; with `closeness`, the similarities of the items compared (every one the search may see
/// and `selection` selects), whose mean (`Closeness::mean`) is what an item must stand out of to be
/// found by meaning alone.
/// Every item is compared without the matcher; a selection, or scope private, goes through the
/// matcher. A search that keeps fields compares the kept compact codes (`cx::meaning_codes`)
/// first, then the nearest few hundred by estimate in full; the closeness and the count are then
/// of the estimates, but for the items compared in full. Any other reads the value stream.
/// Over shard servers, each shard's vectors copy is asked as one index is, a selection given to it
/// as the ids the servers match on the shard, and the answers merged. With `selected`, the items
/// `selection` selects that the search may see now are those ids, every one (ascending), as a
/// search that read them all gives them: they are not asked for again (a round trip to every
/// shard server).
std::vector<std::pair<Xapian::docid, double>> nearest(cx_database &database, Snapshot &snapshot,
                                                      const cx_search_request &request, const Xapian::Query *selection,
                                                      const std::string &excluded, const float *vector,
                                                      uint32_t dimensions, Xapian::doccount count,
                                                      double least_similarity, Xapian::doccount *matches = nullptr,
                                                      Closeness *closeness = nullptr,
                                                      const std::vector<Xapian::docid> *selected = nullptr);

/// The ones of `ids` (ascending) that `query` matches, ascending; over a view of shards, each
/// shard asked about its own items.
std::vector<Xapian::docid> matching(const cx_database &database, const Xapian::Query &query,
                                    const std::vector<Xapian::docid> &ids);

/// The documents `ids`, items of the revision `database` reads (matches, or items it holds), in
/// their order. Over shard servers, from the vectors copies, which hold each item's stored data;
/// an item a copy lacks (one not given a vector yet) from its server, each server asked on a
/// thread of its own (Xapian 1.4 reads a remote document in a round trip of its own).
std::vector<Xapian::Document> documents(const cx_database &database, const std::vector<Xapian::docid> &ids);

/// The stored vector of meaning of document `id`, as floats; empty when it has none.
std::vector<float> stored_vector(const Xapian::Database &reader, Xapian::docid id);

/// The cosine similarity of unrelated texts, about: all-MiniLM-L6-v2's vectors of a CACM question
/// and the collection's articles are 0.13 near at the median. A hybrid search scores nearness
/// from here (0).
constexpr double unrelated_similarity = 0.15;

/// The cosine similarity a hybrid search scores as nearness 1: CACM's questions are 0.58 near
/// their nearest article at the median (docs/ranking.md). A nearer item scores more than 1, and
/// a result's percent is capped at 100.
constexpr double related_similarity = 0.6;

/// The cosine similarity an item near in meaning must reach, in a hybrid search and in
/// `similar`. Chosen on CACM (docs/ranking.md): from 0.15 to 0.30 it changes nDCG@10 by under
/// 1 %, past 0.35 it costs 3 %.
constexpr double least_meaning_similarity = 0.3;

/// How much nearer than the mean of the items compared (`nearest`'s `closeness`) an item must be
/// for a hybrid search to find it by meaning alone: a query the model reads as nothing the index
/// holds is about as near every item. Chosen on made-up words and questions off the collections'
/// topics (docs/ranking.md).
constexpr double meaning_stand_out = 0.3;

}  // namespace cx
