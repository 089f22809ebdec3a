// What document.cpp offers the other files of the shim.
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>
#include <xapian.h>

#include "CXapian.h"

/// Items' documents and their unique-id terms, built by `cx_documents_build`, waiting to be
/// stored.
struct cx_documents {
    std::vector<Xapian::Document> documents;
    std::vector<std::string> uniques;
};

namespace cx {

/// A term generator as the indexer uses it: CJK n-grams, and each item's language's stems
/// (`make_document` sets its stemmer). Spelling data is added
/// by the writer (`add_spelling`), so that documents can be built on another thread.
Xapian::TermGenerator make_generator();

/// Builds the document for one item; `unique` is its unique-id term.
Xapian::Document make_document(Xapian::TermGenerator &generator, const cx_item &item, const std::string &unique);

/// The language `item`'s words are stemmed in: its `language` attribute's code, else English.
std::string item_language(const cx_item &item);

/// Adds an item's attributes to its document: each value in its slot, and each text's filter term
/// (`attribute_term`).
void add_attributes(Xapian::Document &document, const cx_item &item);

/// How an item compares with its stored version.
enum class Sameness {
    /// Its data or views differ: it is stored again.
    different,
    /// It would store exactly what is stored: nothing is written.
    same,
    /// The same, but read from another file: stored again for its source, and reported unchanged.
    moved,
};

/// Whether `item` would store exactly what `stored` holds: the same data, and the same views when
/// the item gives them.
Sameness stores_the_same(const Xapian::Document &stored, const cx_item &item);

/// The `source_term` a stored document carries, or an empty string.
std::string source_term_of(const Xapian::Document &document);

/// The paths of the files items were stored from, recorded once each in a writer's metadata.
struct SourcePaths {
    std::unordered_set<std::string> recorded;

    /// Records `item`'s source path in `writer`'s metadata, unless it has none or was recorded.
    void record(Xapian::WritableDatabase &writer, const cx_item &item);
};

/// Gives `fresh`, an item's new document, the views `stored` records for it, unless the item gives
/// its own: recorded views survive re-indexing.
void keep_views(Xapian::Document &fresh, const Xapian::Document &stored, const cx_item &item);

/// Title words (a document's `S` terms, not stems) and how often they occurred, for the spelling
/// data: added to a writer in one go, since Xapian looks each word up in its spelling table on
/// every `add_spelling`.
struct SpellingCounts {
    std::unordered_map<std::string, Xapian::termcount> words;

    void count(const Xapian::Document &document);
    void add_to(Xapian::WritableDatabase &writer);
};

}  // namespace cx
