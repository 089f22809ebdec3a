// Searching: a query tree, the caller's visibility, and a page of results with snippets.

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "beside.hpp"
#include "bm25.hpp"
#include "columns.hpp"
#include "database.hpp"
#include "errors.hpp"
#include "facets.hpp"
#include "hybrid.hpp"
#include "json.hpp"
#include "matching.hpp"
#include "order.hpp"
#include "query.hpp"
#include "read.hpp"
#include "schema.hpp"
#include "snippet.hpp"
#include "spelling.hpp"
#include "stored.hpp"
#include "tiers.hpp"
#include "views.hpp"
#include "visibility.hpp"
#include "weighing.hpp"

struct cx_results {
    uint64_t total = 0;
    /// The page's results, in rank order.
    struct Found {
        std::string data;
        int32_t percent;
        /// What found it (`CX_MATCHED_BY_WORDS`, `CX_MATCHED_BY_MEANING`).
        uint32_t matched_by;
        cx::Snippet snippet;
        /// The fields the result shows, read from `data` when the shim reads them as the Kit does.
        std::optional<cx::ResultFields> fields;
        /// `fields`' keywords as the caller reads them (`point_page`).
        std::vector<cx_text> keywords;
    };
    std::vector<Found> found;
    /// `found` as the caller reads it (`cx_results_page`), borrowing its texts: made once the page
    /// is whole (`point_page`).
    std::vector<cx_result> page;
    std::vector<std::pair<uint32_t, std::string>> corrections;
    /// The plain words matched when any of them did (`cx_search_request::relax`).
    bool relaxed = false;
    /// Each requested facet's counts.
    std::vector<cx::FacetCounts> facets;
    /// `cx_search_similar`'s item has no vector of meaning.
    bool unembedded = false;
    /// `total` is an estimate: the search stopped counting before the last match.
    bool estimated = false;
    /// The page came from the impact tiers.
    bool from_tiers = false;
};

