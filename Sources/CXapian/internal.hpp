// Internal declarations shared by the shim's C++ files. Nothing here is visible to Swift.

#ifndef CXAPIAN_INTERNAL_HPP
#define CXAPIAN_INTERNAL_HPP

#include <xapian.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "CXapian.h"

namespace cx {
struct Snapshot;
}  // namespace cx

struct cx_database {
    std::string path;
    bool writable = false;
    bool closed = false;
    bool in_transaction = false;
    /// Opened from a topology (a stub file listing shards) or from a shard server. Searches then
    /// use only what Xapian serialises and a server knows, since a posting source of
    /// Searchlight's own would see each shard with its own document ids (and a server has none
    /// of them), and rank the same however the items are spread over the shards (search.cpp).
    bool sharded = false;
    /// Why searching this index is refused (another index format), or empty.
    std::string format_error;
    /// The database every read goes through; for a writable handle it shares `writer`'s internals.
    Xapian::Database reader;
    Xapian::WritableDatabase writer;
    /// A read-only handle's snapshot of the revision it has open (`cx::snapshot`).
    std::shared_ptr<cx::Snapshot> snapshot;
};

namespace cx {

// MARK: errors.cpp

/// Maps the exception being handled to a status, storing its message in `*out_error`.
/// Call only from inside a `catch` block.
cx_status status_from_current_exception(char **out_error);

/// Stores a copy of `message` in `*out_error` (when not NULL) and returns `status`.
cx_status fail(cx_status status, const std::string &message, char **out_error);

/// A `malloc`-ed copy of `bytes`, NUL-terminated; throws std::bad_alloc.
char *copy_bytes(const std::string &bytes);

inline std::string str(cx_text text) {
    return text.data == nullptr ? std::string() : std::string(text.data, text.length);
}

// MARK: schema.cpp — the one prefix table and the value slots

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
/// The words of the title, keywords and description share one unprefixed term space (formats 6
/// and 7).
inline const std::string text = "";
/// A title word or its stem (boolean, `S` as in omega): what `title:` filters by.
inline const std::string title = "S";
/// Format 6: a description word's stem (boolean), what `description:` filtered by. Formats 2 to 5
/// kept the description's words here with their weights and positions.
inline const std::string description = "XC";
/// A term of the item's words, as a plain word's search reads it (`is_match_term`), that is not in
/// its description (boolean): `description:w` is `w` less the items with `XE` of it. An item's
/// title and keywords hold few words its description lacks, so this takes a few terms an item
/// where the description's own words took dozens.
inline const std::string elsewhere = "XE";
/// Format 5 and before: keyword words (free text).
inline const std::string keyword_text = "XK";
/// The digest of the raw input line an item was read from, with the options it was read under
/// (boolean): present only while that line still yields exactly the stored item.
inline const std::string line = "XR";
/// The beginnings of the item's words, 3 to 4 characters long, each with the summed within-item
/// frequency of the words it begins (`add_word_beginnings`): an as-you-type word reads one posting
/// list instead of the union of every word it begins.
inline const std::string beginning = "XB";
}  // namespace prefix

namespace slot {
/// `sortable_serialise` of the expiration in epoch ms; absent for items that never expire, so that
/// the value stream holds only the items that can expire.
constexpr Xapian::valueno expiration = 0;
/// Formats 2 to 5: the original description, for snippets, which formats 6 and 7 make from the
/// item's data (`cx_results_make_snippet`) instead of keeping the description twice.
constexpr Xapian::valueno description = 1;
/// "1" for public items, "0" for private ones.
constexpr Xapian::valueno is_public = 2;
/// `content_digest` of the stored data: an item whose new data has the same digest is unchanged.
constexpr Xapian::valueno digest = 3;
/// The item's recorded views, in decimal; absent for none.
constexpr Xapian::valueno views = 4;
/// `sortable_serialise` of the views' ranking boost, from 0 to 1 (`view_boost`); absent for none,
/// so that the value stream holds only viewed items.
constexpr Xapian::valueno view_boost = 5;
}  // namespace slot

/// The views an item's document records (0 for none).
int64_t document_views(const Xapian::Document &document);

/// Sets a document's recorded views and their ranking boost (both removed for 0).
void set_document_views(Xapian::Document &document, int64_t views);

/// The ranking boost of `views`, from 0 to 1: ln(1 + views) / ln(1 + 1000), at most 1.
double view_boost(int64_t views);

