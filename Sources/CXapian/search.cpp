// Reading: search, get, counts and the cursor over every item.

#include <cctype>

#include "internal.hpp"

using cx::str;

struct cx_results {
    uint64_t total = 0;
    std::vector<std::string> data;
    std::vector<int32_t> percents;
    std::vector<std::string> snippets;
    std::string suggestion;
};

struct cx_cursor {
    Xapian::Database reader;
    Xapian::PostingIterator position;
    Xapian::PostingIterator end;
    bool started = false;
    std::string data;
};

namespace {

/// Readers retry this many times when a writer's commits overtake them.
constexpr int modified_retries = 5;

cx_status require_open(cx_database *database, char **out_error) {
    if (database == nullptr) return cx::fail(CX_ERR_INVALID_ARGUMENT, "no database handle", out_error);
    if (database->closed) return cx::fail(CX_ERR_INVALID_ARGUMENT, "the database is closed", out_error);
    return CX_OK;
}

/// Runs `body`, and when a writer's commit has overtaken this reader (Xapian::DatabaseModifiedError),
/// reopens at the latest revision and runs it again.
template <typename Body>
cx_status with_retries(cx_database *database, char **out_error, Body body) {
    for (int attempt = 0;; ++attempt) {
        try {
            body();
            return CX_OK;
        } catch (const Xapian::DatabaseModifiedError &) {
            if (attempt >= modified_retries) return cx::status_from_current_exception(out_error);
            try {
                database->reader.reopen();
            } catch (...) {
                return cx::status_from_current_exception(out_error);
            }
        } catch (...) {
            return cx::status_from_current_exception(out_error);
        }
    }
}

/// `field:value` filters whose terms are built the way the indexer built them.
///
/// A processor never throws: an exception unwinding through Xapian 1.4's query parser can free
/// memory twice (found by fuzzing `-mode:…`). It records the problem instead, returns a query that
/// matches nothing, and the caller reports the problem once parsing is over.
class TermProcessor : public Xapian::FieldProcessor {
  public:
    /// Makes the term, or returns false with a message.
    using Maker = bool (*)(const std::string &value, std::string &term_or_error);
    TermProcessor(Maker maker, std::string &error) : maker_(maker), error_(error) {}

    Xapian::Query operator()(const std::string &value) override {
        std::string result;
        if (maker_(value, result)) return Xapian::Query(result);
        if (error_.empty()) error_ = result;
        return Xapian::Query::MatchNothing;
    }

  private:
    Maker maker_;
    std::string &error_;
};

bool identifier_filter(const std::string &value, std::string &term) {
    term = cx::bounded_term(cx::prefix::identifier, value);
    return true;
}
bool domain_filter(const std::string &value, std::string &term) {
    term = cx::bounded_term(cx::prefix::domain, value);
    return true;
}
bool keyword_filter(const std::string &value, std::string &term) {
    term = cx::keyword_term(value);
    return true;
}
bool schema_filter(const std::string &value, std::string &term) {
    term = cx::schema_term(value);
    return true;
}
bool mode_filter(const std::string &value, std::string &term) {
    std::string mode = cx::fold_lower(value);
    if (mode != "public" && mode != "private") {
        term = "mode: takes public or private, not '" + value + "'";
        return false;
    }
    term = cx::prefix::mode + mode;
    return true;
}

/// The query parser, set up once per search with the product's prefixes and flags.
struct Parser {
    Xapian::QueryParser parser;
    /// The first problem a field processor met while parsing.
    std::string error;
    TermProcessor keywords{keyword_filter, error};
    TermProcessor identifiers{identifier_filter, error};
    TermProcessor schemas{schema_filter, error};
    TermProcessor modes{mode_filter, error};
    TermProcessor domains{domain_filter, error};