namespace {

using Query = Xapian::Query;

/// What a term found in `frequency` of `items` items adds to the score of an item of average
/// length, with `wdf` occurrences' worth of within-item frequency.
double term_weight(double items, double frequency, double wdf) {
    return cx::bm25::idf(items, frequency) * (cx::bm25::k1 + 1) * wdf / (cx::bm25::k1 + wdf);
}

/// The most recorded views can add to a score in this query: a tenth of what one description
/// occurrence of its least weighty word adds to an item of average length (see README, Ranking).
/// A title occurrence of a word adds about half again as much as a description occurrence, so a
/// description-only match cannot pass a title match of the same words on views alone. With no
/// plain word (the empty query, prefixes only), one occurrence of a word in half the items stands
/// in.
double view_weight(const Xapian::Database &reader, const Query &query) {
    double least = term_weight(2, 1, 1);
    bool found = false;
    for (auto it = query.get_unique_terms_begin(); it != query.get_unique_terms_end(); ++it) {
        const std::string &term = *it;
        // A word or its stem, in any format; not a filter's boolean term or a word's beginning.
        const bool stem = !term.empty() && term[0] == 'Z';
        if (!cx::is_shared_word(stem ? term.substr(1) : term)) continue;
        const Xapian::doccount frequency = reader.get_termfreq(term);
        if (frequency == 0) continue;
        const double weight = term_weight(reader.get_doccount(), frequency, 1);
        least = found ? std::min(least, weight) : weight;
        found = true;
    }
    return 0.1 * least;
}

/// The most recorded views add to a score in a search of `built`: 0 in an index without views.
double most_for_views(const cx_database &database, cx::Snapshot &snapshot, const cx::BuiltQuery &built) {
    if (cx::value_frequency(database, snapshot, cx::slot::view_boost) == 0) return 0;
    return built.matches_everything ? 1.0 : view_weight(database.reader, built.query);
}

/// The words of `built` as a search of `request` weighs them: from the items' lengths kept in
/// memory (`cx::weighed_from_lengths`) when it keeps fields, else as built.
Query weighed_words(cx_database &database, const cx_search_request &request, const cx::BuiltQuery &built) {
    if (!cx::keeps_fields(database, request) || built.matches_everything) return built.query;
    const std::shared_ptr<const cx::Lengths> lengths = cx::lengths(database);
    return lengths ? cx::weighed_from_lengths(database.reader, built.query, built.factors, lengths) : built.query;
}

/// The words of `built`, weighed as `weighed_words` weighs them, with recorded views added to the
/// scores: up to `view_weight`, growing with the logarithm of the count (`cx::view_boost`). Only
/// viewed items carry the value, and an index without views is searched as before.
Query with_views(cx_database &database, cx::Snapshot &snapshot, const cx_search_request &request,
                 const cx::BuiltQuery &built) {
    const Query words = weighed_words(database, request, built);
    const double weight = most_for_views(database, snapshot, built);
    if (weight == 0) return words;
    return cx::with_view_boosts(database, snapshot, words, weight);
}

/// The query `request` asks for, with visibility, views and expiry applied.
Query full_query(cx_database &database, cx::Snapshot &snapshot, const cx_search_request &request,
                 const cx::BuiltQuery &built) {
    return cx::visible_now(database, snapshot, request, with_views(database, snapshot, request, built));
}

/// How many matches a search checks: 1,000 past its page, so that totals up to there are exact;
/// every one for a request of no results, which is a count and counts exactly. (Counts of values
/// check every match in a match of their own.)
Xapian::doccount matches_to_check(const Xapian::Database &reader, const cx_search_request &request) {
    return request.limit == 0 ? reader.get_doccount() : 1000 + request.offset + request.limit;
}

/// Adds a found document to `results`: its data, its percentage (100 for every match of the empty
/// query, unless `scored`: a similarity), what found it, the fields it shows, read from its data
/// once (`cx::result_fields`), and its snippet, made from the description they hold: an index keeps
/// the description once.
void add_result(cx_results &results, const Xapian::Document &document, int32_t percent, const cx::BuiltQuery &built,
                bool scored = false, uint32_t matched_by = CX_MATCHED_BY_WORDS) {
    std::string data = cx::item_data(document);
    std::optional<cx::ResultFields> fields = cx::result_fields(data);
    cx::Snippet snippet = cx::make_snippet(fields ? fields->description : cx::item_description(data), built.highlighter);
    results.found.push_back({std::move(data), built.matches_everything && !scored ? 100 : percent, matched_by,
                             std::move(snippet), std::move(fields), {}});
}

/// The seconds a search may spend checking matches beyond its page (for the count): past them the
/// matcher stops checking, and the count is an estimate. Whatever a query holds, its page and its
/// cost are bounded by the limits on its words (SearchQuery); this bounds the counting.
constexpr double checking_seconds = 1.0;

/// A page checks at most 1,000 matches past itself, and reaches at most 11,000 deep
/// (SearchQuery's offset and limit): only a count of every match (limit 0) checks more.
constexpr Xapian::doccount most_checked_for_a_page = 12000;

/// Bounds the time `enquire` spends checking `check_at_least` matches, when it may check more than
/// a page does: a timer costs a few system calls, which a page's search need not pay.
void limit_checking(Xapian::Enquire &enquire, Xapian::doccount check_at_least) {
    if (check_at_least > most_checked_for_a_page) enquire.set_time_limit(checking_seconds);
}

/// Runs `enquire` for the page `request` asks for, checking `check_at_least` matches.
Xapian::MSet run_page(Xapian::Enquire &enquire, const cx_search_request &request, Xapian::doccount check_at_least) {
    try {
        return enquire.get_mset(request.offset, request.limit, check_at_least);
    } catch (const Xapian::UnimplementedError &) {
        // A remote shard takes no key maker (Xapian 1.4 sends it a value slot): the first key
        // alone, where items without it come first in ascending order. A distance is no value.
        if (!cx::sort_by_first_key(enquire, request)) {
            if (request.sort_key_count > 0 && (request.sort_keys[0].distance ||
                                               (request.sort_key_count > 1 && request.sort_keys[1].distance)))
                throw Xapian::InvalidArgumentError("an index with remote shards cannot sort by distance");
            throw;
        }
        return enquire.get_mset(request.offset, request.limit, check_at_least);
    }
}

/// Counts `request`'s facets over every match of `query` with `counting`, and the matches in
/// `results.total`. Counts are made by a match of their own, unweighted and unranked, over every
/// match: a ranked page checks a thousand matches past itself, and weighs only those. Its query
/// holds the caller's visibility and the expiry: what is counted is what may be seen.
Xapian::MSet count_facets(cx_database &database, cx_database *keeping, const cx_search_request &request,
                          const Query &query, Xapian::Enquire &counting, cx_results &results) {
    const Xapian::Database &reader = database.reader;
    cx::Facets facets(reader, counting, request.facets, request.facet_count, database.sharded, keeping);
    cx::set_counting_query(counting, reader, query);
    counting.set_time_limit(checking_seconds);
    Xapian::MSet counted = counting.get_mset(0, 0, reader.get_doccount());
    results.total = counted.get_matches_estimated();
    results.facets = facets.collect();
    return counted;
}

/// What recorded views add to the weights of a search of `built`.
cx::ViewsBound views_bound(cx_database &database, cx::Snapshot &snapshot, const cx::BuiltQuery &built) {
    const double weight = most_for_views(database, snapshot, built);
    if (weight == 0) return {};
    return {weight, cx::view_boosts_of(database, snapshot)};
}

/// `cx::ascending_on_shards` for a search of `built`, whose weighed parts are its words' and, when
/// views weigh, their source's.
std::optional<cx::SortedPage> ascending_on_shards(cx_database &database, cx::Snapshot &snapshot,
                                                  Xapian::Enquire &enquire, const cx_search_request &request,
                                                  Xapian::doccount check_at_least, const cx::BuiltQuery &built) {
    const std::optional<unsigned> parts = cx::weighed_parts(built.query, built.factors);
    if (!parts) return std::nullopt;
    const unsigned views = most_for_views(database, snapshot, built) != 0 ? 1 : 0;
    return cx::ascending_on_shards(enquire, request, check_at_least, *parts + views);
}

/// Whether a search of `request` may take its page from the index's impact tiers (tiers.cpp):
/// ranked by relevance, on one database whose committed revision it reads, of words.
bool uses_tiers(const cx_database &database, const cx_search_request &request, const cx::BuiltQuery &built) {
    return !database.sharded && request.limit > 0 && request.sort_key_count == 0 && !built.matches_everything &&
           !(database.writable && database.in_transaction);
}

/// How many items `query` matches, counted unweighted up to `check_at_least` (for at most
/// `checking_seconds` past a page's worth), and whether that is an estimate.
std::pair<Xapian::doccount, bool> count_matches(const Xapian::Database &reader, const Query &query,
                                                Xapian::doccount check_at_least) {
    Xapian::Enquire counting(reader);
    cx::set_counting_query(counting, reader, query);
    limit_checking(counting, check_at_least);
    const Xapian::MSet all = counting.get_mset(0, 0, check_at_least);
    return {all.get_matches_estimated(), all.get_matches_lower_bound() != all.get_matches_upper_bound()};
}

/// `database`'s second handle (`cx_database::counter`) at its reader's revision, opened or
/// reopened; null when it cannot be there (the reader reads a revision the index has moved past).
Xapian::Database *counter_at_reader(cx_database &database) {
    try {
        const Xapian::Database &reader = database.reader;
        // A handle stays at its revision until reopened: one already at the reader's is not asked.
        if (!database.counter)
            database.counter = std::make_unique<Xapian::Database>(database.path);
        else if (database.counter->get_revision() != reader.get_revision())
            database.counter->reopen();
        if (database.counter->get_revision() == reader.get_revision() &&
            database.counter->get_uuid() == reader.get_uuid())
            return database.counter.get();
    } catch (const Xapian::Error &) {
        database.counter.reset();
    }
    return nullptr;
}

/// The count `count_matches` makes of the items of `counted` that `request` may see now, given to
/// another core (`cx::Beside`, on `cx_database::counter` at the reader's revision) while this
/// thread ranks a page; not valid when it cannot be: a writable handle (whose changes only its
/// own handle sees), shards, no core free of the process's searches (`cx::has_spare_core`: one
/// core, or as many searches running as cores), or words Xapian cannot write out (a posting
/// source of the shim's own). Xapian's queries count their references without atomics, so the
/// helper gets a tree of its own, read back from `counted` written out.
cx::Beside<std::pair<Xapian::doccount, bool>> count_beside(cx_database &database, cx::Snapshot &snapshot,
                                                           const cx_search_request &request, const Query &counted,
                                                           Xapian::doccount check_at_least) {
    if (database.writable || database.sharded || database.remote || !cx::has_spare_core()) return {};
    std::string written;
    try {
        written = counted.serialise();
    } catch (const Xapian::UnimplementedError &) {
        return {};
    }
    Xapian::Database *counter = counter_at_reader(database);
    if (counter == nullptr) return {};
    Query own = cx::visible_now(database, snapshot, request, Query::unserialise(written));
    return cx::Beside<std::pair<Xapian::doccount, bool>>(
        [counter, query = std::move(own), check_at_least] { return count_matches(*counter, query, check_at_least); });
}

/// Runs the search of `built`: the page `request` asks for, in its order, and its counts over
/// every match (for at most `checking_seconds`), or over every match of `counted` (words whose
/// matches hold `built`'s) when given; with `also_counted` (matches `built` lacks; only without
/// counts by value), the total counts its matches too. `keeping` is `database` when the search
/// keeps fields in memory (`cx::keeps_fields`), else null.
void run_built(cx_database &database, cx_database *keeping, cx::Snapshot &snapshot, const cx_search_request &request,
               const cx::BuiltQuery &built, cx_results &results, const Query *counted = nullptr,
               const Query *also_counted = nullptr) {
    const Xapian::Database &reader = database.reader;
    Xapian::Enquire enquire(reader);
    // The counts rewrite the query for themselves (`set_counting_query`), from the query as built.
    // The words weighed, with views, once: the tiers' runs and the full evaluation share them.
    const Query weighed = with_views(database, snapshot, request, built);
    const Query full = cx::visible_now(database, snapshot, request, weighed);
    cx::set_matchable_query(enquire, reader, full);
    const Xapian::doccount check_at_least = matches_to_check(reader, request);
    // Counted apart, the page checks no match past itself.
    const bool apart = counted != nullptr && request.facet_count == 0;
    limit_checking(enquire, check_at_least);
    enquire.set_weighting_scheme(cx::bm25::weighting());
    cx::set_order(enquire, request);
    Xapian::Enquire counting(reader);
    Xapian::MSet counts;
    // Counts of values (and their total, of every match) filter what the caller may see rather than
    // exclude it: nothing of them is rated.
    if (request.facet_count > 0)
        counts = count_facets(database, keeping, request,
                              cx::visible_now(database, snapshot, request, counted ? *counted : built.query, false),
                              counting, results);
    // Counted apart, the matches are counted beside the page when they can be; so are the matches
    // also counted.
    const Query *beside_counted = apart ? counted : also_counted;
    cx::Beside<std::pair<Xapian::doccount, bool>> beside;
    if (beside_counted) beside = count_beside(database, snapshot, request, *beside_counted, check_at_least);
    const auto count_apart = [&] {
        return beside.valid() ? beside.get()
                              : count_matches(reader, cx::visible_now(database, snapshot, request, *beside_counted),
                                              check_at_least);
    };
    Xapian::MSet mset;
    Xapian::doccount matches = 0;
    bool estimated = false;
    std::optional<cx::TieredPage> tiered;
    std::optional<cx::SortedPage> sorted;
    if (cx::run_bounded(database, request, enquire, request.facet_count > 0 ? &counts : nullptr, mset, matches)) {
        estimated = true;
    } else if (uses_tiers(database, request, built) &&
               (tiered = cx::tiered_page(
                    reader, built.query, built.factors,
                    [&](std::vector<Xapian::docid> candidates) {
                        return cx::visible_now_among(database, snapshot, request, weighed, std::move(candidates));
                    },
                    [&] { return views_bound(database, snapshot, built); }, request.offset, request.limit,
                    cx::bm25::weighting()))) {
        mset = tiered->mset;
        results.from_tiers = true;
        // The page came from the candidates alone: the matches are counted on their own, unweighted,
        // by the page's own query, so that a total past the matches checked is the estimate a full
        // evaluation makes.
        if (request.facet_count == 0 && !apart)
            std::tie(matches, estimated) = count_matches(reader, full, check_at_least);
    } else if (database.sharded && (sorted = ascending_on_shards(database, snapshot, enquire, request, check_at_least, built))) {
        matches = sorted->matches;
        estimated = sorted->estimated;
    } else if (apart) {
        mset = run_page(enquire, request, request.offset + request.limit);
    } else {
        mset = run_page(enquire, request, check_at_least);
        matches = mset.get_matches_estimated();
        estimated = mset.get_matches_lower_bound() != mset.get_matches_upper_bound();
    }
    if (request.facet_count == 0) {
        results.total = matches;
        results.estimated = estimated;
    } else {
        results.estimated = counts.get_matches_lower_bound() != counts.get_matches_upper_bound();
    }
    if (sorted) {
        for (size_t rank = 0; rank < sorted->documents.size(); ++rank)
            add_result(results, sorted->documents[rank], sorted->percents[rank], built);
    } else {
        const std::vector<Xapian::Document> documents = cx::documents(database, {mset.begin(), mset.end()});
        size_t rank = 0;
        for (auto it = mset.begin(); it != mset.end(); ++it, ++rank)
            add_result(results, documents[rank], tiered ? tiered->percents[rank] : it.get_percent(), built);
    }
    // Counted apart, last: the count beside the page (`count_beside`) runs on while the page's
    // results are read.
    if (apart) {
        std::tie(results.total, results.estimated) = count_apart();
    } else if (beside_counted) {
        const auto [more, estimated_more] = count_apart();
        results.total += more;
        results.estimated = results.estimated || estimated_more;
    }
}

/// Whether a search of `built` ranks its matches as typed before the items only a correction finds
/// (`run_typed_first`): a page ranked by relevance whose words the index holds were corrected.
bool ranks_typed_first(const cx_search_request &request, const cx::BuiltQuery &built) {
    return built.as_typed && request.limit > 0 && request.sort_key_count == 0;
}

/// How many of the index's items `query` matches, were its words independent: each term's
/// frequency read once a snapshot; what a term does not say (a phrase, a range), every item.
double independent_matches(const cx_database &database, cx::Snapshot &snapshot, const Query &query) {
    const double items = std::max(1.0, double(database.reader.get_doccount()));
    const auto share = [&](const auto &self, const Query &part) -> double {
        switch (part.get_type()) {
            case Query::LEAF_TERM:
                return part.get_terms_begin() == part.get_terms_end()
                           ? 1.0
                           : cx::term_frequency(database, snapshot, *part.get_terms_begin()) / items;
            case Query::LEAF_MATCH_NOTHING:
                return 0.0;
            case Query::OP_AND:
            case Query::OP_FILTER: {
                double all = 1.0;
                for (size_t i = 0; i < part.get_num_subqueries(); ++i) all *= self(self, part.get_subquery(i));
                return all;
            }
            case Query::OP_OR:
            case Query::OP_SYNONYM:
            case Query::OP_MAX: {
                double none = 1.0;
                for (size_t i = 0; i < part.get_num_subqueries(); ++i) none *= 1.0 - self(self, part.get_subquery(i));
                return 1.0 - none;
            }
            case Query::OP_AND_NOT:
                return self(self, part.get_subquery(0)) * (1.0 - self(self, part.get_subquery(1)));
            case Query::OP_AND_MAYBE:
            case Query::OP_SCALE_WEIGHT:
                return self(self, part.get_subquery(0));
            default:
                return 1.0;
        }
    };
    return share(share, query) * items;
}

/// Runs the search of `built` (`ranks_typed_first`): its matches as typed (`BuiltQuery::as_typed`)
/// first, ranked among themselves, then the items only a correction finds, ranked among themselves
/// by the whole query, their scores at most the last score as typed above them on the page (SPEC
/// §2.1, a match as typed ranks above a corrected one). The total and the counts are of every
/// match. Those of the whole query are counted beside the page, which stops once it has checked
/// `matches_to_check` of them; where they are likely fewer, the matches as typed are counted by
/// the page's own match, and beside it only what the corrections add (`BuiltQuery::corrected`),
/// read from the corrections' lists rather than every word's again. A page the matches as typed
/// fill costs what the search without typos costs, and that count.
void run_typed_first(cx_database &database, cx_database *keeping, cx::Snapshot &snapshot,
                     const cx_search_request &request, const cx::BuiltQuery &built, cx_results &results) {
    cx::BuiltQuery typed = built;
    typed.query = *built.as_typed;
    if (built.corrected && request.facet_count == 0 &&
        independent_matches(database, snapshot, built.query) < matches_to_check(database.reader, request)) {
        run_built(database, keeping, snapshot, request, typed, results, nullptr, &*built.corrected);
    } else {
        run_built(database, keeping, snapshot, request, typed, results, &built.query);
    }
    const size_t shown = results.found.size();
    if (shown >= request.limit) return;
    // How many items match as typed: the page says, unless it starts past them.
    Xapian::doccount typed_matches = request.offset + Xapian::doccount(shown);
    if (shown == 0 && request.offset > 0)
        typed_matches =
            count_matches(database.reader, cx::visible_now(database, snapshot, request, typed.query), request.offset)
                .first;
    cx::BuiltQuery corrected = built;
    corrected.query = Query(Query::OP_AND_NOT, built.query, typed.query);
    cx_search_request rest = request;
    rest.offset = request.offset > typed_matches ? request.offset - typed_matches : 0;
    rest.limit = request.limit - uint32_t(shown);
    rest.facet_count = 0;
    cx_results more;
    run_built(database, keeping, snapshot, rest, corrected, more);
    const int32_t most = shown > 0 ? results.found.back().percent : 100;
    for (cx_results::Found &found : more.found) {
        found.percent = std::min(found.percent, most);
        results.found.push_back(std::move(found));
    }
    results.from_tiers = results.from_tiers && more.from_tiers;
}

/// Runs the search of `built` by words alone: its matches as typed first when it has them
/// (`ranks_typed_first`), else as built. Returns how many items the words matched.
uint64_t run_by_words(cx_database &database, cx_database *keeping, cx::Snapshot &snapshot,
                      const cx_search_request &request, const cx::BuiltQuery &built, cx_results &results) {
    if (ranks_typed_first(request, built))
        run_typed_first(database, keeping, snapshot, request, built, results);
    else
        run_built(database, keeping, snapshot, request, built, results);
    return results.total;
}

/// How deep a hybrid search reads each ranking: its page, and a hundred more, so that an item just
/// past the page in one ranking and high in the other still takes its place.
Xapian::doccount hybrid_depth(const cx_search_request &request) { return request.offset + request.limit + 100; }

/// Runs the search of `built` by words and meaning together (`cx::searches_by_meaning`): the
/// items its words match, ranked as `run_built` ranks them, and the items nearest in meaning
/// (at least `least_meaning_similarity` near) among those meaning considers: the query's
/// selection (`cx::selection_nodes`: the query less its plain words) when meaning may find items
/// (`meaning_finds`), else the words' matches. An item the words do not match is found by meaning
/// alone only when it stands out of the query's closeness to the items considered (at least
/// `meaning_stand_out` nearer than their mean), and is then counted in the total; the counts
/// (`facets`) are of the words' matches. Each candidate's score is a convex combination, weighed
/// by the semantic ratio r: (1 - r) × its words' percent / 100, plus r × its nearness, its cosine
/// scaled from `unrelated_similarity` (0) to `related_similarity` (1), or 0 when it is not among
/// the nearest. The score is absolute: a percent of 100 × it, at most 100, never scaled to the
/// page's best; equal scores are ordered as the words order them, then by storage. A result was
/// found by meaning when it stands out. Returns how many items the words matched.
Xapian::doccount run_hybrid(cx_database &database, cx_database *keeping, cx::Snapshot &snapshot,
                            const cx_search_request &request, const cx::BuiltQuery &built, cx_results &results) {
    const Xapian::Database &reader = database.reader;
    const double ratio = std::min(1.0, request.semantic_ratio);
    const Xapian::doccount depth = hybrid_depth(request);

    Xapian::Enquire enquire(reader);
    const Query words = full_query(database, snapshot, request, built);
    cx::set_matchable_query(enquire, reader, words);
    enquire.set_weighting_scheme(cx::bm25::weighting());
    const Xapian::doccount check_at_least = std::max(depth, matches_to_check(reader, request));
    limit_checking(enquire, check_at_least);
    Xapian::Enquire counting(reader);
    const Query countable = cx::visible_now(database, snapshot, request, built.query, false);
    if (request.facet_count > 0) count_facets(database, keeping, request, countable, counting, results);
    const Xapian::MSet by_words = enquire.get_mset(0, depth, check_at_least);
    const Xapian::doccount word_matches = by_words.get_matches_estimated();
    // Whether the words' page holds every item they match (that the search may see now): then none
    // of the others is a match, and the words' matches need not be asked for again.
    const bool every_match = by_words.get_matches_lower_bound() == by_words.size() &&
                             by_words.get_matches_upper_bound() == by_words.size();

    cx::BuiltQuery selection;
    const Query *considered = built.matches_everything ? nullptr : &built.query;
    // The items meaning considers, when they are the words' matches and the page holds them all.
    std::optional<std::vector<Xapian::docid>> considered_items;
    if (request.meaning_finds) {
        const std::vector<cx_query_node> nodes = cx::selection_nodes(request.nodes, request.node_count);
        selection = cx::build_query(database, snapshot, nodes.data(), nodes.size(), false, keeping, false,
                                    cx::reading_languages(database, snapshot, request));
        considered = selection.matches_everything ? nullptr : &selection.query;
    } else if (considered != nullptr && every_match) {
        considered_items.emplace(by_words.begin(), by_words.end());
        std::sort(considered_items->begin(), considered_items->end());
    }
    cx::Closeness closeness;
    const auto by_meaning =
        considered_items && considered_items->empty()
            ? std::vector<std::pair<Xapian::docid, double>>()
            : cx::nearest(database, snapshot, request, considered, {}, request.meaning, request.meaning_dimensions,
                          depth, cx::least_meaning_similarity, nullptr, &closeness,
                          considered_items ? &*considered_items : nullptr);
    const double standing_out = closeness.mean() + cx::meaning_stand_out;

    struct Candidate {
        /// The words' percent / 100, and their weight, which orders equal scores as the words do.
        double words = 0;
        double weight = 0;
        double nearness = 0;
        uint32_t matched_by = 0;
    };
    std::unordered_map<Xapian::docid, Candidate> candidates;
    for (auto it = by_words.begin(); it != by_words.end(); ++it) {
        Candidate &candidate = candidates[*it];
        candidate.words = it.get_percent() / 100.0;
        candidate.weight = it.get_weight();
        candidate.matched_by |= CX_MATCHED_BY_WORDS;
    }
    // The nearest items the words' page does not hold: those the words match past it, and those
    // they do not, found only when they stand out.
    std::vector<Xapian::docid> unread;
    for (const auto &[id, similarity] : by_meaning)
        if (candidates.find(id) == candidates.end()) unread.push_back(id);
    std::sort(unread.begin(), unread.end());
    const std::vector<Xapian::docid> also_by_words =
        every_match ? std::vector<Xapian::docid>() : cx::matching(database, countable, unread);
    uint64_t total = word_matches;
    for (const auto &[id, similarity] : by_meaning) {
        const bool stands_out = similarity >= standing_out;
        auto found = candidates.find(id);
        if (found == candidates.end()) {
            const bool by_words = std::binary_search(also_by_words.begin(), also_by_words.end(), id);
            if (!by_words && !stands_out) continue;
            found = candidates.emplace(id, Candidate{0, 0, 0, by_words ? uint32_t(CX_MATCHED_BY_WORDS) : 0u}).first;
            if (!by_words) ++total;
        }
        found->second.nearness = std::max(0.0, (similarity - cx::unrelated_similarity) /
                                                    (cx::related_similarity - cx::unrelated_similarity));
        if (stands_out) found->second.matched_by |= CX_MATCHED_BY_MEANING;
    }
    if (request.facet_count == 0) results.total = total;

    std::vector<std::pair<Xapian::docid, Candidate>> ranked(candidates.begin(), candidates.end());
    const auto score = [ratio](const Candidate &candidate) {
        return (1 - ratio) * candidate.words + ratio * candidate.nearness;
    };
    std::sort(ranked.begin(), ranked.end(), [&](const auto &a, const auto &b) {
        const double first = score(a.second), second = score(b.second);
        if (first != second) return first > second;
        if (a.second.weight != b.second.weight) return a.second.weight > b.second.weight;
        return a.first < b.first;
    });
    const size_t first = std::min(size_t(request.offset), ranked.size());
    const size_t last = std::min(ranked.size(), size_t(request.offset) + request.limit);
    std::vector<Xapian::docid> page;
    for (size_t i = first; i < last; ++i) page.push_back(ranked[i].first);
    const std::vector<Xapian::Document> documents = cx::documents(database, page);
    for (size_t i = first; i < last; ++i) {
        const int32_t percent = int32_t(std::lround(100 * std::min(1.0, score(ranked[i].second))));
        add_result(results, documents[i - first], std::max(1, percent), built, false, ranked[i].second.matched_by);
    }
    return word_matches;
}

cx_text text_of(const std::string &text) { return {text.data(), text.size()}; }

/// `text` when `present`, else a text whose data is NULL.
cx_text text_if(bool present, const std::string &text) { return present ? text_of(text) : cx_text{nullptr, 0}; }

/// Makes the page the caller reads from the results found, whose texts stay where they are from now on.
void point_page(cx_results &results) {
    results.page.clear();
    results.page.reserve(results.found.size());
    for (cx_results::Found &found : results.found) {
        cx_result result{};
        result.data = text_of(found.data);
        result.percent = found.percent;
        result.matched_by = found.matched_by;
        result.snippet = text_of(found.snippet.text);
        result.snippet_matches = found.snippet.matches.empty() ? nullptr : found.snippet.matches.data();
        result.snippet_match_count = found.snippet.matches.size();
        if (const std::optional<cx::ResultFields> &fields = found.fields) {
            found.keywords.clear();
            for (const std::string &keyword : fields->keywords) found.keywords.push_back(text_of(keyword));
            result.fields_read = true;
            result.identifier = text_of(fields->identifier);
            result.domain = text_of(fields->domain);
            result.title = text_if(fields->has_title, fields->title);
            result.description = text_if(fields->has_description, fields->description);
            result.canonical_url = text_if(fields->has_canonical_url, fields->canonical_url);
            result.image_url = text_if(fields->has_image_url, fields->image_url);
            result.keywords = found.keywords.empty() ? nullptr : found.keywords.data();
            result.keyword_count = found.keywords.size();
            result.expiration = fields->expiration;
            result.is_public = fields->is_public;
        }
        results.page.push_back(result);
    }
}

/// Whether the query with `corrections` made (each a node's word replaced) finds an item `request`
/// may see, as it would be searched: exactly, or relaxed when the query may be. A suggestion is
/// offered only then (SPEC §2.2).
bool corrected_query_finds(cx_database &database, cx_database *keeping, cx::Snapshot &snapshot,
                           const cx_search_request &request,
                           const std::vector<std::pair<uint32_t, std::string>> &corrections) {
    if (corrections.empty()) return false;
    std::vector<cx_query_node> nodes(request.nodes, request.nodes + request.node_count);
    for (const auto &[node, word] : corrections)
        if (node < nodes.size()) nodes[node].text = text_of(word);
    const std::vector<std::string> languages = cx::reading_languages(database, snapshot, request);
    const auto finds = [&](bool relaxed) {
        const cx::BuiltQuery built = cx::build_query(database, snapshot, nodes.data(), nodes.size(), relaxed, keeping,
                                                     request.typos, languages);
        return cx::matches_visible_item(database, snapshot, request, built.query);
    };
    return finds(false) || (request.relax && cx::can_relax(nodes.data(), nodes.size()) && finds(true));
}

void run_search(cx_database &database, const cx_search_request &request, cx_results &results) {
    const std::shared_ptr<cx::Snapshot> snapshot = cx::snapshot(database);
    cx_database *keeping = cx::keeps_fields(database, request) ? &database : nullptr;
    const std::vector<std::string> languages = cx::reading_languages(database, *snapshot, request);
    cx::BuiltQuery built = cx::build_query(database, *snapshot, request.nodes, request.node_count, false, keeping,
                                           request.typos, languages);
    const bool hybrid = request.limit > 0 && cx::searches_by_meaning(database, request);
    uint64_t word_matches = hybrid ? run_hybrid(database, keeping, *snapshot, request, built, results)
                                   : run_by_words(database, keeping, *snapshot, request, built, results);
    // No visible item has every plain word: the items with the most of them (docs/reference.md, *Questions, not only keywords*). A count
    // (limit 0) counts the exact query.
    if (word_matches == 0 && request.relax && request.limit > 0 && cx::can_relax(request.nodes, request.node_count)) {
        const cx::BuiltQuery relaxed = cx::build_query(database, *snapshot, request.nodes, request.node_count, true,
                                                       keeping, request.typos, languages);
        cx_results found;
        const uint64_t relaxed_matches = hybrid ? run_hybrid(database, keeping, *snapshot, request, relaxed, found)
                                                : run_by_words(database, keeping, *snapshot, request, relaxed, found);
        if (relaxed_matches > 0) {
            found.relaxed = true;
            results = std::move(found);
            word_matches = relaxed_matches;
        }
    }
    if (word_matches == 0 || results.relaxed) {
        // A word that matches an item the caller may see is never replaced.
        for (const cx::BuiltQuery::Spellable &spellable : built.spellable) {
            if (cx::matches_visible_item(database, *snapshot, request, spellable.query)) continue;
            std::string corrected = cx::visible_suggestion(database, *snapshot, request, spellable.word);
            if (!corrected.empty()) results.corrections.emplace_back(spellable.node, std::move(corrected));
        }
        if (!corrected_query_finds(database, keeping, *snapshot, request, results.corrections))
            results.corrections.clear();
    }
}

}  // namespace

