// What schema.cpp offers the other files of the shim: the one prefix table and the value slots.
#pragma once

#include <string>
#include <utility>
#include <vector>
#include <xapian.h>

#include "CXapian.h"

namespace cx {

namespace prefix {
/// The unique-id term: domain, U+001F, identifier (hashed past the term limit).
inline const std::string unique = "Q";
/// The exact domain (boolean).
inline const std::string domain = "XD";
/// The domain and each ancestor on dot components (boolean), for recursive domain removal.
inline const std::string domain_tree = "XA";
/// The index mode: `XMpublic` or `XMprivate` (boolean).
inline const std::string mode = "XM";
/// A private item's domain (boolean): what a search from that domain may see besides public items.
inline const std::string private_domain = "XP";
/// The content schema, lower-cased (boolean).
inline const std::string schema = "XS";
/// The canonical identifier alone, across domains (boolean).
inline const std::string identifier = "XI";
/// A whole keyword, folded and lower-cased (boolean).
inline const std::string keyword = "K";
/// The words of the title, keywords and description share one unprefixed term space.
inline const std::string text = "";
/// A title word or its stem (boolean, `S` as in omega): what `title:` filters by.
inline const std::string title = "S";
/// A term of the item's words, as a plain word's search reads it (`is_match_term`), that is not in
/// its description (boolean): `description:w` is `w` less the items with `XE` of it. An item's
/// title and keywords hold few words its description lacks, so this takes a few terms an item
/// where the description's own words took dozens.
inline const std::string elsewhere = "XE";
/// The digest of the raw input line an item was read from, with the options it was read under
/// (boolean): present only while that line still yields exactly the stored item.
inline const std::string line = "XR";
/// The beginnings of the item's words, 3 to 4 characters long, each with the summed within-item
/// frequency of the words it begins (`add_word_beginnings`): an as-you-type word reads one posting
/// list instead of the union of every word it begins.
inline const std::string beginning = "XB";
/// The file the item was read from (boolean): `XF` and eight bytes of `fnv1a64(path)`, the path
/// itself in the metadata under `source_key_prefix` and the same eight bytes (`source_key`).
inline const std::string source = "XF";
/// Two common words side by side (boolean, `pair_term`): what a phrase of them is filtered by.
inline const std::string pair = "XW";
}  // namespace prefix

/// Xapian's glass backend refuses terms over 245 bytes; stay clear of it.
constexpr size_t term_limit = 240;

namespace slot {
/// `sortable_serialise` of the expiration in epoch ms; absent for items that never expire, so that
/// the value stream holds only the items that can expire.
constexpr Xapian::valueno expiration = 0;
/// "1" for public items, "0" for private ones.
constexpr Xapian::valueno is_public = 2;
/// `content_digest` of the stored data: an item whose new data has the same digest is unchanged.
constexpr Xapian::valueno digest = 3;
/// The item's recorded views, in decimal; absent for none.
constexpr Xapian::valueno views = 4;
/// `sortable_serialise` of the views' ranking boost, from 0 to 1 (`view_boost`); absent for none,
/// so that the value stream holds only viewed items.
constexpr Xapian::valueno view_boost = 5;
/// `sortable_serialise` of the recorded views, what sorting by views reads; absent for none.
constexpr Xapian::valueno views_order = CX_SLOT_VIEWS;
/// The item's attributes (`cx_value`), from here up, in the slots the Kit assigns.
constexpr Xapian::valueno first_attribute = CX_SLOT_FIRST_ATTRIBUTE;
/// The language the item's words are in (the `language` attribute, an ISO 639-1 code), by which
/// they are stemmed; an item without one is English's.
constexpr Xapian::valueno language = first_attribute + 10;
}  // namespace slot

/// The views an item's document records (0 for none).
int64_t document_views(const Xapian::Document &document);

/// Sets a document's recorded views and their ranking boost (both removed for 0).
void set_document_views(Xapian::Document &document, int64_t views);

/// The ranking boost of `views`, from 0 to 1: ln(1 + views) / ln(1 + 1000), at most 1.
double view_boost(int64_t views);

/// The index format this shim writes and searches, kept in the database's metadata under
/// `format_key`. It indexes the words of every field once, in one unprefixed term space, each
/// occurrence adding its field's weight to the word's within-item frequency (`field_wdf`), as BM25F
/// does: every word has one document frequency, and one posting list to read. `S` terms (boolean)
/// say which words are in the title; `XE` terms which of the item's words are not in its
/// description (`add_elsewhere_terms`); one set of word beginnings serves as-you-type. The item's
/// attributes are values (`slot::first_attribute` up), and its data is its JSON object less the
/// attributes whose values give them back, those values carried compactly before it (`stored_data`)
/// so that a page of results reads each item's data alone, read back whole (`item_data`). Each two
/// of the index's common words side by side in an item are a pair term (`XW`, pairs.cpp), which a
/// phrase of them is filtered by. Each item's words are stemmed in its language (`slot::language`),
/// a `language` attribute every item has.
///
/// An index of an earlier format (`is_rebuildable`) is not searched: its items are read (get,
/// export) and rebuilt into a new generation of this format by its next writer, from their stored
/// data, as indexing stores them (the Kit's `SearchableIndex.upgradeIfOlder`).
inline const std::string format_key = "searchlight.format";
inline const std::string format = "13";

/// Whether an index that records `recorded` is of an earlier format whose items its next writer can
/// rebuild into this one: formats 2 to 12, from whose stored data and values `item_data` reads every
/// item's JSON whole.
bool is_rebuildable(const std::string &recorded);

/// Whether the Kit may keep a record under `key` (`cx_database_set_metadata`): a `searchlight.`
/// key other than the shim's own.
inline bool is_kit_key(const std::string &key) { return key.compare(0, 12, "searchlight.") == 0 && key != format_key; }

/// The shortest and longest word beginnings indexed, in characters. Two-character beginnings
/// would add 13 % to the indexing time and 5 % to the index (measured at 200,000 items); a word
/// of one or two characters expands to the hundred most frequent words it begins instead.
constexpr size_t shortest_beginning = 3;
constexpr size_t longest_beginning = 4;

/// The expiration stored for items that never expire (far beyond any real date).
constexpr double never_ms = 9.0e15;

/// `prefix + value`, or, when that passes Xapian's term limit, a shortened form ending in a
/// 64-bit hash of the whole value.
std::string bounded_term(const std::string &prefix, const std::string &value);

/// The FNV-1a 64-bit hash of `bytes`: stable across processes and machines.
uint64_t fnv1a64(const std::string &bytes);

/// The digest kept in `slot::digest`: eight bytes of `fnv1a64(data)`.
std::string content_digest(const std::string &data);

/// The metadata keys that hold the paths of the files items were read from.
inline const std::string source_key_prefix = "source:";
/// The term of the items read from the file at `path`.
std::string source_term(const std::string &path);
/// The metadata key that holds `path`, for its `source_term`.
std::string source_key(const std::string &path);
/// The metadata key of the path of a `source_term`.
std::string source_key_of_term(const std::string &term);

/// The prefix of the attributes' filter terms.
inline const std::string attribute_prefix = "XV";

/// The filter term of an attribute's text in `slot`: `XV`, the slot, `:`, and the text folded and
/// lower-cased (bounded).
std::string attribute_term(Xapian::valueno slot, const std::string &text);

/// What an attribute's value keeps in its slot: a number `sortable_serialise`d, a text as
/// written, a point as a serialised `LatLongCoord`.
std::string slot_value(const cx_value &value);

/// A free-text field of an item.
enum class Field { title, keyword, description };

/// The within-item frequency one occurrence of a word adds in `field`: a title word weighs three
/// times a description word, a keyword's twice (chosen on CACM, docs/ranking.md).
Xapian::termcount field_wdf(Field field);

/// The boolean terms that say a word is in a field: each word and its stem (STEM_SOME, as in the
/// shared space) under the field's prefix, for `title:`.
struct FieldFilter {
    /// `prefix::title`.
    const std::string &prefix;
};

/// The filter terms of `field`; null for keywords, whose `keyword:` term is their whole text, and
/// for descriptions, which `XE` terms serve (`add_elsewhere_terms`).
const FieldFilter *field_filter(Field field);

/// Whether `term` is what a plain word's search reads for its word in the shared term space: a
/// stem (`Z`), or a word the term generator leaves unstemmed (one that begins with a digit, a CJK
/// n-gram). Every plain word of an item has exactly one.
bool is_match_term(const std::string &term);

/// The match term (`is_match_term`) of a word of the shared term space, lower-cased as the term
/// generator made it, in an item whose words `stemmer` stems.
std::string match_term_of(const std::string &word, const Xapian::Stem &stemmer);

/// A document's match terms with their within-item frequencies, in term order: taken before the
/// description is indexed, what `add_elsewhere_terms` compares with.
std::vector<std::pair<std::string, Xapian::termcount>> match_terms(const Xapian::Document &document);

/// Adds `prefix::elsewhere` of each of `before`'s match terms that the description did not add to
/// (its within-item frequency is what it was before the description was indexed).
void add_elsewhere_terms(Xapian::Document &document,
                         const std::vector<std::pair<std::string, Xapian::termcount>> &before);

/// Whether `term` is a word of the shared term space as the term generator placed it, with
/// positions: not a stem, a beginning or a boolean term.
bool is_shared_word(const std::string &term);

/// Removes the stems the term generator makes of CJK n-grams (`Z` and `ZS` terms): a query never
/// stems an n-gram, so they would only repeat the n-grams' postings.
void drop_cjk_stems(Xapian::Document &document);

/// Adds the beginnings of the document's words (`prefix::beginning`). Only word characters
/// outside the CJK ranges (whose words are n-grams already) begin words.
void add_word_beginnings(Xapian::Document &document);

/// Whether the index holds beginning terms for `word` (accents folded, lower-cased): it is
/// `shortest_beginning` to `longest_beginning` characters, each one that begins words.
bool is_indexed_beginning(const std::string &word);

/// The beginning term of `word`'s first `longest_beginning` characters, when `word` is longer and
/// the index holds one for them; empty otherwise.
std::string longest_beginning_term(const std::string &word);

/// Whether `word` (accents folded, lower-cased) is one word of characters that begin words: the
/// indexer made it one term, and its expansions are the terms it begins.
bool is_plain_word(const std::string &word);

/// The raw-line term of a line digest.
std::string line_term(uint64_t digest);

/// The unique-id term of (domain, identifier).
std::string unique_term(const std::string &domain, const std::string &identifier);

/// The keyword term of a keyword: accents folded, lower-cased, bounded.
std::string keyword_term(const std::string &keyword);

/// The schema term: lower-cased, bounded.
std::string schema_term(const std::string &schema);

/// The expiration of a document, in epoch ms (`never_ms` for none).
double document_expiration(const Xapian::Document &document);

/// Items past which a term's posting list spans several chunks of the posting table (a chunk holds
/// about 2,000 bytes, an item's entry at least one).
constexpr Xapian::doccount chunked_postings = 1000;

/// Calls `body(term, frequency)` with each term of `reader` that begins with `start`, in byte
/// order. Xapian's iterator over the terms steps over the keys of every chunk of each posting
/// list: past a term many items hold it jumps instead (`skip_to`), so that listing the 6
/// languages of 1,000,000 items reads 0.01 ms rather than 0.3 ms of the index, and the words a
/// prefix begins about half.
template <typename Body> void each_term(const Xapian::Database &reader, const std::string &start, Body body) {
    const Xapian::TermIterator end = reader.allterms_end(start);
    for (Xapian::TermIterator it = reader.allterms_begin(start); it != end;) {
        const std::string term = *it;
        const Xapian::doccount frequency = it.get_termfreq();
        body(term, frequency);
        if (frequency > chunked_postings)
            it.skip_to(term + '\0');
        else
            ++it;
    }
}

}  // namespace cx
