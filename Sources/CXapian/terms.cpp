// The terms one word or phrase of a query stands for, as the indexer made them.

#include "terms.hpp"

#include <algorithm>
#include <set>

#include "errors.hpp"
#include "fan_out.hpp"
#include "language.hpp"
#include "schema.hpp"
#include "text.hpp"

namespace cx {

namespace {

using Query = Xapian::Query;
using Parser = Xapian::QueryParser;

/// A word's forms scored one by one: where the query parser joins a word's forms with OP_SYNONYM,
/// which weighs them as one term and must visit every document that has one, OP_OR matches the
/// same documents and lets Xapian skip documents that cannot reach the page. A synonym of other
/// than terms stays one, and operators with parameters (phrases, value ranges) are kept as they
/// are.
Query score_forms_separately(const Query &query) {
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
        subqueries.push_back(score_forms_separately(query.get_subquery(i)));
        only_terms = only_terms && subqueries.back().get_type() == Query::LEAF_TERM;
    }
    return Query(type == Query::OP_SYNONYM && only_terms ? Query::OP_OR : type, subqueries.begin(), subqueries.end());
}

/// What the words an as-you-type word begins weigh beside the word itself (`with_whole_word`).
constexpr double beginning_weight = 0.1;

/// How many words a prefix expands to in each field: the most frequent.
constexpr size_t expansion_limit = 100;

/// How many words an as-you-type word of one or two letters stands for, beside itself: the most
/// frequent ten, which narrow the results without weight (`is_short_partial`).
constexpr size_t short_expansion_limit = 10;

/// Whether `leaf` is the as-you-type word and `word` (its folded text) is one or two characters
/// long: it has no indexed beginnings, and every candidate of the rest of the query is checked
/// against each word it expands to. Weighing the hundred words a letter begins took 30 to 140 ms
/// a keystroke at 200,000 items; ten, unweighted, take a few.
bool is_short_partial(const cx_query_node &leaf, const std::string &word) {
    if (leaf.kind != CX_NODE_PARTIAL) return false;
    Xapian::Utf8Iterator it(word);
    for (size_t characters = 0; it != Xapian::Utf8Iterator(); ++it) {
        if (++characters > 2) return false;
    }
    return true;
}

}  // namespace

Query LeafTerms::words(const cx_query_node &leaf) {
    Query query = beginnings(leaf);
    if (query.empty()) query = expansion(leaf);
    if (!query.empty()) return query;
    // Lower-cased before Xapian's parser reads it: the parser leaves a capitalised word
    // unstemmed (its proper-noun rule), while the indexer stems every word, so `Concurrency`
    // would find only the items with that very word and `concurrency` those with `concurrent`.
    std::string folded = fold_lower(str(leaf.text));
    const unsigned flags = flags_for(leaf.kind, folded);
    return parse(folded, flags);
}

const FieldFilter *LeafTerms::field_filter(cx_field field) const {
    return field == CX_FIELD_TITLE ? cx::field_filter(Field::title) : nullptr;
}

Query LeafTerms::in_field(const cx_query_node &leaf, const FieldFilter &filter) {
    std::string folded = fold_lower(str(leaf.text));
    if ((leaf.kind == CX_NODE_PREFIX || leaf.kind == CX_NODE_PARTIAL) && is_one_word(folded))
        return filter_beginning(filter, folded);
    const unsigned flags = flags_for(leaf.kind == CX_NODE_PHRASE ? CX_NODE_WORD : leaf.kind, folded);
    return parse(folded, flags, filter.prefix == cx::field_filter(Field::title)->prefix);
}

