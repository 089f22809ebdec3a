// What terms.cpp offers the other files of the shim: the terms one word or phrase of a query
// stands for.
#pragma once

#include <memory>
#include <utility>

#include "database.hpp"
#include "language.hpp"
#include "matching.hpp"
#include "schema.hpp"
#include "snapshot.hpp"

namespace cx {

/// The terms one word or phrase of a query stands for, made the way the indexer's TermGenerator
/// made them: Xapian's QueryParser is asked about one word or one phrase
/// at a time, with no operator flags. One thread at a time, as its database.
class LeafTerms {
  public:
    /// A prefix is expanded to the words it begins in `database` as a whole (see `build_query`);
    /// the weight scales made are recorded in `factors`.
    /// Words are read in each of `languages` (stemmings, `cx::stemmings`), as the items of each
    /// were indexed; `snapshot` is of the revision `database` reads, and says which forms its
    /// items hold. `one_word`: the query holds no other word or phrase (`expansion`).
    LeafTerms(const cx_database &database, Snapshot &snapshot, ScaleFactors &factors,
              std::vector<std::string> languages, bool one_word)
        : view_(database), database_(database.reader), snapshot_(snapshot), factors_(factors),
          languages_(std::move(languages)), one_word_(one_word) {}

    /// The words of a leaf, weighed: its word, prefix, as-you-type word or phrase.
    Xapian::Query words(const cx_query_node &leaf);

    /// Whether an item read as `stemming` holds `form` (`held_in_stemming`), asked once a
    /// snapshot: a word's forms are asked about when it is read, again when its typos are, and
    /// again by the next search.
    bool held(const std::string &form, const std::string &stemming) {
        return held_in_stemming(view_, snapshot_, form, stemming);
    }

    /// The boolean terms that say a word is in `field`, for `title:`; null for every other field
    /// (descriptions: `in_description`).
    const FieldFilter *field_filter(cx_field field) const;

    /// The leaf's words as `filter`'s boolean terms, which weigh nothing; a phrase as its words.
    Xapian::Query in_field(const cx_query_node &leaf, const FieldFilter &filter);

    /// `query`, the words of a `description:` leaf, less the items that hold one of them only
    /// outside their description (the `XE` terms). A beginning keeps the items whose
    /// description holds a word of the index that begins so, or, typed as-you-type, the word.
    Xapian::Query in_description(const cx_query_node &leaf, const Xapian::Query &query);

  private:
    using Query = Xapian::Query;
    using Parser = Xapian::QueryParser;

    /// The index, whose words a beginning is expanded to (`each_term`); `database_` reads it.
    const cx_database &view_;
    const Xapian::Database &database_;
    Snapshot &snapshot_;
    ScaleFactors &factors_;
    std::vector<std::string> languages_;
    /// Whether the query holds no other word or phrase than the one read.
    bool one_word_;
    /// One parser a language, for the words of every free-text field (one term space), and for
    /// the title's boolean terms; made on first use.
    std::vector<std::unique_ptr<Parser>> parsers_;
    std::vector<std::unique_ptr<Parser>> title_parsers_;

    /// A parser that makes terms under `prefix` in `language`, as the indexer made them.
    std::unique_ptr<Parser> make_parser(const std::string &prefix, const std::string &language) const;

    /// `text` as Xapian's parser reads it with `flags`, in each language (`title`: as the
    /// title's boolean terms): one reading, or where the languages read it differently, the forms
    /// that items hold: one word's forms a synonym (a match in any counts once, as one part of the
    /// query, its frequency that of them all), other readings ORed. The impact tiers do not bound
    /// a synonym: such a query is evaluated in full.
    Query parse(const std::string &text, unsigned flags, bool title = false);

    /// The filter terms of every word that begins with `word` in `filter`'s field, however many,
    /// listed here (a filter weighs none of them).
    Query filter_beginning(const FieldFilter &filter, const std::string &word) const;

    /// An as-you-type or `word*` word as its beginning term, when the index holds one for it; an
    /// empty query otherwise.
    Query beginnings(const cx_query_node &leaf);

    /// As Xapian's own as-you-type expansion does, the word typed so far also matches as a whole
    /// word, stemmed. The words it begins weigh a tenth of what they would alone: a word typed in
    /// full counts about once, as it would anywhere else in the query (at full weight, the last
    /// word of a question counted twice: nDCG@10 on CACM 0.457 against 0.474), and an item with
    /// a longer word still ranks by it. Weighing the whole word or the others, whichever is more,
    /// would be Xapian's OP_MAX, on which Xapian 1.4.22's matcher crashes; weighing the others
    /// only where the whole word is absent (AND_NOT) leaves the best match short of the query's
    /// terms, and so short of 100 %.
    Query with_whole_word(const cx_query_node &leaf, const Query &query);

    /// An as-you-type or `word*` word as the most frequent words it begins, counted over the whole
    /// database (ties in the words' order); an empty query when it is not one word
    /// (`is_one_word`). Xapian's own wildcards are never used: the words are listed here, so that
    /// every reader of the query knows them. Alone in its query, a plain word of five letters or
    /// more weighs as its indexed beginning, which the impact tiers bound; beside other words, each
    /// word it begins weighs as a word of its own.
    Query expansion(const cx_query_node &leaf);

    /// Whether `folded` is one word: a plain word, or text that Xapian's parser reads as one term
    /// (`c++`, `3.5`).
    bool is_one_word(const std::string &folded);

    /// `text` with the parser's `flags` for a leaf of `kind`.
    static unsigned flags_for(cx_node_kind kind, std::string &text);
};

}  // namespace cx
