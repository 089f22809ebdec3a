// Building a Xapian query from the Kit's query tree.
//
// The Kit parses the query language (operators, fields, phrases, exclusions, the as-you-type last
// word) once. Here the tree is walked, and each piece of text becomes terms (terms.cpp), so that
// nothing of the language is parsed twice.

#include "query.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "columns.hpp"
#include "database.hpp"
#include "errors.hpp"
#include "language.hpp"
#include "matching.hpp"
#include "pairs.hpp"
#include "read.hpp"
#include "schema.hpp"
#include "snippet.hpp"
#include "terms.hpp"
#include "text.hpp"
#include "typos.hpp"

namespace cx {

namespace {

using Query = Xapian::Query;

/// Whether `node` is a plain word of no one field: what a relaxed query lets match alone.
bool is_relaxable_word(const cx_query_node &node) {
    return (node.kind == CX_NODE_WORD || node.kind == CX_NODE_PARTIAL) && node.field == CX_FIELD_ANY;
}

bool is_text_field(cx_field field) {
    return field == CX_FIELD_ANY || field == CX_FIELD_TITLE || field == CX_FIELD_DESCRIPTION;
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

/// How many words one word's typos stand for at most: the nearest, then the most frequent.
constexpr size_t most_typo_words = 8;

/// What a word one typo or two from a word the index holds weighs beside it: a fifth (on CACM's
/// questions, by words, half lost 1.3 % of nDCG@10 against exact words, a fifth 0.4 %). A word the
/// index does not hold weighs its corrections in full.
constexpr double typo_weight = 0.2;

/// Whether `leaf`'s typos are looked for: a plain word (or the as-you-type word, as a whole word)
/// of no one field, of letters alone (numbers and identifiers match exactly).
bool has_typos(const cx_query_node &leaf, const std::string &word) {
    if (leaf.kind != CX_NODE_WORD && leaf.kind != CX_NODE_PARTIAL) return false;
    if (leaf.field != CX_FIELD_ANY || !is_plain_word(word)) return false;
    return std::none_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// A highlighter of the stems of `languages` (`Highlighter::stemmers`).
Highlighter highlighter_of(const std::vector<std::string> &languages) {
    Highlighter highlighter;
    highlighter.stemmers.clear();
    for (const std::string &language : languages) highlighter.stemmers.push_back(stemmer_for(language));
    return highlighter;
}

/// True for a query that matches nothing because its text held no word (punctuation alone).
bool is_empty(const Query &query) { return query.empty(); }

/// Whether the query of `nodes` holds one word or phrase, whatever filters beside it.
bool one_word(const cx_query_node *nodes, size_t count) {
    size_t words = 0;
    for (size_t i = 0; i < count; ++i) {
        const cx_node_kind kind = nodes[i].kind;
        if (kind == CX_NODE_WORD || kind == CX_NODE_PREFIX || kind == CX_NODE_PARTIAL || kind == CX_NODE_PHRASE) ++words;
    }
    return words == 1;
}

class Builder {
  public:
    Builder(const cx_database &database, Snapshot &snapshot, const cx_query_node *nodes, size_t count, bool relaxed,
            cx_database *keeping, bool typos, const std::vector<std::string> &languages)
        : database_(database),
          snapshot_(snapshot),
          terms_(database, snapshot, factors_, languages, one_word(nodes, count)),
          languages_(languages),
          nodes_(nodes),
          count_(count),
          relaxed_(relaxed),
          keeping_(keeping),
          typos_(typos && !database.sharded),
          highlighter_(highlighter_of(languages)) {}

    BuiltQuery build() {
        BuiltQuery built;
        built.matches_everything = count_ == 1 && nodes_[0].kind == CX_NODE_ALL;
        built.query = node(true);
        if (position_ != count_) throw Xapian::InvalidArgumentError("the query tree has nodes past its root");
        const Query corrected = corrected_;
        const bool apart = apart_;
        built.highlighter = std::move(highlighter_);
        built.spellable = std::move(spellable_);
        if (corrects_held_) {
            // The same tree again, the words the index holds matched as typed alone.
            position_ = 0;
            held_as_typed_ = true;
            built.as_typed = node(true);
            if (apart) built.corrected = corrected.empty() ? Query::MatchNothing : corrected;
        }
        built.factors = std::move(factors_);
        return built;
    }

  private:
    /// A node built (`query`); the same as the query as typed builds it, where that differs (the
    /// corrections of the words the index holds left out; empty where it is `query`); and what it
    /// matches outside it, through such a correction (empty for nothing).
    struct Built {
        Query query;
        Query typed;
        Query corrected;

        const Query &as_typed() const { return typed.empty() ? query : typed; }
    };

    const cx_database &database_;
    /// The snapshot the common words are read from, once a phrase needs them.
    Snapshot &snapshot_;
    ScaleFactors factors_;
    LeafTerms terms_;
    /// The languages words are read in (`cx::stemmings`).
    std::vector<std::string> languages_;
    const cx_query_node *nodes_;
    size_t count_;
    /// Whether plain words side by side match when any does (`relaxed`). The query has no
    /// explicit operator then: every AND is words side by side.
    bool relaxed_;
    /// The handle whose kept columns ranges read, or null.
    cx_database *keeping_;
    /// Whether words also match the words a typo or two from them (SPEC §2.1). Not over shards,
    /// whose snapshots last one search: the words would be read again by each.
    bool typos_;
    /// Whether a word the index holds matches as typed alone: under an exclusive or, whose matches
    /// a correction could take away, and in the query built for `BuiltQuery::as_typed`.
    bool held_as_typed_ = false;
    /// Where the group being built gives its stop words, when it is a group of plain words of a
    /// relaxed question (`group`): its parent's, so that they weigh wherever the question's other
    /// words select. Null otherwise.
    std::vector<Built> *stops_given_to_ = nullptr;
    /// Whether a word the index holds was given its corrections.
    bool corrects_held_ = false;
    /// For the node just built, its query as typed and what it matches outside it (`Built`), and
    /// whether every node so far let that be made: none put a correction of a word the index holds
    /// under an exclusion, an exclusive or, a phrase's pairs or a description's filter.
    Query typed_;
    Query corrected_;
    bool apart_ = true;
    /// The corrections found for each word (and whether it was typed last, as a beginning), and
    /// whether the index holds it, reused when the tree is built again.
    std::map<std::pair<std::string, bool>, std::pair<std::vector<Query>, bool>> corrections_;
    size_t position_ = 0;
    Highlighter highlighter_;
    std::vector<BuiltQuery::Spellable> spellable_;

    /// The terms of one word or phrase: its words, and in one term space, for `title:` and
    /// `description:`, the field's terms of each of them as a filter (they weigh nothing; a phrase
    /// is checked on the words' positions, which keep the fields apart).
    Query text(const cx_query_node &leaf, bool positive) {
        Query query = terms_.words(leaf);
        // The corrections of a word the index holds, which the query as typed lacks: what they
        // match outside the word as typed.
        Query typed = query, corrected;
        // An excluded word is excluded as typed: `-linkin` leaves `linking` be.
        if (typos_ && positive) {
            query = with_typos(leaf, query, corrected);
            if (!corrected.empty()) corrected = Query(Query::OP_AND_NOT, corrected, typed);
        }
        if (leaf.kind == CX_NODE_PHRASE)
            if (const std::shared_ptr<const CommonWords> common = common_words(database_, snapshot_)) {
                query = with_pairs(query, *common);
                if (!corrected.empty()) apart_ = false;
            }
        if (const FieldFilter *filter = terms_.field_filter(leaf.field); filter != nullptr && !query.empty()) {
            const Query in_field = terms_.in_field(leaf, *filter);
            if (!in_field.empty()) {
                query = Query(Query::OP_FILTER, query, in_field);
                if (!corrected.empty()) {
                    typed = Query(Query::OP_FILTER, typed, in_field);
                    corrected = Query(Query::OP_FILTER, corrected, in_field);
                }
            }
        } else if (leaf.field == CX_FIELD_DESCRIPTION && !query.empty()) {
            query = terms_.in_description(leaf, query);
            if (!corrected.empty()) apart_ = false;
        }
        if (positive) remember(leaf, query);
        typed_ = corrected.empty() ? Query() : typed;
        corrected_ = corrected;
        return query;
    }

    /// `query`, the words of `leaf`, or the words a typo or two from its word (`NearWords::near`;
    /// for the as-you-type word, the words that begin so), the first letter kept, each as the
    /// indexer stemmed it: at most `most_typo_words`, weighing `typo_weight` beside a word the
    /// index holds (or begins), in full beside one it does not. A word the index holds is
    /// matched as typed alone where `held_as_typed_` says so. `corrected_held`: the corrections
    /// given a word the index holds, which the query as typed lacks.
    Query with_typos(const cx_query_node &leaf, const Query &query, Query &corrected_held) {
        const std::string word = fold_lower(str(leaf.text));
        size_t letters = 0;
        for (Xapian::Utf8Iterator it(word); it != Xapian::Utf8Iterator(); ++it) ++letters;
        if (!has_typos(leaf, word) || typo_limit(letters) == 0) return query;
        const bool partial = leaf.kind == CX_NODE_PARTIAL;
        auto found = corrections_.find({word, partial});
        if (found == corrections_.end())
            found = corrections_.emplace(std::make_pair(word, partial), corrections(word, partial)).first;
        const auto &[corrected, held] = found->second;
        if (corrected.empty() || (held && held_as_typed_)) return query;
        corrects_held_ = corrects_held_ || held;
        const std::vector<Query> &terms = corrected;
        if (held) corrected_held = Query(Query::OP_OR, terms.begin(), terms.end());
        return Query(Query::OP_OR, query,
                     factors_.scaled(database_.reader, Query(Query::OP_OR, terms.begin(), terms.end()),
                                     held ? typo_weight : 1.0));
    }

    /// The terms of the words a typo or two from `word` (`with_typos`), and whether the index holds
    /// `word` (or, for the as-you-type word, begins words with it): such a word is more likely
    /// typed as meant.
    std::pair<std::vector<Query>, bool> corrections(const std::string &word, bool partial) {
        // Whether an item of `language` holds `term`, a form in it (`LeafTerms::held`).
        const auto held_in = [&](const std::string &term, const std::string &language) {
            return languages_.size() == 1 ? term_frequency(database_, snapshot_, term) > 0 : terms_.held(term, language);
        };
        // The word's forms as the query reads it (`LeafTerms::parse`): in the languages whose
        // items hold them, else in the first.
        std::vector<std::string> typed;
        for (const std::string &language : languages_) {
            std::string term = "Z" + stemmer_for(language)(word);
            if (held_in(term, language)) typed.push_back(std::move(term));
        }
        const bool held_as_typed = !typed.empty();
        if (typed.empty()) typed.push_back("Z" + stemmer_for(languages_.front())(word));
        std::vector<Query> corrected;
        std::set<std::string> seen(typed.begin(), typed.end());
        const std::shared_ptr<const NearWords> words = text_words(database_, snapshot_, word, keeping_ != nullptr);
        // The as-you-type word, typed so far, also finds the words that begin a typo from it, when
        // no word begins with it as typed: one that does is being typed as meant, and comparing
        // it with every longer word of its first letter would cost each keystroke milliseconds.
        const bool begun =
            partial && database_.reader.allterms_begin(word) != database_.reader.allterms_end(word);
        const bool beginning = partial && !begun;
        for (const std::string &near : words->near(word, beginning, &database_.reader)) {
            // The correction's forms in the languages, each where an item of its language holds
            // it (else the first's): one synonym, a part of the query as the word is. A form held
            // only in another language is another word there (Irish reads `shan` as `san`).
            std::vector<Query> forms;
            for (const std::string &language : languages_) {
                std::string term = "Z" + stemmer_for(language)(near);
                if (seen.count(term) > 0 || (languages_.size() > 1 && !held_in(term, language))) continue;
                seen.insert(term);
                forms.emplace_back(term);
            }
            if (forms.empty() && languages_.size() > 1) {
                std::string term = "Z" + stemmer_for(languages_.front())(near);
                if (seen.insert(term).second) forms.emplace_back(term);
            }
            if (!forms.empty())
                corrected.push_back(forms.size() == 1 ? forms.front() : Query(Query::OP_SYNONYM, forms.begin(), forms.end()));
            if (corrected.size() == most_typo_words) break;
        }
        return {std::move(corrected), begun || held_as_typed};
    }

    /// What a result's snippet highlights, and which words may be corrected.
    void remember(const cx_query_node &leaf, const Query &query) {
        for (auto it = query.get_unique_terms_begin(); it != query.get_unique_terms_end(); ++it) {
            const std::string &term = *it;
            const bool stemmed = !term.empty() && term[0] == 'Z';
            std::string word = stemmed ? term.substr(1) : term;
            // A prefixed term (a field filter, a beginning) is not one to highlight.
            if (!is_shared_word(word)) continue;
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

    /// A filter over the item's attributes (format 8): a range of numbers, a text, or a distance
    /// from a point. Items without the attribute do not match.
    Query attribute(const cx_query_node &leaf) {
        switch (leaf.kind) {
            case CX_NODE_RANGE:
                if (std::isnan(leaf.low) || std::isnan(leaf.high) || leaf.low > leaf.high)
                    throw Xapian::InvalidArgumentError("a range needs a low end at most its high end");
                if (keeping_ != nullptr) {
                    if (std::shared_ptr<const Column> column = cx::column(*keeping_, leaf.slot, true))
                        return column_range(std::move(column), leaf.low, leaf.high);
                }
                if (std::isinf(leaf.high))
                    return Query(Query::OP_VALUE_GE, leaf.slot, Xapian::sortable_serialise(leaf.low));
                if (std::isinf(leaf.low))
                    return Query(Query::OP_VALUE_LE, leaf.slot, Xapian::sortable_serialise(leaf.high));
                return Query(Query::OP_VALUE_RANGE, leaf.slot, Xapian::sortable_serialise(leaf.low),
                             Xapian::sortable_serialise(leaf.high));
            case CX_NODE_ATTRIBUTE:
                return Query(attribute_term(leaf.slot, str(leaf.text)));
            default: {
                if (!(leaf.radius >= 0)) throw Xapian::InvalidArgumentError("a distance needs a radius");
                // Throws InvalidArgumentError for a latitude or longitude out of range.
                const Xapian::LatLongCoords centre(Xapian::LatLongCoord(leaf.low, leaf.high));
                return Query((new Xapian::LatLongDistancePostingSource(leaf.slot, centre, Xapian::GreatCircleMetric(),
                                                                       leaf.radius))
                                 ->release());
            }
        }
    }

    /// Builds the subtree at the current position. `positive` is false under an exclusion.
    Query node(bool positive) {
        if (position_ >= count_) throw Xapian::InvalidArgumentError("the query tree ends inside a node");
        const cx_query_node &current = nodes_[position_++];
        typed_ = corrected_ = Query();
        switch (current.kind) {
            case CX_NODE_ALL:
                return cx::match_all();
            case CX_NODE_WORD:
            case CX_NODE_PREFIX:
            case CX_NODE_PARTIAL:
            case CX_NODE_PHRASE:
                if (!is_text_field(current.field))
                    throw Xapian::InvalidArgumentError("a text node needs the any, title or description field");
                return text(current, positive);
            case CX_NODE_FILTER:
                return factors_.scaled(database_.reader, filter(current), 0.0);
            case CX_NODE_RANGE:
            case CX_NODE_ATTRIBUTE:
            case CX_NODE_NEAR:
                return factors_.scaled(database_.reader, attribute(current), 0.0);
            case CX_NODE_AND:
            case CX_NODE_OR:
            case CX_NODE_XOR:
            case CX_NODE_AND_NOT:
                return group(current, positive);
        }
        throw Xapian::InvalidArgumentError("unknown query node kind");
    }

    /// Whether the node at `position_` is one word that is a stop word in a language the query is
    /// read in (`is_stop_word`). The last word, read as typed so far, is one too: a relaxed
    /// question is written whole, and a stop word that begins a longer word (`the`, `theory`)
    /// still weighs where that word matches.
    bool is_stop_leaf() const {
        const cx_query_node &leaf = nodes_[position_];
        return is_relaxable_word(leaf) && is_stop_word(languages_, fold_lower(str(leaf.text)));
    }

    /// A group's children. Relaxed, an AND's plain words (and groups of them) are ORed, and the
    /// rest stay ANDed with them. Its stop words (`is_stop_word`) then weigh where they match but
    /// select nothing, unless it has no other plain word (SPEC §2.1, §2.5). A group of plain words
    /// (in parentheses) gives its stop words to its parent's: they weigh wherever the question's
    /// words select, as they would without the parentheses.
    Query group(const cx_query_node &current, bool positive) {
        const bool relaxed = relaxed_ && positive && current.kind == CX_NODE_AND;
        std::vector<Built> *const given_to = relaxed ? stops_given_to_ : nullptr;
        stops_given_to_ = nullptr;
        if (current.kind == CX_NODE_AND_NOT) {
            if (current.child_count == 0) throw Xapian::InvalidArgumentError("an exclusion without children");
            Query kept = node(positive);
            const Built built{kept, typed_, corrected_};
            std::vector<Query> excluded;
            for (uint32_t i = 1; i < current.child_count; ++i) {
                Query child = node(!positive);
                // What a correction excludes, the query as typed may hold: it is not a part of
                // this query, and the corrections' matches are counted with the whole query.
                if (!corrected_.empty()) apart_ = false;
                if (!is_empty(child)) excluded.push_back(child);
            }
            typed_ = built.typed;
            corrected_ = built.corrected;
            if (excluded.empty()) return kept;
            const Query without = flat_or(excluded);
            if (!typed_.empty()) typed_ = Query(Query::OP_AND_NOT, typed_, without);
            if (!corrected_.empty()) corrected_ = Query(Query::OP_AND_NOT, corrected_, without);
            return Query(Query::OP_AND_NOT, kept, without);
        }
        // A child whose text held no word (punctuation) neither matches nor blocks; with no child
        // left, the operator matches nothing. An exclusive or's words the index holds match as
        // typed: a correction could take an item out of its matches.
        const bool held_as_typed = held_as_typed_;
        if (current.kind == CX_NODE_XOR) held_as_typed_ = true;
        std::vector<Built> children;
        std::vector<Built> any_of;
        std::vector<Built> stops;
        for (uint32_t i = 0; i < current.child_count; ++i) {
            const bool plain = relaxed && position_ < count_ && is_relaxable(nodes_, count_, position_);
            const bool stop = plain && is_stop_leaf();
            stops_given_to_ = plain ? &stops : nullptr;
            Query child = node(positive);
            stops_given_to_ = nullptr;
            if (is_empty(child)) continue;
            if (current.kind == CX_NODE_XOR && !corrected_.empty()) apart_ = false;
            (stop ? stops : plain ? any_of : children).push_back({child, typed_, corrected_});
        }
        held_as_typed_ = held_as_typed;
        if (given_to != nullptr) {
            given_to->insert(given_to->end(), stops.begin(), stops.end());
            stops.clear();
        }
        if (any_of.empty()) std::swap(any_of, stops);
        if (!any_of.empty()) {
            // Matched by the words of `any_of`, as their OR is; the stop words beside them only weigh.
            const Built words = any(any_of);
            children.push_back(stops.empty() ? words
                                             : Built{Query(Query::OP_AND_MAYBE, words.query, flat_or(queries_of(stops))),
                                                     words.typed, words.corrected});
        }
        typed_ = corrected_ = Query();
        if (children.empty()) return Query();
        Built built;
        if (children.size() == 1) {
            built = children.front();
        } else if (current.kind == CX_NODE_OR) {
            built = any(children);
        } else if (current.kind == CX_NODE_AND) {
            built = all(children);
        } else {
            // An exclusive or gives no corrected part (`apart_` says so).
            const std::vector<Query> queries = queries_of(children);
            built = {Query(Query::OP_XOR, queries.begin(), queries.end()), Query(), Query()};
        }
        typed_ = built.typed;
        corrected_ = built.corrected;
        return built.query;
    }

    static std::vector<Query> queries_of(const std::vector<Built> &built) {
        std::vector<Query> queries;
        queries.reserve(built.size());
        for (const Built &one : built) queries.push_back(one.query);
        return queries;
    }

    /// The OR of `built`. A match outside it as typed matches one of them outside it as typed,
    /// and none of the others as typed.
    static Built any(const std::vector<Built> &built) {
        Built made{flat_or(queries_of(built)), Query(), Query()};
        if (std::all_of(built.begin(), built.end(), [](const Built &one) { return one.corrected.empty(); })) return made;
        std::vector<Query> typed, corrected;
        for (const Built &one : built) typed.push_back(one.as_typed());
        made.typed = flat_or(typed);
        for (size_t i = 0; i < built.size(); ++i) {
            if (built[i].corrected.empty()) continue;
            std::vector<Query> others;
            for (size_t j = 0; j < built.size(); ++j)
                if (j != i) others.push_back(typed[j]);
            corrected.push_back(others.empty() ? built[i].corrected
                                               : Query(Query::OP_AND_NOT, built[i].corrected, flat_or(others)));
        }
        made.corrected = flat_or(corrected);
        return made;
    }

    /// The AND of `built`. A match outside it as typed matches, for the first of them it does
    /// not match as typed, the ones before as typed, that one outside it as typed, and the ones
    /// after whole: each of these ANDs is read from its correction's lists, the shortest, and no
    /// match is in two of them.
    static Built all(const std::vector<Built> &built) {
        const std::vector<Query> queries = queries_of(built);
        Built made{Query(Query::OP_AND, queries.begin(), queries.end()), Query(), Query()};
        if (std::all_of(built.begin(), built.end(), [](const Built &one) { return one.corrected.empty(); })) return made;
        std::vector<Query> typed, corrected;
        for (const Built &one : built) typed.push_back(one.as_typed());
        made.typed = Query(Query::OP_AND, typed.begin(), typed.end());
        for (size_t i = 0; i < built.size(); ++i) {
            if (built[i].corrected.empty()) continue;
            std::vector<Query> parts(typed.begin(), typed.begin() + long(i));
            parts.push_back(built[i].corrected);
            parts.insert(parts.end(), queries.begin() + long(i) + 1, queries.end());
            corrected.emplace_back(Query::OP_AND, parts.begin(), parts.end());
        }
        made.corrected = flat_or(corrected);
        return made;
    }
};

}  // namespace

size_t subtree_end(const cx_query_node *nodes, size_t count, size_t index) {
    size_t position = index;
    for (size_t pending = 1; pending > 0 && position < count; ++position) pending = pending + nodes[position].child_count - 1;
    return position;
}

std::vector<size_t> children_of(const cx_query_node *nodes, size_t count, size_t index) {
    std::vector<size_t> children;
    size_t position = index + 1;
    for (uint32_t child = 0; child < nodes[index].child_count && position < count; ++child) {
        children.push_back(position);
        position = subtree_end(nodes, count, position);
    }
    return children;
}

bool is_relaxable(const cx_query_node *nodes, size_t count, size_t index) {
    if (is_relaxable_word(nodes[index])) return true;
    if (nodes[index].kind != CX_NODE_AND) return false;
    const std::vector<size_t> children = children_of(nodes, count, index);
    return std::all_of(children.begin(), children.end(), [&](size_t child) { return is_relaxable_word(nodes[child]); });
}

BuiltQuery build_query(const cx_database &database, Snapshot &snapshot, const cx_query_node *nodes, size_t count,
                       bool relaxed, cx_database *keeping, bool typos, const std::vector<std::string> &languages) {
    if (nodes == nullptr || count == 0) throw Xapian::InvalidArgumentError("the query tree is empty");
    return Builder(database, snapshot, nodes, count, relaxed, keeping, typos, languages).build();
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
