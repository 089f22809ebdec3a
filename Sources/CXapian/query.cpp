// Building a Xapian query from the Kit's query tree.
//
// The Kit parses the query language (operators, fields, phrases, exclusions, the as-you-type last
// word) once. Here each piece of text only becomes terms, the way the indexer's TermGenerator made
// them: Xapian's QueryParser is asked about one word or one phrase at a time, with no operator
// flags, so nothing of the language is parsed twice.

#include <algorithm>

#include "internal.hpp"

namespace cx {

namespace {

using Query = Xapian::Query;
using Parser = Xapian::QueryParser;

/// The fields a free-text query field searches.
std::vector<TextTerm::Field> text_fields(cx_field field) {
    switch (field) {
        case CX_FIELD_TITLE:
            return {TextTerm::title};
        case CX_FIELD_DESCRIPTION:
            return {TextTerm::description};
        default:
            return {TextTerm::title, TextTerm::keyword, TextTerm::description};
    }
}

bool is_text_field(cx_field field) {
    return field == CX_FIELD_ANY || field == CX_FIELD_TITLE || field == CX_FIELD_DESCRIPTION;
}

/// Scores each field's match separately. The query parser joins a word's field variants (title,
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

/// The OR of `queries`, with the subqueries of those that are ORs themselves taken in directly:
/// the same matches and weights, and Xapian 1.4's matcher takes time quadratic in the number of
/// ORs nested in an OR (4,000 words of three fields each: 1.8 s nested, 0.05 s flat).
Query flat_or(const std::vector<Query> &queries) {
    std::vector<Query> flat;
    flat.reserve(queries.size());
    for (const Query &query : queries) {
        if (query.get_type() != Query::OP_OR) {
            flat.push_back(query);
            continue;
        }
        for (size_t i = 0; i < query.get_num_subqueries(); ++i) flat.push_back(query.get_subquery(i));
    }
    return Query(Query::OP_OR, flat.begin(), flat.end());
}

/// True for a query that matches nothing because its text held no word (punctuation alone).
bool is_empty(const Query &query) { return query.empty(); }

/// How many words a prefix expands to in each field: the most frequent.
constexpr size_t expansion_limit = 100;

class Builder {
  public:
    Builder(const Xapian::Database &database, const cx_query_node *nodes, size_t count, bool expand_here,
            std::shared_ptr<const CommonWords> common)
        : database_(database), nodes_(nodes), count_(count), expand_here_(expand_here), common_(std::move(common)) {
        if (!common_) common_ = std::make_shared<const CommonWords>();
    }

    BuiltQuery build() {
        BuiltQuery built;
        built.matches_everything = count_ == 1 && nodes_[0].kind == CX_NODE_ALL;
        built.query = node(true);
        if (position_ != count_) throw Xapian::InvalidArgumentError("the query tree has nodes past its root");
        built.highlighter = std::move(highlighter_);
        built.spellable = std::move(spellable_);
        return built;
    }

  private:
    const Xapian::Database &database_;
    const cx_query_node *nodes_;
    size_t count_;
    bool expand_here_;
    size_t position_ = 0;
    Highlighter highlighter_;
    std::vector<BuiltQuery::Spellable> spellable_;
    std::unique_ptr<Parser> parsers_[3];
    int has_beginnings_ = -1;
    /// The common words whose pairs phrases read (none chosen when pairs are not read).
    std::shared_ptr<const CommonWords> common_;
    int has_marked_ = -1;

    /// The parser for a free-text field, made on first use.
    Parser &parser(cx_field field) {
        const int slot = field == CX_FIELD_TITLE ? 1 : field == CX_FIELD_DESCRIPTION ? 2 : 0;
        if (!parsers_[slot]) {
            auto parser = std::make_unique<Parser>();
            parser->set_database(database_);
            parser->set_stemmer(Xapian::Stem("english"));
            parser->set_stemming_strategy(Parser::STEM_SOME);
            parser->set_default_op(Query::OP_AND);
            for (TextTerm::Field searched : text_fields(field)) parser->add_prefix("", text_field(searched).words);
            // `word*` and the as-you-type word expand to the most frequent matching terms rather
            // than failing.
            parser->set_max_expansion(expansion_limit, Query::WILDCARD_LIMIT_MOST_FREQUENT,
                                      Parser::FLAG_WILDCARD | Parser::FLAG_PARTIAL);
            parsers_[slot] = std::move(parser);
        }
        return *parsers_[slot];
    }

    /// Whether every item of the index has its words' beginnings (format 3 or later), asked on first use.
    bool has_beginnings() {
        if (has_beginnings_ < 0) has_beginnings_ = cx::has_beginnings(database_.get_metadata(format_key)) ? 1 : 0;
        return has_beginnings_ == 1;
    }

