// The native query baseline: the plain Xapian query loop a C++ programmer would write, run on the
// index Searchlight built, with the same fields, stemming and filters, so that what Searchlight's
// own query building and result handling cost is visible beside it.
//
//   xapian-query INDEX manifest.json ROUNDS [KIND]
//
// Given a KIND, it runs that kind alone, checking 1,000 more matches only; each search runs in
// `search_once`, which instruction counts (callgrind's --toggle-collect) name.
//
// For each query of the manifest's mix (single words, two words, phrases, as-you-type prefixes,
// title: filters) it parses the text with Xapian's QueryParser (a plain word searching the title,
// keyword and description fields; `title:` the title alone; the last word also matched as a prefix,
// as Searchlight's query language does), keeps the items the default domain may see (public items
// and its own private ones, as boolean terms) that have not expired at the manifest's `index_now`,
// weighs with Searchlight's BM25 (`k1` 1.2, `b` 0.5), and reads the data of the top 20. It prints one line of JSON: latencies in
// milliseconds per query kind with Xapian's default `check_at_least` ("latencies") and with the
// 1,000 more matches Searchlight asks Xapian to check for its totals ("latencies_checked"), and the
// results returned per kind. Built by Benchmarks/run with g++ -O2 and Debian's libxapian-dev and
// nlohmann-json3-dev.
//
// For two words it also times the floor under Searchlight's own search ("latencies_floor"): the
// query in the shape Searchlight builds it (`floor_query`), checking 1,020 and reading 20 results,
// with no visibility or expiry filter, no snippet and nothing decoded: what Xapian alone takes to
// match what Searchlight matches.
//
//   xapian-query floor INDEX queries.json
//
// times the same floor for the phrases and as-you-type queries the service was timed on, each once
// (`run_floor`), and says which phrases were paired.

#include <xapian.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace {

// Searchlight's index layout, format 6 (Sources/CXapian/internal.hpp): every field's words
// unprefixed, in one term space, with field-weighted frequencies; a title word also as a boolean
// `S` term; word beginnings (3 or 4 characters) under XB; the mode and a private item's domain as
// boolean terms; the expiration in value slot 0 of the items that can expire.
const std::string title_filter = "S";
const std::string beginning = "XB";
const std::string public_mode = "XMpublic";
const std::string private_domain = "XP";
constexpr Xapian::valueno expiration_slot = 0;

std::string query_text(const std::string &kind, const std::string &text) {
    if (kind == "phrase") return "\"" + text + "\"";
    if (kind == "field") return "title:" + text;
    return text;
}

Xapian::QueryParser make_parser(const Xapian::Database &database) {
    Xapian::QueryParser parser;
    parser.set_database(database);
    parser.set_stemmer(Xapian::Stem("english"));
    parser.set_stemming_strategy(Xapian::QueryParser::STEM_SOME);
    parser.set_default_op(Xapian::Query::OP_AND);
    parser.set_max_expansion(100, Xapian::Query::WILDCARD_LIMIT_MOST_FREQUENT,
                             Xapian::QueryParser::FLAG_WILDCARD | Xapian::QueryParser::FLAG_PARTIAL);
    return parser;
}

/// One search: parse, filter, match, read the page's data. Returns the number of hits.
__attribute__((noinline)) size_t search_once(const Xapian::Database &database, Xapian::QueryParser &parser,
                                             const Xapian::Query &visible, const Xapian::Query &expired,
                                             const std::string &text, unsigned flags, bool check) {
    // `title:word`: the word, weighed as anywhere, filtered by its title term (its field's terms
    // weigh nothing in format 6).
    const bool title = text.compare(0, 6, "title:") == 0;
    Xapian::Query query = parser.parse_query(title ? text.substr(6) : text, flags);
    if (title) query = Xapian::Query(Xapian::Query::OP_FILTER, query, Xapian::Query(title_filter + text.substr(6)));
    query = Xapian::Query(Xapian::Query::OP_FILTER, query, visible);
    query = Xapian::Query(Xapian::Query::OP_AND_NOT, query, expired);
    Xapian::Enquire enquire(database);
    enquire.set_query(query);
    enquire.set_weighting_scheme(Xapian::BM25Weight(1.2, 0, 1, 0.5, 0.5));
    Xapian::MSet mset = enquire.get_mset(0, 20, check ? 1020 : 0);
    for (auto hit = mset.begin(); hit != mset.end(); ++hit) hit.get_document().get_data();
    return mset.size();
}

