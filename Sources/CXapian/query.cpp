// Building a Xapian query from the Kit's query tree.
//
// The Kit parses the query language (operators, fields, phrases, exclusions, the as-you-type last
// word) once. Here each piece of text only becomes terms, the way the indexer's TermGenerator made
// them: Xapian's QueryParser is asked about one word or one phrase at a time, with no operator
// flags, so nothing of the language is parsed twice.

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

/// The boolean terms that say a word is in `field` (`field_filter`), in one term space; null for
/// every other field, for format 7's descriptions (`Builder::in_description`), and in formats 2
/// to 5.
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

/// Whether `node` is a plain word of no one field: what a relaxed query lets match alone.
bool is_relaxable_word(const cx_query_node &node) {
    return (node.kind == CX_NODE_WORD || node.kind == CX_NODE_PARTIAL) && node.field == CX_FIELD_ANY;
}

/// The child nodes of the group at `index`, by their indices (the nodes follow in pre-order).
std::vector<size_t> children_of(const cx_query_node *nodes, size_t count, size_t index) {
    std::vector<size_t> children;
    size_t position = index + 1;
    for (uint32_t child = 0; child < nodes[index].child_count && position < count; ++child) {
        children.push_back(position);
        // Past the child's subtree.
        for (size_t pending = 1; pending > 0 && position < count; ++position)
            pending = pending + nodes[position].child_count - 1;
    }
    return children;
}

/// Whether the node at `index` is a plain word, or a group of plain words side by side (words in
/// parentheses): what a relaxed query lets match alone.
bool is_relaxable(const cx_query_node *nodes, size_t count, size_t index) {
    if (is_relaxable_word(nodes[index])) return true;
    if (nodes[index].kind != CX_NODE_AND) return false;
    const std::vector<size_t> children = children_of(nodes, count, index);
    return std::all_of(children.begin(), children.end(), [&](size_t child) { return is_relaxable_word(nodes[child]); });
}