    /// An as-you-type or `word*` word as its beginning terms, one per field searched and scored
    /// separately, when the index holds them for it; an empty query when it does not.
    Query beginnings(const cx_query_node &leaf) {
        if (leaf.kind != CX_NODE_PREFIX && leaf.kind != CX_NODE_PARTIAL) return Query();
        const std::string word = fold_lower(str(leaf.text));
        if (!is_indexed_beginning(word) || !has_beginnings()) return Query();
        std::vector<Query> fields;
        for (TextTerm::Field field : text_fields(leaf.field)) fields.emplace_back(text_field(field).beginnings + word);
        return with_whole_word(leaf, Query(Query::OP_OR, fields.begin(), fields.end()));
    }

    /// As Xapian's own as-you-type expansion does, the word typed so far also matches as a whole
    /// word, stemmed.
    Query with_whole_word(const cx_query_node &leaf, const Query &query) {
        if (leaf.kind != CX_NODE_PARTIAL) return query;
        const std::string folded = fold_accents(str(leaf.text));
        return Query(Query::OP_OR, query,
                     score_fields_separately(parser(leaf.field).parse_query(folded, Parser::FLAG_CJK_NGRAM)));
    }

    /// An as-you-type or `word*` word as the most frequent words it begins in each field searched,
    /// counted over the whole database, as Xapian's expansion picks them, each weighed as a word
    /// of its own (`expand_here`); an empty query when it is not one plain word.
    Query expansion(const cx_query_node &leaf) {
        if (!expand_here_ || (leaf.kind != CX_NODE_PREFIX && leaf.kind != CX_NODE_PARTIAL)) return Query();
        const std::string word = fold_lower(str(leaf.text));
        if (!is_plain_word(word)) return Query();
        std::vector<Query> fields;
        for (TextTerm::Field field : text_fields(leaf.field)) {
            const std::string begun = text_field(field).words + word;
            std::vector<std::pair<Xapian::doccount, std::string>> words;
            for (auto it = database_.allterms_begin(begun); it != database_.allterms_end(begun); ++it)
                words.emplace_back(it.get_termfreq(), *it);
            const size_t kept = std::min(words.size(), expansion_limit);
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

    /// Whether some item of the index was written before it chose its common words, asked once.
    bool has_marked() {
        if (has_marked_ < 0) has_marked_ = database_.get_termfreq(prefix::no_pairs) > 0 ? 1 : 0;
        return has_marked_ == 1;
    }

    /// A phrase whose words are common (or the OR of a phrase's field variants) filtered by the
    /// pair terms of its common words next to each other, or by the mark of an item written before
    /// the index chose its common words: every item with the phrase has one or the other, so the
    /// phrase matches and weighs what it does alone (a filter weighs nothing), and Xapian checks
    /// its positions only in the filter's items (none at all for two words, when no item is
    /// marked). Only a QueryParser phrase of terms, whose window is its length (the words next to
    /// each other), is rewritten.
    Query with_pairs(const Query &query) {
        if (query.get_type() == Query::OP_OR) {
            std::vector<Query> subqueries;
            for (size_t i = 0; i < query.get_num_subqueries(); ++i) subqueries.push_back(with_pairs(query.get_subquery(i)));
            return Query(Query::OP_OR, subqueries.begin(), subqueries.end());
        }
        if (query.get_type() != Query::OP_PHRASE) return query;
        std::vector<std::string> terms;
        for (size_t i = 0; i < query.get_num_subqueries(); ++i) {
            const Query word = query.get_subquery(i);
            if (word.get_type() != Query::LEAF_TERM) return query;
            terms.push_back(*word.get_terms_begin());
        }
        std::vector<Query> pairs;
        for (size_t i = 0; i + 1 < terms.size(); ++i) {
            if (common_->terms.count(terms[i]) != 0 && common_->terms.count(terms[i + 1]) != 0)
                pairs.emplace_back(pair_term(terms[i], terms[i + 1]));
        }
        if (pairs.empty()) return query;
        // Two words next to each other are exactly their pair: where every item has its pairs, the
        // pair's items are the phrase's, weighed by its words, and no position is checked.
        if (terms.size() == 2 && !has_marked()) {
            return Query(Query::OP_FILTER, Query(Query::OP_AND, query.get_subquery(0), query.get_subquery(1)),
                         pairs.front());
        }
        // The phrase once: Xapian's percentages count the query's weighed terms, and a second copy
        // for the marked items would lower them.
        const Query paired(Query::OP_AND, pairs.begin(), pairs.end());
        return Query(Query::OP_FILTER, query, Query(Query::OP_OR, paired, Query(prefix::no_pairs)));
    }

    /// The terms of one word or phrase, as the indexer made them, fields scored separately.
    Query text(const cx_query_node &leaf, bool positive) {
        Query query = beginnings(leaf);
        if (query.empty()) query = expansion(leaf);
        if (!query.empty()) {
            if (positive) remember(leaf, query);
            return query;
        }
        std::string folded = fold_accents(str(leaf.text));
        unsigned flags = Parser::FLAG_CJK_NGRAM;
        switch (leaf.kind) {
            case CX_NODE_PREFIX:
                flags |= Parser::FLAG_WILDCARD;
                folded += '*';
                break;
            case CX_NODE_PARTIAL:
                flags |= Parser::FLAG_PARTIAL;
                break;
            case CX_NODE_PHRASE:
                flags |= Parser::FLAG_PHRASE;
                folded = '"' + folded + '"';
                break;
            default:
                break;
        }
        query = score_fields_separately(parser(leaf.field).parse_query(folded, flags));
        if (positive) remember(leaf, query);
        return leaf.kind == CX_NODE_PHRASE ? with_pairs(query) : query;
    }

    /// What a result's snippet highlights, and which words may be corrected.
    void remember(const cx_query_node &leaf, const Query &query) {
        for (auto it = query.get_unique_terms_begin(); it != query.get_unique_terms_end(); ++it) {
            TextTerm term = text_term(*it);
            // A keyword's words are not in descriptions.
            if (term.field != TextTerm::title && term.field != TextTerm::description) continue;
            (term.stemmed ? highlighter_.stems : highlighter_.words).push_back(std::move(term.word));
        }
        const std::string word = fold_lower(str(leaf.text));
        if (leaf.kind == CX_NODE_PREFIX || leaf.kind == CX_NODE_PARTIAL) highlighter_.prefixes.push_back(word);
        if (leaf.kind == CX_NODE_WORD || leaf.kind == CX_NODE_PARTIAL)
            spellable_.push_back({static_cast<uint32_t>(&leaf - nodes_), word, query});
    }

    /// An exact filter's term. Filters select; they never add weight.
    Query filter(const cx_query_node &leaf) {
        const std::string value = str(leaf.text);
        switch (leaf.field) {
            case CX_FIELD_KEYWORD:
                return Query(keyword_term(value));
            case CX_FIELD_ID:
                return Query(bounded_term(prefix::identifier, value));
            case CX_FIELD_SCHEMA:
                return Query(schema_term(value));
            case CX_FIELD_DOMAIN:
                return Query(bounded_term(prefix::domain, value));
            case CX_FIELD_MODE: {
                const std::string mode = fold_lower(value);
                if (mode != "public" && mode != "private")
                    throw Xapian::InvalidArgumentError("mode: takes public or private, not '" + value + "'");
                return Query(prefix::mode + mode);
            }
            default:
                throw Xapian::InvalidArgumentError("a filter node needs a filter field");
        }
    }

    /// Builds the subtree at the current position. `positive` is false under an exclusion.
    Query node(bool positive) {
        if (position_ >= count_) throw Xapian::InvalidArgumentError("the query tree ends inside a node");
        const cx_query_node &current = nodes_[position_++];
        switch (current.kind) {
            case CX_NODE_ALL:
                // Query::MatchAll itself would be one object shared by every query built, and the
                // parts of a split search match theirs on threads of their own (parts.cpp).
                return Query(std::string());
            case CX_NODE_WORD:
            case CX_NODE_PREFIX:
            case CX_NODE_PARTIAL:
            case CX_NODE_PHRASE:
                if (!is_text_field(current.field))
                    throw Xapian::InvalidArgumentError("a text node needs the any, title or description field");
                return text(current, positive);
            case CX_NODE_FILTER:
                return Query(Query::OP_SCALE_WEIGHT, filter(current), 0.0);
            case CX_NODE_AND:
            case CX_NODE_OR:
            case CX_NODE_XOR:
            case CX_NODE_AND_NOT:
                return group(current, positive);
        }
        throw Xapian::InvalidArgumentError("unknown query node kind");
    }

    Query group(const cx_query_node &current, bool positive) {
        if (current.kind == CX_NODE_AND_NOT) {
            if (current.child_count == 0) throw Xapian::InvalidArgumentError("an exclusion without children");
            Query kept = node(positive);
            std::vector<Query> excluded;
            for (uint32_t i = 1; i < current.child_count; ++i) {
                Query child = node(!positive);
                if (!is_empty(child)) excluded.push_back(child);
            }
            if (excluded.empty()) return kept;
            return Query(Query::OP_AND_NOT, kept, flat_or(excluded));
        }
        // A child whose text held no word (punctuation) neither matches nor blocks; with no child
        // left, the operator matches nothing.
        std::vector<Query> children;
        for (uint32_t i = 0; i < current.child_count; ++i) {
            Query child = node(positive);
            if (!is_empty(child)) children.push_back(child);
        }
        if (children.empty()) return Query();
        if (children.size() == 1) return children.front();
        if (current.kind == CX_NODE_OR) return flat_or(children);
        const Query::op op = current.kind == CX_NODE_AND ? Query::OP_AND : Query::OP_XOR;
        return Query(op, children.begin(), children.end());
    }
};

}  // namespace

BuiltQuery build_query(const Xapian::Database &database, const cx_query_node *nodes, size_t count, bool expand_here,
                       std::shared_ptr<const CommonWords> common) {
    if (nodes == nullptr || count == 0) throw Xapian::InvalidArgumentError("the query tree is empty");
    return Builder(database, nodes, count, expand_here, std::move(common)).build();
}

}  // namespace cx