    explicit Parser(const Xapian::Database &database) {
        parser.set_database(database);
        parser.set_stemmer(Xapian::Stem("english"));
        parser.set_stemming_strategy(Xapian::QueryParser::STEM_SOME);
        parser.set_default_op(Xapian::Query::OP_AND);
        // A plain word searches the title, the keywords and the description.
        for (const std::string *prefix : {&cx::prefix::title, &cx::prefix::keyword_text, &cx::prefix::description})
            parser.add_prefix("", *prefix);
        parser.add_prefix("title", cx::prefix::title);
        parser.add_prefix("description", cx::prefix::description);
        parser.add_boolean_prefix("keyword", &keywords);
        parser.add_boolean_prefix("id", &identifiers);
        parser.add_boolean_prefix("schema", &schemas);
        parser.add_boolean_prefix("mode", &modes);
        parser.add_boolean_prefix("domain", &domains);
        // As-you-type and `word*` expand to the most frequent matching terms rather than failing.
        parser.set_max_expansion(100, Xapian::Query::WILDCARD_LIMIT_MOST_FREQUENT,
                                 Xapian::QueryParser::FLAG_WILDCARD | Xapian::QueryParser::FLAG_PARTIAL);
    }

    /// Parses, then reports a field processor's problem as Xapian's parser would have.
    Xapian::Query parse(const std::string &text, unsigned flags_used) {
        error.clear();
        Xapian::Query query = parser.parse_query(text, flags_used);
        if (!error.empty()) throw Xapian::QueryParserError(error);
        return query;
    }

    static constexpr unsigned flags = Xapian::QueryParser::FLAG_PHRASE | Xapian::QueryParser::FLAG_BOOLEAN |
                                      Xapian::QueryParser::FLAG_LOVEHATE | Xapian::QueryParser::FLAG_WILDCARD |
                                      Xapian::QueryParser::FLAG_PARTIAL | Xapian::QueryParser::FLAG_PURE_NOT |
                                      Xapian::QueryParser::FLAG_CJK_NGRAM;
};

bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }

/// What to highlight in descriptions: the query's unprefixed and description terms, their stems,
/// and the words typed as prefixes (the last word, and `word*`).
cx::Highlighter make_highlighter(const Xapian::Query &query, const std::string &folded_query) {
    cx::Highlighter highlighter;
    highlighter.stemmer = Xapian::Stem("english");
    for (auto it = query.get_unique_terms_begin(); it != query.get_unique_terms_end(); ++it) {
        std::string term = *it;
        bool stemmed = !term.empty() && term[0] == 'Z';
        if (stemmed) term.erase(0, 1);
        if (term.compare(0, cx::prefix::description.size(), cx::prefix::description) == 0) {
            term.erase(0, cx::prefix::description.size());
        } else if (!term.empty() && is_upper(term[0])) {
            continue;  // a keyword or filter term
        }
        (stemmed ? highlighter.stems : highlighter.words).push_back(term);
    }
    // The prefixes: each word followed by '*', and the last word of the query.
    std::string lowered = Xapian::Unicode::tolower(folded_query);
    std::string word;
    auto flush = [&](bool is_prefix) {
        if (is_prefix && !word.empty()) highlighter.prefixes.push_back(word);
        word.clear();
    };
    for (Xapian::Utf8Iterator it(lowered); it != Xapian::Utf8Iterator(); ++it) {
        unsigned cp = *it;
        if (Xapian::Unicode::is_wordchar(cp)) {
            Xapian::Unicode::append_utf8(word, cp);
        } else {
            flush(cp == '*');
            if (cp == ':') word.clear();
        }
    }
    flush(true);
    return highlighter;
}

/// The top-level terms of a query: split on spaces outside quotes and parentheses.
std::vector<std::string> top_level_terms(const std::string &query) {
    std::vector<std::string> terms;
    std::string current;
    int depth = 0;
    bool quoted = false;
    for (char c : query) {
        if (c == '"') quoted = !quoted;
        if (!quoted && c == '(') ++depth;
        if (!quoted && c == ')') --depth;
        if (!quoted && depth <= 0 && std::isspace(static_cast<unsigned char>(c))) {
            if (!current.empty()) terms.push_back(current);
            current.clear();
        } else {
            current += c;
        }
    }
    if (!current.empty()) terms.push_back(current);
    return terms;
}