/// The index format this shim writes, kept in the database's metadata under `format_key`.
///
/// Format 7 indexes the words of every field once, in one unprefixed term space, each occurrence
/// adding its field's weight to the word's within-item frequency (`field_wdf`), as BM25F does:
/// every word has one document frequency, and one posting list to read. `S` terms (boolean) say
/// which words are in the title; `XE` terms which of the item's words are not in its description
/// (`add_elsewhere_terms`), far fewer than the description's own words; one set of word
/// beginnings serves as-you-type.
///
/// Format 6 had the same term space and said which words are in the description with a boolean
/// `XC` term for each (`Layout::shared_with_description_terms`). Formats 2 to 5 kept each field in
/// a term space of its own (title words unprefixed, `XK`, `XC`), with further terms for their
/// searches (`Layout::per_field`). Both are still searched through their own terms, and never
/// written: a writer rebuilds them into format 7 first (`cx_database_upgrade`).
inline const std::string format_key = "searchlight.format";
inline const std::string format = "7";

/// How an index lays out its words.
enum class Layout {
    /// Format 7: one term space for every field, `XE` for the words not in the description.
    shared,
    /// Format 6: one term space for every field, `XC` for the description's words.
    shared_with_description_terms,
    /// Formats 2 to 5: a term space per field.
    per_field,
    /// Format 1, or one this shim does not know.
    unknown,
};

/// Whether `layout` keeps every field's words in one term space (formats 6 and 7).
inline bool is_one_term_space(Layout layout) {
    return layout == Layout::shared || layout == Layout::shared_with_description_terms;
}

/// The layout of an index whose metadata records `recorded` (format 1 records nothing; an empty
/// index takes the current format with its first items).
Layout layout_of(const std::string &recorded);

struct DocumentBits;
struct ViewBoosts;
struct SpellingWords;

/// One revision of an index as its searches see it: its layout, and what they read once and
/// reuse, each on first need: the items a domain may see (visibility.cpp), the recorded views'
/// boosts (views.cpp) and the spelling table's words (spelling.cpp).
///
/// A read-only handle of one database keeps the snapshot of the revision it has open until it
/// moves to another (`snapshot`). A writer's reader sees its uncommitted changes, and a
/// topology's shards have no one revision to key it by: each of their searches takes a snapshot
/// of its own, which nothing keeps.
struct Snapshot {
    Xapian::rev revision = 0;
    Layout layout = Layout::shared;
    /// The items a search may see, by the domain whose private items it sees ("" for none), for
    /// at most `visible_domains` domains (each is one bit per document).
    std::unordered_map<std::string, std::shared_ptr<const DocumentBits>> visible;
    static constexpr size_t visible_domains = 16;
    std::shared_ptr<const ViewBoosts> views;
    std::shared_ptr<const SpellingWords> spelling;
};

/// The snapshot of the revision `database` reads (see `Snapshot`). An index without items records
/// no format yet, and is read as the current format.
std::shared_ptr<Snapshot> snapshot(cx_database &database);

/// The metadata key under which format 5 recorded its common words; gone after an upgrade.
inline const std::string common_words_key = "searchlight.common";

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

/// A free-text field of an item.
enum class Field { title, keyword, description };

/// The within-item frequency one occurrence of a word adds in `field`: a title word weighs three
/// times a description word, a keyword's twice (chosen on CACM, docs/ranking.md).
Xapian::termcount field_wdf(Field field);

/// The boolean terms that say a word is in a field, for `title:` (formats 6 and 7) and
/// `description:` (format 6).
struct FieldFilter {
    /// `prefix::title` or `prefix::description`.
    const std::string &prefix;
    /// Whether the terms are the words' stems alone (Xapian's STEM_ALL: every word, digits and
    /// CJK n-grams included, through the English stemmer, without a `Z`), rather than each word
    /// and its stem (STEM_SOME, as in the shared space). Format 6's description filter: a
    /// description's stems, where a title's words stay whole (the spelling data is drawn from
    /// them).
    bool stems_only;
};

/// The filter terms of `field` in an index of `layout`; null for keywords, whose `keyword:` term is
/// their whole text, and for format 7's descriptions, which `XE` terms serve
/// (`add_elsewhere_terms`).
const FieldFilter *field_filter(Field field, Layout layout = Layout::shared);

/// Whether `term` is what a plain word's search reads for its word in the shared term space: a
/// stem (`Z`), or a word the term generator leaves unstemmed (one that begins with a digit, a CJK
/// n-gram). Every plain word of an item has exactly one.
bool is_match_term(const std::string &term);

/// The match term (`is_match_term`) of a word of the shared term space, lower-cased as the term
/// generator made it.
std::string match_term_of(const std::string &word);