/// A query of plain words the way Searchlight builds it (Sources/CXapian/query.cpp): each word's
/// stem; the last word, as-you-type, also as the term of its beginning when it is 3 or 4
/// characters long, else as the words it begins (the 100 most frequent), weighed a tenth.
Xapian::Query floor_query(const std::string &text) {
    using Query = Xapian::Query;
    static const Xapian::Stem stem("english");
    std::vector<std::string> words;
    for (size_t start = 0, end; start < text.size(); start = end + 1) {
        end = text.find(' ', start);
        if (end == std::string::npos) end = text.size();
        if (end > start) words.push_back(text.substr(start, end - start));
    }
    std::vector<Query> matched;
    for (size_t i = 0; i < words.size(); ++i) {
        const std::string &word = words[i];
        Query query("Z" + stem(word));
        if (i + 1 == words.size()) {
            const bool beginnings = word.size() == 3 || word.size() == 4;
            const Query begun = beginnings ? Query(beginning + word)
                                           : Query(Query::OP_WILDCARD, word, 100, Query::WILDCARD_LIMIT_MOST_FREQUENT,
                                                   Query::OP_OR);
            query = Query(Query::OP_OR, query, Query(Query::OP_SCALE_WEIGHT, begun, 0.1));
        }
        matched.push_back(query);
    }
    return Query(Query::OP_AND, matched.begin(), matched.end());
}

/// One search of `query` as Xapian alone runs it: 1,020 matches checked, the page's data read.
__attribute__((noinline)) size_t floor_search_once(const Xapian::Database &database, const Xapian::Query &query) {
    Xapian::Enquire enquire(database);
    enquire.set_query(query);
    enquire.set_weighting_scheme(Xapian::BM25Weight(1.2, 0, 1, 0.5, 0.5));
    Xapian::MSet mset = enquire.get_mset(0, 20, 1020);
    for (auto hit = mset.begin(); hit != mset.end(); ++hit) hit.get_document().get_data();
    return mset.size();
}

/// A phrase the way Searchlight builds it (Sources/CXapian/pairs.cpp): two words the index holds
/// the pair term of (`XW` and the words: they are common and paired) as their AND filtered by it;
/// other words as Xapian's phrase of the plain words, each at its position.
Xapian::Query phrase_query(const Xapian::Database &database, const std::string &quoted) {
    const std::string text = quoted.size() >= 2 && quoted.front() == '"' ? quoted.substr(1, quoted.size() - 2) : quoted;
    std::vector<Xapian::Query> words;
    for (size_t start = 0, end; start < text.size(); start = end + 1) {
        end = text.find(' ', start);
        if (end == std::string::npos) end = text.size();
        if (end > start) words.emplace_back(text.substr(start, end - start), 1, Xapian::termpos(words.size() + 1));
    }
    if (words.size() == 2) {
        const std::string pair = "XW" + *words[0].get_terms_begin() + ' ' + *words[1].get_terms_begin();
        if (database.term_exists(pair))
            return Xapian::Query(Xapian::Query::OP_FILTER, Xapian::Query(Xapian::Query::OP_AND, words.begin(), words.end()),
                                 Xapian::Query(pair));
    }
    return Xapian::Query(Xapian::Query::OP_PHRASE, words.begin(), words.end(), Xapian::termcount(words.size()));
}