/// Scores each field's match separately. The query parser joins a word's field variants (title,
/// keywords, description) with OP_SYNONYM, which weighs them as one term and must visit every
/// document that has the word; OP_OR matches the same documents, weighs each field on its own (a
/// title match, being rarer, counts more), and lets Xapian skip documents that cannot reach the
/// page: a common word takes a third of the time. A synonym of as-you-type expansions stays one
/// (weighing each of hundreds of expansions costs more than it saves), and operators with
/// parameters (phrases, wildcards, value ranges) are kept as they are.
Xapian::Query score_fields_separately(const Xapian::Query &query) {
    using Query = Xapian::Query;
    const Query::op type = query.get_type();
    switch (type) {
        case Query::OP_SYNONYM:
        case Query::OP_OR:
        case Query::OP_AND:
        case Query::OP_AND_NOT:
        case Query::OP_XOR:
        case Query::OP_AND_MAYBE:
        case Query::OP_FILTER:
            break;
        default:
            return query;
    }
    std::vector<Query> subqueries;
    bool only_terms = true;
    for (size_t i = 0; i < query.get_num_subqueries(); ++i) {
        subqueries.push_back(score_fields_separately(query.get_subquery(i)));
        only_terms = only_terms && subqueries.back().get_type() == Query::LEAF_TERM;
    }
    return Query(type == Query::OP_SYNONYM && only_terms ? Query::OP_OR : type, subqueries.begin(), subqueries.end());
}

/// Parses the user's query. A query made only of exclusions (`-word -"a phrase"`) means
/// "everything but these", which Xapian's parser would otherwise read as the words themselves.
Xapian::Query parse_user_query(Parser &parser, const std::string &folded) {
    if (folded.empty()) return Xapian::Query::MatchAll;
    std::vector<std::string> terms = top_level_terms(folded);
    bool only_exclusions = !terms.empty();
    std::string excluded;
    for (const auto &term : terms) {
        if (term.size() < 2 || term[0] != '-') {
            only_exclusions = false;
            break;
        }
        excluded += (excluded.empty() ? "" : " OR ") + term.substr(1);
    }
    if (!only_exclusions) return score_fields_separately(parser.parse(folded, Parser::flags));
    return Xapian::Query(Xapian::Query::OP_AND_NOT, Xapian::Query::MatchAll,
                         parser.parse(excluded, Parser::flags & ~Xapian::QueryParser::FLAG_PARTIAL));
}

/// Folds accents in a query except in the values of exact filters (`id:`, `domain:`), which must
/// match byte for byte.
std::string fold_query(const std::string &query) {
    static const char *const exact_fields[] = {"id:", "domain:"};
    std::string out;
    size_t plain_start = 0;
    auto flush_plain = [&](size_t end) { out += cx::fold_accents(query.substr(plain_start, end - plain_start)); };
    for (size_t i = 0; i < query.size(); ++i) {
        bool word_start = i == 0 || std::isspace(static_cast<unsigned char>(query[i - 1])) || query[i - 1] == '(' ||
                          query[i - 1] == '-' || query[i - 1] == '+';
        if (!word_start) continue;
        for (const char *field : exact_fields) {
            size_t length = std::char_traits<char>::length(field);
            if (query.compare(i, length, field) != 0) continue;
            size_t end = i + length;
            if (end < query.size() && query[end] == '"') {
                size_t close = query.find('"', end + 1);
                end = close == std::string::npos ? query.size() : close + 1;
            } else {
                while (end < query.size() && !std::isspace(static_cast<unsigned char>(query[end])) && query[end] != ')')
                    ++end;
            }
            flush_plain(i);
            out += query.substr(i, end - i);
            plain_start = end;
            i = end - 1;
            break;
        }
    }
    flush_plain(query.size());
    return out;
}

std::string trim(const std::string &text) {
    size_t begin = 0, end = text.size();
    while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
    while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
    return text.substr(begin, end - begin);
}

}  // namespace