Query LeafTerms::in_description(const cx_query_node &leaf, const Query &query) {
    std::string folded = fold_lower(fold_accents(str(leaf.text)));
    std::set<std::string> matches;
    if ((leaf.kind == CX_NODE_PREFIX || leaf.kind == CX_NODE_PARTIAL) && is_one_word(folded)) {
        for (const std::string &language : languages_) {
            const Xapian::Stem &stemmer = stemmer_for(language);
            each_term(view_, folded,
                      [&](const std::string &term, Xapian::doccount) { matches.insert(match_term_of(term, stemmer)); });
            // The as-you-type word also matches as a whole word, stemmed (`kettles`, `kettle`).
            if (leaf.kind == CX_NODE_PARTIAL) matches.insert(match_term_of(folded, stemmer));
        }
        if (matches.empty()) return Query::MatchNothing;
        std::vector<Query> described;
        for (const std::string &match : matches)
            described.emplace_back(Query::OP_AND_NOT, Query(match), Query(prefix::elsewhere + match));
        return Query(Query::OP_FILTER, query, Query(Query::OP_OR, described.begin(), described.end()));
    }
    // The words as a plain search reads them: a lower-cased word is stemmed, as the index's are.
    const unsigned flags = flags_for(leaf.kind == CX_NODE_PHRASE ? CX_NODE_WORD : leaf.kind, folded);
    const Query words = parse(folded, flags);
    for (auto it = words.get_unique_terms_begin(); it != words.get_unique_terms_end(); ++it) {
        if (is_match_term(*it)) {
            matches.insert(*it);
            continue;
        }
        for (const std::string &language : languages_) matches.insert(match_term_of(*it, stemmer_for(language)));
    }
    std::vector<Query> elsewhere;
    for (const std::string &match : matches) elsewhere.emplace_back(prefix::elsewhere + match);
    if (elsewhere.empty()) return query;
    return Query(Query::OP_AND_NOT, query, Query(Query::OP_OR, elsewhere.begin(), elsewhere.end()));
}

std::unique_ptr<Parser> LeafTerms::make_parser(const std::string &prefix, const std::string &language) const {
    auto parser = std::make_unique<Parser>();
    parser->set_database(database_);
    parser->set_stemmer(stemmer_for(language));
    parser->set_stemming_strategy(Parser::STEM_SOME);
    parser->set_default_op(Query::OP_AND);
    parser->add_prefix("", prefix);
    return parser;
}

Query LeafTerms::parse(const std::string &text, unsigned flags, bool title) {
    std::vector<std::unique_ptr<Parser>> &parsers = title ? title_parsers_ : parsers_;
    if (parsers.empty()) {
        for (const std::string &language : languages_)
            parsers.push_back(make_parser(title ? cx::field_filter(Field::title)->prefix : prefix::text, language));
    }
    // Each language's reading once: most words read alike in every language.
    std::vector<Query> readings;
    std::vector<std::set<std::string>> seen;
    // The languages (stemmings) that read each reading so.
    std::vector<std::vector<std::string>> readers;
    for (size_t i = 0; i < parsers.size(); ++i) {
        Query reading = score_forms_separately(parsers[i]->parse_query(text, flags));
        std::set<std::string> terms(reading.get_unique_terms_begin(), reading.get_unique_terms_end());
        if (const auto found = std::find(seen.begin(), seen.end(), terms); found != seen.end()) {
            readers[size_t(found - seen.begin())].push_back(languages_[i]);
            continue;
        }
        seen.push_back(std::move(terms));
        readings.push_back(std::move(reading));
        readers.push_back({languages_[i]});
    }
    if (readings.size() == 1) return readings.front();
    // A form no item of the languages that read the word so holds matches nothing it should (at
    // most another language's word of the same form: `held_in_stemming`), and would count as one
    // more part of the query, lowering every result's percentage. A word no language holds (a
    // typo) is read in the first language alone.
    std::vector<bool> unheld(readings.size());
    for (size_t i = 0; i < readings.size(); ++i) {
        if (readings[i].get_type() != Query::LEAF_TERM) continue;
        const std::string form = *readings[i].get_terms_begin();
        unheld[i] = std::none_of(readers[i].begin(), readers[i].end(), [&](const std::string &stemming) {
            return held(form, stemming);
        });
    }
    if (!std::all_of(unheld.begin(), unheld.end(), [](bool is) { return is; })) {
        std::vector<Query> held;
        for (size_t i = 0; i < readings.size(); ++i)
            if (!unheld[i]) held.push_back(std::move(readings[i]));
        readings = std::move(held);
    } else {
        readings.resize(1);
    }
    if (readings.size() == 1) return readings.front();
    const bool words = std::all_of(readings.begin(), readings.end(),
                                   [](const Query &reading) { return reading.get_type() == Query::LEAF_TERM; });
    return Query(words ? Query::OP_SYNONYM : Query::OP_OR, readings.begin(), readings.end());
}

Query LeafTerms::filter_beginning(const FieldFilter &filter, const std::string &word) const {
    const std::string begun = filter.prefix + word;
    std::vector<Query> terms;
    each_term(view_, begun, [&](const std::string &term, Xapian::doccount) { terms.emplace_back(term); });
    return terms.empty() ? Query::MatchNothing : Query(Query::OP_OR, terms.begin(), terms.end());
}

