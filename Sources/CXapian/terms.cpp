// The terms one word or phrase of a query stands for, as the indexer made them.

#include <algorithm>
#include <set>

#include "internal.hpp"

namespace cx {

namespace {

using Query = Xapian::Query;
using Parser = Xapian::QueryParser;

/// The prefixes of the terms a free-text query field's words are, in an index of `layout`: in
/// one term space (formats 6 and 7), every field's words are unprefixed; in formats 2 to 5, each
/// field has its own.
std::vector<std::string> word_prefixes(Layout layout, cx_field field) {
    if (is_one_term_space(layout)) return {prefix::text};
    switch (field) {
        case CX_FIELD_TITLE:
            return {prefix::text};
        case CX_FIELD_DESCRIPTION:
            return {prefix::description};
        default:
            return {prefix::text, prefix::keyword_text, prefix::description};
    }
}

/// The boolean terms that say a word is in `field` (`LeafTerms::field_filter`).
const FieldFilter *field_filter_of(Layout layout, cx_field field) {
    if (!is_one_term_space(layout)) return nullptr;
    switch (field) {
        case CX_FIELD_TITLE:
            return field_filter(Field::title, layout);
        case CX_FIELD_DESCRIPTION:
            return field_filter(Field::description, layout);
        default:
            return nullptr;
    }
}

/// In formats 2 to 5, scores each field's match separately. The query parser joins a word's field variants (title,
/// keywords, description) with OP_SYNONYM, which weighs them as one term and must visit every
/// document that has the word; OP_OR matches the same documents, weighs each field on its own (a
/// title match, being rarer, counts more), and lets Xapian skip documents that cannot reach the
/// page: a common word takes a third of the time. A synonym of as-you-type expansions stays one
/// (weighing each of hundreds of expansions costs more than it saves), and operators with
/// parameters (phrases, wildcards, value ranges) are kept as they are.
Query score_fields_separately(const Query &query) {
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
    if (leaf.kind == CX_NODE_PARTIAL && is_plain_word(folded) && is_short_partial(leaf, folded)) {
        // The most frequent words it begins, expanded by the matcher, or the word itself.
        std::vector<Query> fields;
        for (const std::string &prefix : word_prefixes(layout_, leaf.field))
            fields.emplace_back(Query::OP_WILDCARD, prefix + folded, short_expansion_limit,
                                Query::WILDCARD_LIMIT_MOST_FREQUENT);
        return with_whole_word(leaf, Query(Query::OP_OR, fields.begin(), fields.end()));
    }
    if (leaf.kind == CX_NODE_PARTIAL && is_plain_word(folded)) {
        // The words it begins, expanded by the matcher, or the word itself (Xapian's own
        // partial word would weigh both).
        const unsigned flags = flags_for(CX_NODE_PREFIX, folded);
        return with_whole_word(leaf, score_fields_separately(parser(leaf.field).parse_query(folded, flags)));
    }
    const unsigned flags = flags_for(leaf.kind, folded);
    return score_fields_separately(parser(leaf.field).parse_query(folded, flags));
}

const FieldFilter *LeafTerms::field_filter(cx_field field) const { return field_filter_of(layout_, field); }

Query LeafTerms::in_field(const cx_query_node &leaf, const FieldFilter &filter) {
    std::string folded = fold_lower(str(leaf.text));
    if ((leaf.kind == CX_NODE_PREFIX || leaf.kind == CX_NODE_PARTIAL) && is_plain_word(folded))
        return filter_beginning(filter, folded);
    const unsigned flags = flags_for(leaf.kind == CX_NODE_PHRASE ? CX_NODE_WORD : leaf.kind, folded);
    return filter_parser(leaf.field).parse_query(folded, flags);
}

Query LeafTerms::in_description(const cx_query_node &leaf, const Query &query) {
    std::string folded = fold_lower(fold_accents(str(leaf.text)));
    std::set<std::string> matches;
    if ((leaf.kind == CX_NODE_PREFIX || leaf.kind == CX_NODE_PARTIAL) && is_plain_word(folded)) {
        for (auto it = database_.allterms_begin(folded); it != database_.allterms_end(folded); ++it)
            matches.insert(match_term_of(*it));
        // The as-you-type word also matches as a whole word, stemmed (`kettles`, `kettle`).
        if (leaf.kind == CX_NODE_PARTIAL) matches.insert(match_term_of(folded));
        if (matches.empty()) return Query::MatchNothing;
        std::vector<Query> described;
        for (const std::string &match : matches)
            described.emplace_back(Query::OP_AND_NOT, Query(match), Query(prefix::elsewhere + match));
        return Query(Query::OP_FILTER, query, Query(Query::OP_OR, described.begin(), described.end()));
    }
    // The words as a plain search reads them: a lower-cased word is stemmed, as the index's are.
    const unsigned flags = flags_for(leaf.kind == CX_NODE_PHRASE ? CX_NODE_WORD : leaf.kind, folded);
    const Query words = parser(leaf.field).parse_query(folded, flags);
    for (auto it = words.get_unique_terms_begin(); it != words.get_unique_terms_end(); ++it)
        matches.insert(is_match_term(*it) ? *it : match_term_of(*it));
    std::vector<Query> elsewhere;
    for (const std::string &match : matches) elsewhere.emplace_back(prefix::elsewhere + match);
    if (elsewhere.empty()) return query;
    return Query(Query::OP_AND_NOT, query, Query(Query::OP_OR, elsewhere.begin(), elsewhere.end()));
}

std::unique_ptr<Parser> LeafTerms::make_parser(const std::vector<std::string> &prefixes) const {
    auto parser = std::make_unique<Parser>();
    parser->set_database(database_);
    parser->set_stemmer(Xapian::Stem("english"));
    parser->set_stemming_strategy(Parser::STEM_SOME);
    parser->set_default_op(Query::OP_AND);
    for (const std::string &prefix : prefixes) parser->add_prefix("", prefix);
    // `word*` and the as-you-type word expand to the most frequent matching terms rather
    // than failing.
    parser->set_max_expansion(expansion_limit, Query::WILDCARD_LIMIT_MOST_FREQUENT,
                              Parser::FLAG_WILDCARD | Parser::FLAG_PARTIAL);
    return parser;
}

Parser &LeafTerms::parser(cx_field field) {
    std::unique_ptr<Parser> &made = parsers_[slot(field)];
    if (!made) made = make_parser(word_prefixes(layout_, field));
    return *made;
}

Parser &LeafTerms::filter_parser(cx_field field) {
    std::unique_ptr<Parser> &made = filter_parsers_[slot(field)];
    if (!made) {
        const FieldFilter &filter = *field_filter_of(layout_, field);
        // Stems are `XCrun`, or, as the first format 6 release wrote them, `ZXCrun`: a field
        // of two prefixes reads either.
        made = filter.stems_only ? make_parser({filter.prefix, "Z" + filter.prefix})
                                 : make_parser({filter.prefix});
        if (filter.stems_only) made->set_stemming_strategy(Parser::STEM_ALL);
    }
    return *made;
}

Query LeafTerms::filter_beginning(const FieldFilter &filter, const std::string &word) const {
    if (!filter.stems_only) return Query(Query::OP_WILDCARD, filter.prefix + word);
    std::set<std::string> stems;
    for (auto it = database_.allterms_begin(word); it != database_.allterms_end(word); ++it) {
        if (const std::string stem = filter_stem(*it); !stem.empty()) {
            stems.insert(filter.prefix + stem);
            stems.insert("Z" + filter.prefix + stem);
        }
    }
    return stems.empty() ? Query::MatchNothing : Query(Query::OP_OR, stems.begin(), stems.end());
}

Query LeafTerms::beginnings(const cx_query_node &leaf) {
    if (leaf.kind != CX_NODE_PREFIX && leaf.kind != CX_NODE_PARTIAL) return Query();
    const std::string word = fold_lower(str(leaf.text));
    if (!is_one_term_space(layout_) || !is_indexed_beginning(word)) return Query();
    return with_whole_word(leaf, Query(prefix::beginning + word));
}

Query LeafTerms::with_whole_word(const cx_query_node &leaf, const Query &query) {
    if (leaf.kind != CX_NODE_PARTIAL) return query;
    const std::string folded = fold_lower(str(leaf.text));
    const Query whole =
        score_fields_separately(parser(leaf.field).parse_query(folded, Parser::FLAG_CJK_NGRAM));
    const bool short_word = is_short_partial(leaf, folded);
    if (whole.empty()) return short_word ? Query(Query::OP_SCALE_WEIGHT, query, 0.0) : query;
    return Query(Query::OP_OR, whole, Query(Query::OP_SCALE_WEIGHT, query, short_word ? 0.0 : beginning_weight));
}

Query LeafTerms::expansion(const cx_query_node &leaf) {
    if (!expand_here_ || (leaf.kind != CX_NODE_PREFIX && leaf.kind != CX_NODE_PARTIAL)) return Query();
    const std::string word = fold_lower(str(leaf.text));
    if (!is_plain_word(word)) return Query();
    std::vector<Query> fields;
    for (const std::string &prefix : word_prefixes(layout_, leaf.field)) {
        const std::string begun = prefix + word;
        std::vector<std::pair<Xapian::doccount, std::string>> words;
        for (auto it = database_.allterms_begin(begun); it != database_.allterms_end(begun); ++it)
            words.emplace_back(it.get_termfreq(), *it);
        const size_t kept = std::min(words.size(), is_short_partial(leaf, word) ? short_expansion_limit : expansion_limit);
        std::partial_sort(words.begin(), words.begin() + kept, words.end(), [](const auto &a, const auto &b) {
            return a.first != b.first ? a.first > b.first : a.second < b.second;
        });
        std::vector<Query> terms;
        for (size_t i = 0; i < kept; ++i) terms.emplace_back(words[i].second);
        // OR, not SYNONYM: Xapian estimates a synonym's frequency in each shard from the words
        // that shard holds, so its weight would differ from shard to shard.
        if (!terms.empty()) fields.emplace_back(Query::OP_OR, terms.begin(), terms.end());
    }
    return with_whole_word(leaf, fields.empty() ? Query::MatchNothing : Query(Query::OP_OR, fields.begin(), fields.end()));
}

unsigned LeafTerms::flags_for(cx_node_kind kind, std::string &text) {
    unsigned flags = Parser::FLAG_CJK_NGRAM;
    switch (kind) {
        case CX_NODE_PREFIX:
            flags |= Parser::FLAG_WILDCARD;
            text += '*';
            break;
        case CX_NODE_PARTIAL:
            flags |= Parser::FLAG_PARTIAL;
            break;
        case CX_NODE_PHRASE:
            flags |= Parser::FLAG_PHRASE;
            text = '"' + text + '"';
            break;
        default:
            break;
    }
    return flags;
}

}  // namespace cx