/// A document's match terms with their within-item frequencies, in term order: taken before the
/// description is indexed, what `add_elsewhere_terms` compares with.
std::vector<std::pair<std::string, Xapian::termcount>> match_terms(const Xapian::Document &document);

/// Adds `prefix::elsewhere` of each of `before`'s match terms that the description did not add to
/// (its within-item frequency is what it was before the description was indexed).
void add_elsewhere_terms(Xapian::Document &document,
                         const std::vector<std::pair<std::string, Xapian::termcount>> &before);

/// The stem a `FieldFilter` with `stems_only` keeps for `word` (lower-cased, as the term
/// generator made it).
std::string filter_stem(const std::string &word);

/// Whether `term` is a word of the shared term space (formats 6 and 7) as the term generator placed
/// it, with positions: not a stem, a beginning or a boolean term.
bool is_shared_word(const std::string &term);

/// Removes the stems the term generator makes of CJK n-grams (`Z` and `ZS` terms): a query never
/// stems an n-gram, so they would only repeat the n-grams' postings.
void drop_cjk_stems(Xapian::Document &document);

/// Adds the beginnings of the document's words (`prefix::beginning`). Only word characters
/// outside the CJK ranges (whose words are n-grams already) begin words.
void add_word_beginnings(Xapian::Document &document);

/// `document`, of an index in the earlier layout `from`, as format 7 lays it out. From formats 2
/// to 5: each field's words and stems merged into the shared space, their frequencies summed and
/// their positions kept (fields are 100 positions apart in every format), and the earlier formats'
/// own terms dropped. From format 6: the description's `XC` terms dropped. Then the `XE` terms and
/// the beginnings are added: the result has the terms `make_document` gives the same item.
Xapian::Document upgraded_document(const Xapian::Document &document, Layout from);

/// Whether the index holds beginning terms for `word` (accents folded, lower-cased): it is
/// `shortest_beginning` to `longest_beginning` characters, each one that begins words.
bool is_indexed_beginning(const std::string &word);

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
// MARK: text.cpp

/// Folds Latin accents and ligatures to ASCII, keeping case and every other character.
std::string fold_accents(const std::string &text);

/// Folds accents and lower-cases.
std::string fold_lower(const std::string &text);

// MARK: snippet.cpp

/// What a snippet highlights: plain words, stems (without their `Z`), and prefixes typed as-you-type.
struct Highlighter {
    std::vector<std::string> words;
    std::vector<std::string> stems;
    std::vector<std::string> prefixes;
    Xapian::Stem stemmer{"english"};

    bool matches(const std::string &folded_lower_word) const;
};

/// A description's text around its first match, and the matched words in it.
struct Snippet {
    /// Plain text; an ellipsis (U+2026) stands where the description was cut.
    std::string text;
    /// Byte ranges of the matches inside `text`, in order, adjacent ones merged.
    std::vector<cx_range> matches;
};

/// The description around the first match, at most `max_chars` characters of it.
Snippet make_snippet(const std::string &text, const Highlighter &highlighter, size_t max_chars = 200);

// MARK: query.cpp

/// A Xapian query built from the Kit's query tree, with what searching needs to know about it.
struct BuiltQuery {
    Xapian::Query query;
    /// The tree was the empty query: every item, each scored 100.
    bool matches_everything = false;
    /// What the query's positive words highlight in descriptions.
    Highlighter highlighter;
    /// A word that spelling correction may replace: its pre-order node index, its folded text, and
    /// the terms it matches.
    struct Spellable {
        uint32_t node;
        std::string word;
        Xapian::Query query;
    };
    std::vector<Spellable> spellable;
};

/// Builds the query. Throws Xapian::InvalidArgumentError for a malformed tree.
///
/// With `expand_here`, a prefix is expanded to the words it begins in `database` as a whole,
/// rather than by the matcher in each of its shards, whose expansions (and so scores) would
/// differ from one shard to the next.
///
/// With `relaxed`, the plain words of the root (the words the query joins without an explicit
/// operator) match when any of them does, rather than all: the items with more of them score
/// more. Every other part of the query stays as exact as without.
BuiltQuery build_query(const Xapian::Database &database, Layout layout, const cx_query_node *nodes, size_t count,
                       bool expand_here = false, bool relaxed = false);

/// Whether `relaxed` changes what the query tree `nodes` matches: its root joins two plain words
/// or more without an explicit operator.
bool can_relax(const cx_query_node *nodes, size_t count);

// MARK: visibility.cpp