/// `xapian-query floor INDEX queries.json`: the queries the service was timed on, `{"phrase": […],
/// "prefix": […]}` as they were sent, each run once by Xapian alone in the shape Searchlight builds
/// it (a phrase as `phrase_query`, as-you-type as `floor_query`), in the same order: what Xapian
/// takes for queries it has not seen, beside the service's time for them.
int run_floor(const std::string &index, const std::string &queries_path) {
    std::ifstream queries_file(queries_path);
    const nlohmann::json queries = nlohmann::json::parse(queries_file);
    Xapian::Database database(index);
    nlohmann::json floor, paired;
    for (const auto &[kind, texts] : queries.items()) {
        std::vector<double> times;
        std::vector<bool> pairs;
        for (const auto &text : texts) {
            const std::string words = text.get<std::string>();
            const Xapian::Query query = kind == "phrase" ? phrase_query(database, words) : floor_query(words);
            const auto start = std::chrono::steady_clock::now();
            floor_search_once(database, query);
            times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
            pairs.push_back(query.get_type() == Xapian::Query::OP_FILTER);
        }
        floor[kind] = times;
        if (kind == "phrase") paired[kind] = pairs;
    }
    std::printf("%s\n", nlohmann::json{{"latencies_floor", floor}, {"paired", paired}}.dump().c_str());
    return 0;
}

int run(const std::string &index, const std::string &manifest_path, int rounds, const std::string &only) {
    std::ifstream manifest_file(manifest_path);
    nlohmann::json manifest = nlohmann::json::parse(manifest_file);
    const double now_ms = manifest["index_now"].get<double>();
    Xapian::Database database(index);
    Xapian::QueryParser parser = make_parser(database);
    const Xapian::Query visible(Xapian::Query::OP_OR, Xapian::Query(public_mode),
                                Xapian::Query(private_domain + "default"));
    const Xapian::Query expired(Xapian::Query::OP_VALUE_LE, expiration_slot, Xapian::sortable_serialise(now_ms));

    nlohmann::json latencies, checked, results;
    for (const auto &[kind, texts] : manifest["queries"].items()) {
        if (!only.empty() && kind != only) continue;
        // Searchlight matches the last word of every query as a prefix too (as-you-type).
        const unsigned flags = Xapian::QueryParser::FLAG_DEFAULT | Xapian::QueryParser::FLAG_PARTIAL;
        for (int check = only.empty() ? 0 : 1; check < 2; ++check) {
            std::vector<double> times;
            size_t returned = 0;
            // Round 0 warms the caches and is not timed.
            for (int round = 0; round <= rounds; ++round) {
                for (const auto &text : texts) {
                    auto start = std::chrono::steady_clock::now();
                    const size_t hits = search_once(database, parser, visible, expired,
                                                    query_text(kind, text.get<std::string>()), flags, check);
                    if (round == 0) continue;
                    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                                        .count());
                    returned += hits;
                }
            }
            (check ? checked : latencies)[kind] = times;
            if (!check) results[kind] = returned;
        }
    }
    nlohmann::json floor;
    if (manifest["queries"].contains("two") && (only.empty() || only == "two")) {
        std::vector<Xapian::Query> queries;
        for (const auto &text : manifest["queries"]["two"]) queries.push_back(floor_query(text.get<std::string>()));
        std::vector<double> times;
        for (int round = 0; round <= rounds; ++round) {
            for (const Xapian::Query &query : queries) {
                auto start = std::chrono::steady_clock::now();
                floor_search_once(database, query);
                if (round == 0) continue;
                times.push_back(
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
            }
        }
        floor["two"] = times;
    }
    nlohmann::json output = {
        {"latencies", latencies}, {"latencies_checked", checked}, {"latencies_floor", floor}, {"results", results}};
    std::printf("%s\n", output.dump().c_str());
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    try {
        if (argc == 4 && std::string(argv[1]) == "floor") return run_floor(argv[2], argv[3]);
        if (argc == 4 || argc == 5) return run(argv[1], argv[2], std::atoi(argv[3]), argc == 5 ? argv[4] : "");
        std::fprintf(stderr, "usage: xapian-query INDEX manifest.json ROUNDS [KIND] | xapian-query floor INDEX queries.json\n");
        return 64;
    } catch (const Xapian::Error &error) {
        std::fprintf(stderr, "xapian-query: %s\n", error.get_description().c_str());
        return 1;
    } catch (const std::exception &error) {
        std::fprintf(stderr, "xapian-query: %s\n", error.what());
        return 1;
    }
}