Query LeafTerms::beginnings(const cx_query_node &leaf) {
    if (leaf.kind != CX_NODE_PREFIX && leaf.kind != CX_NODE_PARTIAL) return Query();
    const std::string word = fold_lower(str(leaf.text));
    if (!is_indexed_beginning(word)) return Query();
    return with_whole_word(leaf, Query(prefix::beginning + word));
}

Query LeafTerms::with_whole_word(const cx_query_node &leaf, const Query &query) {
    if (leaf.kind != CX_NODE_PARTIAL) return query;
    const std::string folded = fold_lower(str(leaf.text));
    const Query whole = parse(folded, Parser::FLAG_CJK_NGRAM);
    const bool short_word = is_short_partial(leaf, folded);
    if (whole.empty()) return short_word ? factors_.scaled(database_, query, 0.0) : query;
    return Query(Query::OP_OR, whole, factors_.scaled(database_, query, short_word ? 0.0 : beginning_weight));
}

Query LeafTerms::expansion(const cx_query_node &leaf) {
    if (leaf.kind != CX_NODE_PREFIX && leaf.kind != CX_NODE_PARTIAL) return Query();
    const std::string word = fold_lower(str(leaf.text));
    if (!is_one_word(word)) return Query();
    const std::string begun = prefix::text + word;
    std::vector<std::pair<Xapian::doccount, std::string>> words;
    each_term(view_, begun,
              [&](const std::string &term, Xapian::doccount frequency) { words.emplace_back(frequency, term); });
    const size_t kept = std::min(words.size(), is_short_partial(leaf, word) ? short_expansion_limit : expansion_limit);
    std::partial_sort(words.begin(), words.begin() + kept, words.end(), [](const auto &a, const auto &b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    std::vector<Query> terms;
    for (size_t i = 0; i < kept; ++i) terms.emplace_back(words[i].second);
    if (terms.empty()) return with_whole_word(leaf, Query::MatchNothing);
    const Query any(Query::OP_OR, terms.begin(), terms.end());
    // Alone in its query, a longer prefix weighs as its indexed beginning (its first characters),
    // among the items that hold one of its words: one term, whose impact tier bounds it, so that
    // the tiers can prove its page (each of the words weighed on its own would add up the bounds
    // of every frequent one; a synonym of the words is not bounded, and Xapian weighs it by a
    // frequency each shard estimates from the words it holds). The words match and weigh nothing,
    // the beginning weighs (AND_MAYBE): a count, which weighs nothing, reads the words' lists
    // alone. Beside other words the tiers do not prove a page (none of the benchmark's two-word
    // searches), and the beginning's list, read at every item the other words select, is longer
    // than all of the words' lists (at 1,000,000 items, `clar` is in 287,000 items, the words
    // beginning `clark` in 281,000; the search `vanfond clark` ran a fifth fewer instructions
    // without it): each word weighs as itself, as Xapian's own wildcard weighs them, by its
    // frequency in the whole index.
    if (const std::string head = is_plain_word(word) ? longest_beginning_term(word) : std::string();
        one_word_ && !head.empty() && !is_short_partial(leaf, word))
        return with_whole_word(leaf, Query(Query::OP_AND_MAYBE, factors_.scaled(database_, any, 0.0), Query(head)));
    return with_whole_word(leaf, any);
}

unsigned LeafTerms::flags_for(cx_node_kind kind, std::string &text) {
    // A prefix or an as-you-type word reaches the parser only when it is not one word (`e-mail`,
    // Chinese): it is read as the words the parser splits it into (`expansion` expands one word).
    if (kind != CX_NODE_PHRASE) return Parser::FLAG_CJK_NGRAM;
    text = '"' + text + '"';
    return Parser::FLAG_CJK_NGRAM | Parser::FLAG_PHRASE;
}

bool LeafTerms::is_one_word(const std::string &folded) {
    if (is_plain_word(folded)) return true;
    // One word, though its languages may read it as several forms.
    const Query read = parse(folded, Parser::FLAG_CJK_NGRAM);
    if (read.get_type() == Query::LEAF_TERM) return true;
    if (read.get_type() != Query::OP_SYNONYM) return false;
    for (size_t i = 0; i < read.get_num_subqueries(); ++i)
        if (read.get_subquery(i).get_type() != Query::LEAF_TERM) return false;
    return true;
}

}  // namespace cx