bool is_text_field(cx_field field) {
    return field == CX_FIELD_ANY || field == CX_FIELD_TITLE || field == CX_FIELD_DESCRIPTION;
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

/// What the words an as-you-type word begins weigh beside the word itself (`with_whole_word`).
constexpr double beginning_weight = 0.1;

/// How many words a prefix expands to in each field: the most frequent.
constexpr size_t expansion_limit = 100;

class Builder {
  public:
    Builder(const Xapian::Database &database, Layout layout, const cx_query_node *nodes, size_t count,
            bool expand_here, bool relaxed)
        : database_(database),
          nodes_(nodes),
          count_(count),
          expand_here_(expand_here),
          layout_(layout),
          relaxed_(relaxed) {}

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
    Layout layout_;
    /// Whether plain words side by side match when any does (`relaxed`). The query has no
    /// explicit operator then: every AND is words side by side.
    bool relaxed_;
    size_t position_ = 0;
    Highlighter highlighter_;
    std::vector<BuiltQuery::Spellable> spellable_;
    std::unique_ptr<Parser> parsers_[3];
    std::unique_ptr<Parser> filter_parsers_[3];

    static int slot(cx_field field) { return field == CX_FIELD_TITLE ? 1 : field == CX_FIELD_DESCRIPTION ? 2 : 0; }

    /// A parser that makes terms under `prefixes`, as the indexer made them.
    std::unique_ptr<Parser> make_parser(const std::vector<std::string> &prefixes) const {
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

    /// The parser for the words a free-text field searches, made on first use.
    Parser &parser(cx_field field) {
        std::unique_ptr<Parser> &made = parsers_[slot(field)];
        if (!made) made = make_parser(word_prefixes(layout_, field));
        return *made;
    }

    /// The parser for the boolean terms of a field (`field_filter_of`), made on first use.
    Parser &filter_parser(cx_field field) {
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

    /// The filter terms of every word that begins with `word` in `filter`'s field, however many:
    /// a filter weighs none of them. Stems need not begin as their words do (`happiness`,
    /// `happi`), so a filter of stems takes the stems of the words of the index that begin so.
    Query filter_beginning(const FieldFilter &filter, const std::string &word) const {
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

    /// An as-you-type or `word*` word as its beginning term, when the index holds one for it
    /// (formats 6 and 7); an empty query otherwise.
    Query beginnings(const cx_query_node &leaf) {
        if (leaf.kind != CX_NODE_PREFIX && leaf.kind != CX_NODE_PARTIAL) return Query();
        const std::string word = fold_lower(str(leaf.text));
        if (!is_one_term_space(layout_) || !is_indexed_beginning(word)) return Query();
        return with_whole_word(leaf, Query(prefix::beginning + word));
    }

    /// As Xapian's own as-you-type expansion does, the word typed so far also matches as a whole
    /// word, stemmed. The words it begins weigh a tenth of what they would alone: a word typed in
    /// full counts about once, as it would anywhere else in the query (at full weight, the last
    /// word of a question counted twice: nDCG@10 on CACM 0.457 against 0.474), and an item with
    /// a longer word still ranks by it. Weighing the whole word or the others, whichever is more,
    /// would be Xapian's OP_MAX, on which Xapian 1.4.22's matcher crashes; weighing the others
    /// only where the whole word is absent (AND_NOT) leaves the best match short of the query's
    /// terms, and so short of 100 %.
    Query with_whole_word(const cx_query_node &leaf, const Query &query) {
        if (leaf.kind != CX_NODE_PARTIAL) return query;
        const std::string folded = fold_lower(str(leaf.text));
        const Query whole =
            score_fields_separately(parser(leaf.field).parse_query(folded, Parser::FLAG_CJK_NGRAM));
        if (whole.empty()) return query;
        return Query(Query::OP_OR, whole, Query(Query::OP_SCALE_WEIGHT, query, beginning_weight));
    }

    /// An as-you-type or `word*` word as the most frequent words it begins (in each field of an
    /// index of formats 2 to 5), counted over the whole database, as Xapian's expansion picks
    /// them, each weighed as a word of its own (`expand_here`); an empty query when it is not one
    /// plain word.
    Query expansion(const cx_query_node &leaf) {
        if (!expand_here_ || (leaf.kind != CX_NODE_PREFIX && leaf.kind != CX_NODE_PARTIAL)) return Query();
        const std::string word = fold_lower(str(leaf.text));
        if (!is_plain_word(word)) return Query();
        std::vector<Query> fields;
        for (const std::string &prefix : word_prefixes(layout_, leaf.field)) {
            const std::string begun = prefix + word;
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

    /// `text` with the parser's `flags` for a leaf of `kind`.
    static unsigned flags_for(cx_node_kind kind, std::string &text) {
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

    /// The words of one word or phrase, as the indexer made them, weighed.
    Query words(const cx_query_node &leaf) {
        Query query = beginnings(leaf);
        if (query.empty()) query = expansion(leaf);
        if (!query.empty()) return query;
        // Lower-cased before Xapian's parser reads it: the parser leaves a capitalised word
        // unstemmed (its proper-noun rule), while the indexer stems every word, so `Concurrency`
        // would find only the items with that very word and `concurrency` those with `concurrent`.
        std::string folded = fold_lower(str(leaf.text));
        if (leaf.kind == CX_NODE_PARTIAL && is_plain_word(folded)) {
            // The words it begins, expanded by the matcher, or the word itself (Xapian's own
            // partial word would weigh both).
            const unsigned flags = flags_for(CX_NODE_PREFIX, folded);
            return with_whole_word(leaf, score_fields_separately(parser(leaf.field).parse_query(folded, flags)));
        }
        const unsigned flags = flags_for(leaf.kind, folded);
        return score_fields_separately(parser(leaf.field).parse_query(folded, flags));
    }

    /// The terms of one word or phrase: its words, and in one term space, for `title:` and
    /// `description:`, the field's terms of each of them as a filter (they weigh nothing; a phrase
    /// is checked on the words' positions, which keep the fields apart).
    Query text(const cx_query_node &leaf, bool positive) {
        Query query = words(leaf);
        if (const FieldFilter *filter = field_filter_of(layout_, leaf.field); filter != nullptr && !query.empty()) {
            std::string folded = fold_lower(str(leaf.text));
            const std::string word = folded;
            Query in_field;
            if ((leaf.kind == CX_NODE_PREFIX || leaf.kind == CX_NODE_PARTIAL) && is_plain_word(word)) {
                in_field = filter_beginning(*filter, word);
            } else {
                const unsigned flags = flags_for(leaf.kind == CX_NODE_PHRASE ? CX_NODE_WORD : leaf.kind, folded);
                in_field = filter_parser(leaf.field).parse_query(folded, flags);
            }
            if (!in_field.empty()) query = Query(Query::OP_FILTER, query, in_field);
        } else if (layout_ == Layout::shared && leaf.field == CX_FIELD_DESCRIPTION && !query.empty()) {
            query = in_description(leaf, query);
        }
        if (positive) remember(leaf, query);
        return query;
    }

    /// `query`, the words of a `description:` leaf, less the items that hold one of them only
    /// outside their description (format 7's `XE` terms). A beginning keeps the items whose
    /// description holds a word of the index that begins so, or, typed as-you-type, the word.
    Query in_description(const cx_query_node &leaf, const Query &query) {
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

    /// What a result's snippet highlights, and which words may be corrected.
    void remember(const cx_query_node &leaf, const Query &query) {
        for (auto it = query.get_unique_terms_begin(); it != query.get_unique_terms_end(); ++it) {
            const std::string &term = *it;
            const bool stemmed = !term.empty() && term[0] == 'Z';
            std::string word = stemmed ? term.substr(1) : term;
            // A description's words in formats 2 to 5; every other prefixed term (a field filter,
            // a beginning, a keyword's words) is not one to highlight.
            if (layout_ == Layout::per_field && word.compare(0, prefix::description.size(), prefix::description) == 0)
                word.erase(0, prefix::description.size());
            else if (!is_shared_word(word))
                continue;
            (stemmed ? highlighter_.stems : highlighter_.words).push_back(std::move(word));
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
                // Query::MatchAll itself would be one object shared by every query built, on
                // every thread, through a reference count that is not thread-safe.
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

    /// A group's children. Relaxed, an AND's plain words (and groups of them) are ORed, and the
    /// rest stay ANDed with them.
    Query group(const cx_query_node &current, bool positive) {
        const bool relaxed = relaxed_ && positive && current.kind == CX_NODE_AND;
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
        std::vector<Query> any_of;
        for (uint32_t i = 0; i < current.child_count; ++i) {
            const bool plain = relaxed && position_ < count_ && is_relaxable(nodes_, count_, position_);
            Query child = node(positive);
            if (is_empty(child)) continue;
            (plain ? any_of : children).push_back(child);
        }
        if (!any_of.empty()) children.push_back(flat_or(any_of));
        if (children.empty()) return Query();
        if (children.size() == 1) return children.front();
        if (current.kind == CX_NODE_OR) return flat_or(children);
        const Query::op op = current.kind == CX_NODE_AND ? Query::OP_AND : Query::OP_XOR;
        return Query(op, children.begin(), children.end());
    }
};

}  // namespace

BuiltQuery build_query(const Xapian::Database &database, Layout layout, const cx_query_node *nodes, size_t count,
                       bool expand_here, bool relaxed) {
    if (nodes == nullptr || count == 0) throw Xapian::InvalidArgumentError("the query tree is empty");
    return Builder(database, layout, nodes, count, expand_here, relaxed).build();
}

bool can_relax(const cx_query_node *nodes, size_t count) {
    if (nodes == nullptr || count == 0) return false;
    // The root, or what a root exclusion keeps.
    const size_t root = nodes[0].kind == CX_NODE_AND_NOT && nodes[0].child_count > 0 ? 1 : 0;
    if (root >= count || nodes[root].kind != CX_NODE_AND) return false;
    const std::vector<size_t> children = children_of(nodes, count, root);
    return std::count_if(children.begin(), children.end(),
                         [&](size_t child) { return is_relaxable(nodes, count, child); }) >= 2;
}

}  // namespace cx