extern "C" {

cx_status cx_search(cx_database *database, const cx_search_request *request, cx_results **out, char **out_error) {
    *out = nullptr;
    if (cx_status status = require_open(database, out_error)) return status;
    if (request == nullptr) return cx::fail(CX_ERR_INVALID_ARGUMENT, "no request", out_error);
    if (!database->format_error.empty()) return cx::fail(CX_ERR_VERSION, database->format_error, out_error);
    auto results = std::make_unique<cx_results>();
    cx_status status = with_retries(database, out_error, [&] {
        Xapian::Database &reader = database->reader;
        *results = cx_results();
        Parser parser(reader);
        // Fold the query as the indexer folded the text; the last word is always also a prefix,
        // so trailing white space is dropped.
        const std::string folded = trim(fold_query(cx::straighten_quotes(str(request->query))));
        Xapian::Query user = parse_user_query(parser, folded);

        std::vector<Xapian::Query> filters;
        if (!request->all_domains) {
            // Every public item, and the private items of the caller's domain.
            filters.emplace_back(Xapian::Query::OP_OR, Xapian::Query(cx::prefix::mode + "public"),
                                 Xapian::Query(cx::bounded_term(cx::prefix::private_domain, str(request->domain))));
        }
        if (request->scope == CX_SCOPE_PUBLIC) filters.emplace_back(cx::prefix::mode + "public");
        if (request->scope == CX_SCOPE_PRIVATE) filters.emplace_back(cx::prefix::mode + "private");
        Xapian::Query query = user;
        if (!filters.empty())
            query = Xapian::Query(Xapian::Query::OP_FILTER, user,
                                  Xapian::Query(Xapian::Query::OP_AND, filters.begin(), filters.end()));
        // Expired items are never returned, pruned or not. Only items that can expire have a value,
        // and few of them have expired, so excluding those is cheaper than testing every match.
        query = Xapian::Query(Xapian::Query::OP_AND_NOT, query,
                              Xapian::Query(Xapian::Query::OP_VALUE_LE, cx::slot::expiration,
                                            Xapian::sortable_serialise(static_cast<double>(request->now_ms))));

        Xapian::Enquire enquire(reader);
        enquire.set_query(query);
        // A request for no results is a count, and counts exactly.
        const Xapian::doccount check_at_least =
            request->limit == 0 ? reader.get_doccount() : 1000 + request->offset + request->limit;
        Xapian::MSet mset = enquire.get_mset(request->offset, request->limit, check_at_least);
        results->total = mset.get_matches_estimated();
        cx::Highlighter highlighter = make_highlighter(user, folded);
        for (auto it = mset.begin(); it != mset.end(); ++it) {
            Xapian::Document document = it.get_document();
            results->data.push_back(document.get_data());
            results->percents.push_back(folded.empty() ? 100 : it.get_percent());
            results->snippets.push_back(cx::make_snippet(document.get_value(cx::slot::description), highlighter));
        }
        if (results->total == 0 && !folded.empty()) {
            // Spelling correction skips partial (as-you-type) terms, so the last word is taken whole.
            parser.parse(folded, (Parser::flags & ~Xapian::QueryParser::FLAG_PARTIAL) |
                                     Xapian::QueryParser::FLAG_SPELLING_CORRECTION);
            std::string corrected = parser.parser.get_corrected_query_string();
            if (!corrected.empty() && corrected != folded) results->suggestion = corrected;
        }
    });
    if (status == CX_OK) *out = results.release();
    return status;
}

size_t cx_results_count(const cx_results *results) { return results->data.size(); }
uint64_t cx_results_total(const cx_results *results) { return results->total; }
cx_text cx_results_data(const cx_results *results, size_t index) {
    const std::string &data = results->data.at(index);
    return {data.data(), data.size()};
}
int32_t cx_results_percent(const cx_results *results, size_t index) { return results->percents.at(index); }
cx_text cx_results_snippet(const cx_results *results, size_t index) {
    const std::string &snippet = results->snippets.at(index);
    return {snippet.data(), snippet.size()};
}
cx_text cx_results_suggestion(const cx_results *results) {
    return {results->suggestion.data(), results->suggestion.size()};
}
void cx_results_free(cx_results *results) { delete results; }

cx_status cx_database_get(cx_database *database, cx_text domain, cx_text identifier, char **out_data,
                          size_t *out_length, char **out_error) {
    *out_data = nullptr;
    *out_length = 0;
    if (cx_status status = require_open(database, out_error)) return status;
    bool found = false;
    std::string data;
    cx_status status = with_retries(database, out_error, [&] {
        Xapian::Database &reader = database->reader;
        const std::string unique = cx::unique_term(str(domain), str(identifier));
        Xapian::PostingIterator posting = reader.postlist_begin(unique);
        found = posting != reader.postlist_end(unique);
        if (found) data = reader.get_document(*posting).get_data();
    });
    if (status != CX_OK) return status;
    if (!found) return cx::fail(CX_ERR_NOT_FOUND, "no such item", out_error);
    try {
        *out_data = cx::copy_bytes(data);
        *out_length = data.size();
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

cx_status cx_database_stats(cx_database *database, int64_t now_ms, cx_stats *out_stats, char **out_error) {
    if (cx_status status = require_open(database, out_error)) return status;
    return with_retries(database, out_error, [&] {
        Xapian::Database &reader = database->reader;
        cx_stats stats{};
        stats.documents = reader.get_doccount();
        stats.public_count = reader.get_termfreq(cx::prefix::mode + "public");
        stats.private_count = reader.get_termfreq(cx::prefix::mode + "private");
        const std::string now_key = Xapian::sortable_serialise(static_cast<double>(now_ms));
        for (auto it = reader.valuestream_begin(cx::slot::expiration); it != reader.valuestream_end(cx::slot::expiration);
             ++it) {
            if (*it <= now_key) ++stats.expired_count;
        }
        *out_stats = stats;
    });
}

cx_status cx_database_domains(cx_database *database, char **out_lines, size_t *out_length, char **out_error) {
    *out_lines = nullptr;
    *out_length = 0;
    if (cx_status status = require_open(database, out_error)) return status;
    std::string lines;
    cx_status status = with_retries(database, out_error, [&] {
        Xapian::Database &reader = database->reader;
        lines.clear();
        for (auto it = reader.allterms_begin(cx::prefix::domain); it != reader.allterms_end(cx::prefix::domain); ++it) {
            lines += (*it).substr(cx::prefix::domain.size());
            lines += '\t';
            lines += std::to_string(it.get_termfreq());
            lines += '\n';
        }
    });
    if (status != CX_OK) return status;
    try {
        *out_lines = cx::copy_bytes(lines);
        *out_length = lines.size();
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

cx_status cx_cursor_open(cx_database *database, cx_cursor **out, char **out_error) {
    *out = nullptr;
    if (cx_status status = require_open(database, out_error)) return status;
    try {
        auto cursor = std::make_unique<cx_cursor>();
        cursor->reader = database->reader;
        // The empty term's posting list holds every document.
        cursor->position = cursor->reader.postlist_begin("");
        cursor->end = cursor->reader.postlist_end("");
        *out = cursor.release();
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

cx_status cx_cursor_next(cx_cursor *cursor, cx_text *out_data, int64_t *out_expiration_ms, bool *out_done,
                         char **out_error) {
    if (cursor == nullptr) return cx::fail(CX_ERR_INVALID_ARGUMENT, "no cursor", out_error);
    try {
        if (cursor->started && cursor->position != cursor->end) ++cursor->position;
        cursor->started = true;
        *out_done = cursor->position == cursor->end;
        if (*out_done) {
            *out_data = {nullptr, 0};
            *out_expiration_ms = 0;
            return CX_OK;
        }
        Xapian::Document document = cursor->reader.get_document(*cursor->position);
        cursor->data = document.get_data();
        double expiration = cx::document_expiration(document);
        *out_expiration_ms = expiration >= cx::never_ms ? 0 : static_cast<int64_t>(expiration);
        *out_data = {cursor->data.data(), cursor->data.size()};
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

void cx_cursor_free(cx_cursor *cursor) { delete cursor; }

}  // extern "C"