extern "C" {

cx_status cx_search(cx_database *database, const cx_search_request *request, cx_results **out, char **out_error) {
    *out = nullptr;
    if (cx_status status = cx::require_open(database, out_error)) return status;
    if (request == nullptr) return cx::fail(CX_ERR_INVALID_ARGUMENT, "no request", out_error);
    if (!database->format_error.empty()) return cx::fail(database->format_status, database->format_error, out_error);
    const cx::SearchRunning running;
    std::unique_ptr<cx_results> results;
    cx_status status = cx::with_retries(database, out_error, [&] {
        results = std::make_unique<cx_results>();
        run_search(*database, *request, *results);
    });
    if (status != CX_OK) return status;
    point_page(*results);
    *out = results.release();
    return CX_OK;
}

cx_status cx_search_similar(cx_database *database, const cx_search_request *request, cx_text domain,
                            cx_text identifier, cx_results **out, char **out_error) {
    *out = nullptr;
    if (cx_status status = cx::require_open(database, out_error)) return status;
    if (request == nullptr) return cx::fail(CX_ERR_INVALID_ARGUMENT, "no request", out_error);
    if (!database->format_error.empty()) return cx::fail(database->format_status, database->format_error, out_error);
    if (!cx::compares_meaning(*database))
        return cx::fail(CX_ERR_INVALID_ARGUMENT, "shards read through a shard server are not searched by meaning",
                        out_error);
    std::unique_ptr<cx_results> results;
    bool found = false;
    cx_status status = cx::with_retries(database, out_error, [&] {
        results = std::make_unique<cx_results>();
        const Xapian::Database &reader = database->reader;
        const std::shared_ptr<cx::Snapshot> snapshot = cx::snapshot(*database);
        // The item, if the caller may see it now.
        const std::string unique = cx::unique_term(cx::str(domain), cx::str(identifier));
        Xapian::Enquire finding(reader);
        cx::set_matchable_query(finding, reader, cx::visible_now(*database, *snapshot, *request, Query(unique)));
        const Xapian::MSet item = finding.get_mset(0, 1);
        found = !item.empty();
        if (!found) return;
        const Xapian::docid id = *item.begin();
        const std::vector<float> vector =
            cx::stored_vector(database->meaning_copies ? database->meaning_copies->reader : reader, id);
        if (vector.empty()) {
            results->unembedded = true;
            return;
        }
        // Every other item the caller may see that the request's query selects.
        const cx::BuiltQuery built =
            cx::build_query(*database, *snapshot, request->nodes, request->node_count, false, nullptr, request->typos,
                            cx::reading_languages(*database, *snapshot, *request));
        const Xapian::doccount depth = request->offset + request->limit;
        Xapian::doccount near = 0;
        const auto nearest = cx::nearest(*database, *snapshot, *request, built.matches_everything ? nullptr : &built.query,
                                         unique, vector.data(), uint32_t(vector.size()), depth,
                                         cx::least_meaning_similarity, &near);
        results->total = near;
        std::vector<Xapian::docid> page;
        for (size_t i = request->offset; i < nearest.size(); ++i) page.push_back(nearest[i].first);
        const std::vector<Xapian::Document> documents = cx::documents(*database, page);
        for (size_t i = request->offset; i < nearest.size(); ++i) {
            const int32_t percent = int32_t(std::lround(100 * nearest[i].second));
            add_result(*results, documents[i - request->offset], std::max(1, percent), built, true,
                       CX_MATCHED_BY_MEANING);
        }
    });
    if (status != CX_OK) return status;
    if (!found) return cx::fail(CX_ERR_NOT_FOUND, "no such item", out_error);
    point_page(*results);
    *out = results.release();
    return CX_OK;
}

bool cx_results_unembedded(const cx_results *results) { return results->unembedded; }

cx_status cx_read_words(cx_database *database, const cx_search_request *request, const cx_text *words, size_t count,
                        bool *out_held, char **out_corrections, char **out_error) {
    if (cx_status status = cx::require_open(database, out_error)) return status;
    if (request == nullptr || (count > 0 && (words == nullptr || out_held == nullptr || out_corrections == nullptr)))
        return cx::fail(CX_ERR_INVALID_ARGUMENT, "no request, words or answers", out_error);
    if (!database->format_error.empty()) return cx::fail(database->format_status, database->format_error, out_error);
    std::vector<std::unique_ptr<char, decltype(&std::free)>> corrections;
    cx_status status = cx::with_retries(database, out_error, [&] {
        corrections.clear();
        const std::shared_ptr<cx::Snapshot> snapshot = cx::snapshot(*database);
        const std::vector<std::string> languages = cx::reading_languages(*database, *snapshot, *request);
        for (size_t i = 0; i < count; ++i) {
            cx_query_node word{};
            word.kind = CX_NODE_WORD;
            word.field = CX_FIELD_ANY;
            word.text = words[i];
            const cx::BuiltQuery built = cx::build_query(*database, *snapshot, &word, 1, false, nullptr, false, languages);
            out_held[i] = cx::matches_visible_item(*database, *snapshot, *request, built.query);
            const std::string correction =
                out_held[i] ? std::string() : cx::visible_correction(*database, *snapshot, *request, cx::str(words[i]));
            corrections.emplace_back(correction.empty() ? nullptr : cx::copy_bytes(correction), &std::free);
        }
    });
    if (status != CX_OK) return status;
    for (size_t i = 0; i < count; ++i) out_corrections[i] = corrections[i].release();
    return CX_OK;
}

const cx_result *cx_results_page(const cx_results *results, size_t *out_count) {
    *out_count = results->page.size();
    return results->page.empty() ? nullptr : results->page.data();
}
uint64_t cx_results_total(const cx_results *results) { return results->total; }
bool cx_results_relaxed(const cx_results *results) { return results->relaxed; }
bool cx_results_total_is_estimate(const cx_results *results) { return results->estimated; }
bool cx_results_from_tiers(const cx_results *results) { return results->from_tiers; }

size_t cx_results_correction_count(const cx_results *results) { return results->corrections.size(); }

uint32_t cx_results_correction_node(const cx_results *results, size_t index) {
    return index < results->corrections.size() ? results->corrections[index].first : 0;
}

cx_text cx_results_correction_text(const cx_results *results, size_t index) {
    return index < results->corrections.size() ? text_of(results->corrections[index].second) : cx_text{nullptr, 0};
}

size_t cx_results_facet_size(const cx_results *results, size_t facet) {
    return facet < results->facets.size() ? results->facets[facet].values.size() : 0;
}

const double *cx_results_facet_numbers(const cx_results *results, size_t facet, size_t *out_count) {
    *out_count = 0;
    if (facet >= results->facets.size() || results->facets[facet].numbers.empty()) return nullptr;
    *out_count = results->facets[facet].numbers.size();
    return results->facets[facet].numbers.data();
}

void cx_results_facet_value(const cx_results *results, size_t facet, size_t index, cx_text *out_text,
                            double *out_number, uint64_t *out_count) {
    *out_text = cx_text{nullptr, 0};
    *out_number = 0;
    *out_count = 0;
    if (facet >= results->facets.size() || index >= results->facets[facet].values.size()) return;
    const cx::FacetCounts::Value &value = results->facets[facet].values[index];
    *out_text = text_of(value.text);
    *out_number = value.number;
    *out_count = value.count;
}

void cx_results_free(cx_results *results) { delete results; }

}  // extern "C"
