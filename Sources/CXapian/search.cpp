// Searching: a query tree, the caller's visibility, and a page of results with snippets.

#include <cmath>

#include "internal.hpp"

struct cx_results {
    uint64_t total = 0;
    std::vector<std::string> data;
    std::vector<int32_t> percents;
    std::vector<cx::Snippet> snippets;
    std::vector<std::pair<uint32_t, std::string>> corrections;
};

namespace {

using Query = Xapian::Query;

/// BM25 without length normalisation (b = 0; k1 = 1, as Xapian's default). Xapian reads a
/// candidate's length from a list of every document's, and advancing through it costs more than
/// scoring: at 1,000,000 items it was most of a common word's query time. A document's length
/// here is every field at once, so normalising by it ranked a title match lower for a longer
/// description; fields are weighted by their own terms and within-document frequencies instead.
Xapian::BM25Weight weighting() { return Xapian::BM25Weight(1, 0, 1, 0, 0.5); }

/// What one occurrence of a term found in `frequency` of `items` items adds to an item's score
/// under `weighting()`: BM25's term weight (Xapian 1.4's, without relevance data) times the
/// within-item factor, (k1 + 1) wdf / (k1 + wdf), of one occurrence of `wdf` in its field.
double one_occurrence(double items, double frequency, double wdf) {
    double ratio = (items - frequency + 0.5) / (frequency + 0.5);
    if (ratio <= 2.0) ratio = ratio * 0.5 + 1.0;
    return std::log(ratio) * 2.0 * wdf / (1.0 + wdf);
}

/// The most recorded views can add to a score in this query: a tenth of what one description
/// occurrence of its least weighty word adds (see README, Ranking). A title occurrence of a word
/// adds at least half that much more than a description occurrence, so a description-only match
/// cannot pass a title match of the same words on views alone. With no plain word (the empty
/// query, prefixes only), one occurrence of a word in half the items stands in.
double view_weight(const Xapian::Database &reader, const Query &query) {
    double least = std::log(1.5);
    bool found = false;
    for (auto it = query.get_unique_terms_begin(); it != query.get_unique_terms_end(); ++it) {
        const double wdf = cx::text_field(cx::text_term(*it).field).wdf;
        if (wdf == 0) continue;  // a filter's boolean term, or a word's beginning
        const Xapian::doccount frequency = reader.get_termfreq(*it);
        if (frequency == 0) continue;
        const double weight = one_occurrence(reader.get_doccount(), frequency, wdf);
        least = found ? std::min(least, weight) : weight;
        found = true;
    }
    return 0.1 * least;
}

/// `query` with recorded views added to the scores: up to `view_weight`, growing with the
/// logarithm of the count (`cx::view_boost`). Only viewed items carry the value, and an index
/// without views is searched as before.
Query with_views(cx_database &database, const Query &query, bool matches_everything) {
    const Xapian::Database &reader = database.reader;
    if (reader.get_value_freq(cx::slot::view_boost) == 0) return query;
    const double weight = matches_everything ? 1.0 : view_weight(reader, query);
    return Query(Query::OP_AND_MAYBE, query, Query(Query::OP_SCALE_WEIGHT, cx::view_boosts(database), weight));
}

void run_search(cx_database &database, const cx_search_request &request, cx_results &results) {
    const Xapian::Database &reader = database.reader;
    cx::BuiltQuery built = cx::build_query(reader, request.nodes, request.node_count, database.sharded);
    Query query = cx::visible_only(database, request, with_views(database, built.query, built.matches_everything));
    // Expired items are never returned, pruned or not. Only items that can expire have a value,
    // and few of them have expired, so excluding those is cheaper than testing every match.
    query = Query(Query::OP_AND_NOT, query,
                  Query(Query::OP_VALUE_LE, cx::slot::expiration,
                        Xapian::sortable_serialise(static_cast<double>(request.now_ms))));

    Xapian::Enquire enquire(reader);
    enquire.set_query(query);
    enquire.set_weighting_scheme(weighting());
    // Equal scores come in document id order, which in a topology depends on how the items are
    // spread over its shards: there they come in the order of the items' digests instead, so that
    // any topology of the same items answers in the same order. (A single index keeps the id order,
    // which costs no value read per candidate.)
    if (database.sharded) enquire.set_sort_by_relevance_then_value(cx::slot::digest, false);
    // A request for no results is a count, and counts exactly.
    const Xapian::doccount check_at_least =
        request.limit == 0 ? reader.get_doccount() : 1000 + request.offset + request.limit;
    Xapian::MSet mset = enquire.get_mset(request.offset, request.limit, check_at_least);
    results.total = mset.get_matches_estimated();
    for (auto it = mset.begin(); it != mset.end(); ++it) {
        Xapian::Document document = it.get_document();
        results.data.push_back(document.get_data());
        results.percents.push_back(built.matches_everything ? 100 : it.get_percent());
        results.snippets.push_back(cx::make_snippet(document.get_value(cx::slot::description), built.highlighter));
    }
    if (results.total == 0) {
        for (const auto &[node, word] : built.spellable) {
            std::string corrected = reader.get_spelling_suggestion(word);
            if (!corrected.empty() && corrected != word) results.corrections.emplace_back(node, corrected);
        }
    }
}

cx_text text_of(const std::string &text) { return {text.data(), text.size()}; }

}  // namespace

extern "C" {

cx_status cx_search(cx_database *database, const cx_search_request *request, cx_results **out, char **out_error) {
    *out = nullptr;
    if (cx_status status = cx::require_open(database, out_error)) return status;
    if (request == nullptr) return cx::fail(CX_ERR_INVALID_ARGUMENT, "no request", out_error);
    if (!database->format_error.empty()) return cx::fail(CX_ERR_VERSION, database->format_error, out_error);
    std::unique_ptr<cx_results> results;
    cx_status status = cx::with_retries(database, out_error, [&] {
        results = std::make_unique<cx_results>();
        run_search(*database, *request, *results);
    });
    if (status == CX_OK) *out = results.release();
    return status;
}

size_t cx_results_count(const cx_results *results) { return results->data.size(); }
uint64_t cx_results_total(const cx_results *results) { return results->total; }

cx_text cx_results_data(const cx_results *results, size_t index) {
    return index < results->data.size() ? text_of(results->data[index]) : cx_text{nullptr, 0};
}

int32_t cx_results_percent(const cx_results *results, size_t index) {
    return index < results->percents.size() ? results->percents[index] : 0;
}

cx_text cx_results_snippet(const cx_results *results, size_t index) {
    return index < results->snippets.size() ? text_of(results->snippets[index].text) : cx_text{nullptr, 0};
}

const cx_range *cx_results_snippet_matches(const cx_results *results, size_t index, size_t *out_count) {
    *out_count = 0;
    if (index >= results->snippets.size() || results->snippets[index].matches.empty()) return nullptr;
    *out_count = results->snippets[index].matches.size();
    return results->snippets[index].matches.data();
}

size_t cx_results_correction_count(const cx_results *results) { return results->corrections.size(); }

uint32_t cx_results_correction_node(const cx_results *results, size_t index) {
    return index < results->corrections.size() ? results->corrections[index].first : 0;
}

cx_text cx_results_correction_text(const cx_results *results, size_t index) {
    return index < results->corrections.size() ? text_of(results->corrections[index].second) : cx_text{nullptr, 0};
}

void cx_results_free(cx_results *results) { delete results; }

}  // extern "C"