/// `query` limited to the items `request`'s domain and scope may see, as `snapshot` holds them.
Xapian::Query visible_only(cx_database &database, Snapshot &snapshot, const cx_search_request &request,
                           const Xapian::Query &query);

/// `query` limited to what `request` may see (`visible_only`) and to items not expired at its time.
Xapian::Query visible_now(cx_database &database, Snapshot &snapshot, const cx_search_request &request,
                          const Xapian::Query &query);

// MARK: spelling.cpp

/// Whether `query` matches an item `request` may see, now.
bool matches_visible_item(cx_database &database, Snapshot &snapshot, const cx_search_request &request,
                          const Xapian::Query &query);

/// The spelling correction of `word` (folded) for `request`: the nearest word of the spelling
/// table that occurs in an item the request may see, or empty.
std::string visible_suggestion(cx_database &database, Snapshot &snapshot, const cx_search_request &request,
                               const std::string &word);

// MARK: search.cpp

/// BM25's `k1` and `b` for every search: 1.2 and 0.5, the values that ranked best on CACM
/// (docs/ranking.md); Xapian's defaults are 1 and 0.5.
constexpr double bm25_k1 = 1.2;
constexpr double bm25_b = 0.5;

/// The weighting every search uses: BM25 with `bm25_k1` and `bm25_b`, Xapian's defaults otherwise.
Xapian::BM25Weight weighting();

/// What a term found in `frequency` of `items` items adds to the score of an item of average
/// length under `weighting()`, with `wdf` occurrences' worth of within-item frequency.
double term_weight(double items, double frequency, double wdf);

// MARK: views.cpp

/// A posting source over the viewed items, weighing each by its boost (`view_boost`), as
/// `snapshot` holds them.
Xapian::Query view_boosts(cx_database &database, Snapshot &snapshot);

// MARK: write.cpp

/// A term generator as the indexer uses it: English stems, CJK n-grams. Spelling data is added
/// by the writer (`add_spelling`), so that documents can be built on another thread.
Xapian::TermGenerator make_generator();

/// Builds the document for one item; `unique` is its unique-id term.
Xapian::Document make_document(Xapian::TermGenerator &generator, const cx_item &item, const std::string &unique);

/// Whether `item` would store exactly what `stored` holds: the same data, and the same views when
/// the item gives them.
bool stores_the_same(const Xapian::Document &stored, const cx_item &item);

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

/// `CX_ERR_INVALID_ARGUMENT` for a NULL, closed or read-only handle, else `CX_OK`.
cx_status require_writable(cx_database *database, char **out_error);

// MARK: read.cpp — shared by every reading entry point

/// `CX_ERR_INVALID_ARGUMENT` for a NULL or closed handle, else `CX_OK`.
cx_status require_open(cx_database *database, char **out_error);

/// Runs `body`, and when a writer's commits have overtaken this reader, reopens at the latest
/// revision and runs it again, until it succeeds: a search never fails because of a write.
///
/// Xapian reports an overtaken reader as DatabaseModifiedError, or, when the reader reads a block
/// while the writer is rewriting it, as damage (DatabaseCorruptError, "Expected block 71 to be
/// level 1"). Damage is retried only on a read-only handle whose reopening finds a newer revision,
/// and only a few times: damage that stays at one revision is reported. After the first few tries
/// it waits a little longer each time (up to 20 ms), so that a reader outpaced by a stream of
/// commits gets a window between two of them. Every other exception becomes a status.
template <typename Body>
cx_status with_retries(cx_database *database, char **out_error, Body body) {
    constexpr int most_damage_retries = 8;
    int damage_retries = 0;
    for (int attempt = 0;; ++attempt) {
        try {
            body();
            return CX_OK;
        } catch (const Xapian::DatabaseModifiedError &) {
        } catch (const Xapian::DatabaseCorruptError &) {
            bool moved = false;
            if (!database->writable && damage_retries++ < most_damage_retries) {
                try {
                    moved = database->reader.reopen();
                } catch (...) {
                }
            }
            // Still handling the damage: reports it unless a newer revision may not have it.
            if (!moved) return status_from_current_exception(out_error);
            continue;
        } catch (...) {
            return status_from_current_exception(out_error);
        }
        try {
            if (attempt >= 3) std::this_thread::sleep_for(std::chrono::milliseconds(std::min(attempt - 2, 20)));
            database->reader.reopen();
        } catch (const Xapian::DatabaseModifiedError &) {
            // Overtaken again while reopening: the next try reopens again.
        } catch (...) {
            return status_from_current_exception(out_error);
        }
    }
}

}  // namespace cx

#endif  // CXAPIAN_INTERNAL_HPP
