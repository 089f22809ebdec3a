// CXapian.h — a coarse C API over Xapian for Searchlight.
//
// The API is shaped by the product, not by Xapian's classes: open an index, write items in a
// transaction, delete by identifiers, domain, mode or expiry, search, and read everything back.
// C++ stays inside: no C++ exception ever crosses these functions. Each returns a `cx_status`
// and, on failure, may store a `malloc`-ed message in `*out_error`, which the caller frees with
// `cx_string_free`.
//
// Strings are passed as `cx_text` (pointer and length, UTF-8, not necessarily NUL-terminated) so
// that text holding NUL characters survives the boundary.

#ifndef CXAPIAN_H
#define CXAPIAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if !__has_feature(nullability)
#define _Nonnull
#define _Nullable
#endif

#ifdef __cplusplus
extern "C" {
#endif

#pragma clang assume_nonnull begin

/// The outcome of a call. `CX_OK` is zero; every failure is a distinct value.
typedef enum cx_status : int32_t {
    CX_OK = 0,
    /// Another process holds the database's write lock (Xapian::DatabaseLockError).
    CX_ERR_LOCKED = 1,
    /// The database does not exist or cannot be opened (Xapian::DatabaseOpeningError and
    /// DatabaseNotFoundError).
    CX_ERR_OPENING = 2,
    /// The database is damaged (Xapian::DatabaseCorruptError).
    CX_ERR_CORRUPT = 3,
    /// The database changed under a reader more often than retries could absorb
    /// (Xapian::DatabaseModifiedError).
    CX_ERR_MODIFIED = 4,
    /// The query could not be parsed (Xapian::QueryParserError, WildcardError).
    CX_ERR_QUERY = 5,
    /// An argument was invalid (Xapian::InvalidArgumentError, InvalidOperationError, or NULL).
    CX_ERR_INVALID_ARGUMENT = 6,
    /// Memory ran out (std::bad_alloc).
    CX_ERR_NO_MEMORY = 7,
    /// Reading or writing the database failed, e.g. the disk is full (Xapian::DatabaseError).
    CX_ERR_IO = 8,
    /// The requested item is not in the index.
    CX_ERR_NOT_FOUND = 9,
    /// A remote database could not be reached (Xapian::NetworkError).
    CX_ERR_NETWORK = 10,
    /// The database format is not supported (Xapian::DatabaseVersionError).
    CX_ERR_VERSION = 11,
    /// The index is of an earlier format, which its next writer rebuilds into the current one: its
    /// items are read (get, export), but it is not searched until then.
    CX_ERR_EARLIER_FORMAT = 12,
    /// Any other failure, including non-Xapian exceptions.
    CX_ERR_UNKNOWN = 99,
} cx_status;

/// A run of UTF-8 bytes that the callee does not own. `data` may be NULL when `length` is 0.
typedef struct cx_text {
    const char *_Nullable data;
    size_t length;
} cx_text;

/// An open Xapian database: read-only (any path Xapian opens, including stub files listing
/// shards or a `remote` line) or writable (a local directory, holding Xapian's write lock).
///
/// Threads: a handle is used by one thread at a time, like Xapian's own objects; different
/// handles, of the same index or not, may be used from different threads at once (the service
/// gives each reader thread a handle of its own). The shim starts no thread of its own: the Kit
/// decides which work runs in parallel, on its threads.
typedef struct cx_database cx_database;

/// The results of one search. Owned by the caller; one thread at a time, as its database.
typedef struct cx_results cx_results;

/// A forward cursor over every stored item. One thread at a time, as its database, which must
/// stay open while the cursor lives.
typedef struct cx_cursor cx_cursor;

/// How to open a database.
typedef enum cx_open_mode : int32_t {
    /// Read-only: `Xapian::Database(path)`. Fails with `CX_ERR_OPENING` when nothing is there.
    CX_OPEN_READ = 0,
    /// Writable, created when missing: `Xapian::WritableDatabase(path, DB_CREATE_OR_OPEN)`.
    /// Fails at once with `CX_ERR_LOCKED` when another writer holds the lock.
    CX_OPEN_WRITE = 1,
} cx_open_mode;

/// The value slots the shim itself fills; an item's attributes (`cx_value`) take slots from
/// `CX_SLOT_FIRST_ATTRIBUTE` up, as the Kit assigns them.
typedef enum cx_slot : uint32_t {
    /// The expiration (sortable), absent for items that never expire.
    CX_SLOT_EXPIRATION = 0,
    /// The item's vector of meaning (`cx_database_set_meaning`); absent until one is stored.
    CX_SLOT_MEANING = 1,
    /// The recorded views (sortable), absent for none.
    CX_SLOT_VIEWS = 6,
    CX_SLOT_FIRST_ATTRIBUTE = 7,
    /// What a sort key names for the relevance order (`cx_sort_key`).
    CX_SLOT_RELEVANCE = 0xFFFFFFFF,
} cx_slot;

/// How an attribute's value is kept (format 8).
typedef enum cx_value_kind : int32_t {
    /// `number` (a price, a rating, a date in epoch ms), sortable: what ranges, sorts and numeric
    /// counts read.
    CX_VALUE_NUMBER = 0,
    /// `text` as written, which counts read, and a filter term of it, case- and
    /// accent-insensitive, which exact filters read.
    CX_VALUE_TEXT = 1,
    /// A point: latitude `number`, longitude `second`, in degrees; what `CX_NODE_NEAR` reads.
    CX_VALUE_POINT = 2,
} cx_value_kind;

/// One attribute of an item, in its value slot.
typedef struct cx_value {
    uint32_t slot;
    cx_value_kind kind;
    double number;
    double second;
    cx_text text;
} cx_value;

/// One item to store. Every `cx_text` is borrowed for the duration of the call.
typedef struct cx_item {
    cx_text domain;
    cx_text identifier;
    cx_text title;
    cx_text description;
    /// The content schema, e.g. `COMMERCE_PRODUCT`; may be empty.
    cx_text schema;
    /// The item's JSON object, less the keys `moved` names; searches, `cx_database_get` and cursors
    /// return it with them put back.
    cx_text data;
    const cx_text *_Nullable keywords;
    size_t keyword_count;
    bool is_public;
    /// Epoch milliseconds after which the item no longer exists; 0 means never.
    int64_t expiration_ms;
    /// The digest of the raw input line the item was decoded from, salted with the options that
    /// shaped it, when the item depends on nothing else (not on the clock); 0 for none. Lets a
    /// later run recognize the same line without decoding it (`cx_database_find_lines`).
    uint64_t line_digest;
    /// The item's recorded views as an export gave them, or -1: a replaced item then keeps the
    /// count stored for it (views survive re-indexing).
    int64_t views;
    /// The absolute path of the file the item was read from, or empty (standard input, a request,
    /// the API). Items are found by it (`cx_database_sources`, `cx_database_delete_source`), and
    /// `cx_database_get` and cursors give it back.
    cx_text source;
    /// The item's attributes, each in a slot of its own (at most one value a slot).
    const cx_value *_Nullable values;
    size_t value_count;
    /// The attributes whose keys `data` leaves out, one bit a slot from `CX_SLOT_FIRST_ATTRIBUTE`
    /// up: each the slot of a field `given_back` (`cx_item_fields`), with a value in `values` that
    /// gives the key's value back exactly (a number as `sortable_serialise` keeps it, written as an
    /// integer when it is one below 9e15; a text as written). The stored data carries those values
    /// compactly in place of the keys.
    uint32_t moved;
    /// The document id a new item is stored at, or 0 for the next one (Xapian's own): the writer of
    /// a topology gives each new item the id one index of the same items would give it, on the
    /// shard Xapian reads that id from (`cx_database_find_documents`). Ignored for an item already
    /// stored, which keeps its id. Must be past the database's last id. In a bulk build
    /// (`cx_bulk_add`), the id its segment stores it at, a stored item's new version included, for
    /// a merge that keeps every id (`cx_bulk_merge` with `keep_ids`).
    uint32_t document_id;
} cx_item;

// MARK: - An item's fields

/// What a field's JSON value is.
typedef enum cx_json_type : int32_t {
    /// A string.
    CX_JSON_TEXT = 0,
    /// A number, or a string that is one.
    CX_JSON_NUMBER = 1,
    /// Epoch milliseconds, a number or a numeric string; 0 or less for none.
    CX_JSON_DATE = 2,
    /// `true`/`false`, a number, `"1"`/`"0"`, `"YES"`/`"NO"`.
    CX_JSON_BOOL = 3,
    /// An array of strings, or one string.
    CX_JSON_TEXTS = 4,
    /// `public`/`private`, or the SDK's `ContentIndexModePublic`/`ContentIndexModePrivate`.
    CX_JSON_MODE = 5,
    /// A whole number, 0 or more.
    CX_JSON_COUNT = 6,
} cx_json_type;

/// How the index keeps a field beside the item's stored data.
typedef enum cx_field_use : int32_t {
    /// Only in the stored data.
    CX_USE_STORED = 0,
    /// The item's identity within its domain: the unique-id term, and an identifier term.
    CX_USE_IDENTITY = 1,
    /// Free text: its words in the one term space (`cx_item.title`, `cx_item.description`).
    CX_USE_WORDS = 2,
    /// Keywords: their words, and each keyword whole as a `keyword:` term (`cx_item.keywords`).
    CX_USE_KEYWORDS = 3,
    /// Whether the item is public or private (`cx_item.is_public`).
    CX_USE_MODE = 4,
    /// An exact filter term: `schema:` (`cx_item.schema`).
    CX_USE_FILTER = 5,
    /// An attribute: a value in `slot` that ranges, sorts and counts read.
    CX_USE_ATTRIBUTE = 6,
} cx_field_use;

/// One field an item has. `cx_item_fields` is the one table of them, which the Kit's reader, its
/// Branch dictionary and its attributes read, and so does this shim's stored data.
typedef struct cx_item_field {
    /// The field's name: the SDK's property, and its camelCase key.
    const char *name;
    /// Its key in the Branch dictionary dialect (flat `$` keys); NULL where that dialect has none.
    const char *_Nullable branch_key;
    /// Its key in the camelCase dialect: top level, or under `contentMetadata` when `nested`.
    const char *camel_key;
    /// Another camelCase key the SDKs write for it, or NULL.
    const char *_Nullable camel_alias;
    bool nested;
    cx_json_type json;
    cx_field_use use;
    /// For an attribute: its name in the query language, `--sort` and `--facet`; else NULL.
    const char *_Nullable attribute;
    /// For an attribute: its value slot and how the value is kept.
    uint32_t slot;
    cx_value_kind kind;
    /// Whether the attribute's value gives the field's JSON value back exactly, so that an item's
    /// stored data leaves the key out (`cx_item.moved`) and reading puts it back.
    bool given_back;
} cx_item_field;

/// The table of every field an item has, `*out_count` rows, static: never freed.
const cx_item_field *cx_item_fields(size_t *out_count);

/// The language `text` is written in, as Compact Language Detector 2 tells it, among those whose
/// words Searchlight reads (Xapian's Snowball stemmers' languages, Chinese, Japanese, Korean): its
/// ISO 639-1 code written to `out_code` with a NUL, and its length; 0 (nothing written) when it
/// cannot tell, or `capacity` is too small (8 is enough). `host`, the host name the text is
/// published under (may be empty), hints by its country's domain (`.fr`), and `expected`, the ISO
/// 639-1 code of the language most texts are in (the index's default; may be empty), by its prior.
size_t cx_detect_language(cx_text text, cx_text host, cx_text expected, char *_Nullable out_code,
                          size_t capacity);

/// Loads the stop word lists of `folder`, for relaxed questions (`cx_search_request.relax`): a file
/// `<code>.txt` per language (its ISO 639-1 code, among the languages Searchlight stems), one word
/// per line in UTF-8, as `scripts/install-dependencies` writes Snowball's lists from Debian's
/// liblingua-stopwords-perl. Once per process: the first folder that holds a list is kept, and
/// later calls change nothing. Returns how many languages' lists are loaded; 0 when none is.
size_t cx_load_stop_words(cx_text folder);

/// What happened to one identifier in `cx_database_delete_items`.
typedef enum cx_removal : int32_t {
    CX_REMOVED = 0,
    CX_REMOVAL_NOT_FOUND = 1,
    CX_REMOVAL_REFUSED_PUBLIC = 2,
} cx_removal;

/// Which items a search may see, by index mode.
typedef enum cx_scope : int32_t {
    CX_SCOPE_ALL = 0,
    CX_SCOPE_PUBLIC = 1,
    CX_SCOPE_PRIVATE = 2,
} cx_scope;

/// What a query node is. The Kit parses the query language (docs/reference.md, *The query language*) and hands the shim a
/// tree; the shim only turns each piece of text into terms, as the indexer did.
typedef enum cx_node_kind : int32_t {
    /// Every item (the empty query). No text, no children.
    CX_NODE_ALL = 0,
    /// Items matching every child.
    CX_NODE_AND = 1,
    /// Items matching any child.
    CX_NODE_OR = 2,
    /// Items matching exactly one of two children.
    CX_NODE_XOR = 3,
    /// Items matching the first child and none of the others.
    CX_NODE_AND_NOT = 4,
    /// One word of free text in `field` (`CX_FIELD_ANY`, `TITLE` or `DESCRIPTION`): stemmed, folded.
    CX_NODE_WORD = 5,
    /// `word*`: every word of the field starting with `text` (the most frequent hundred).
    CX_NODE_PREFIX = 6,
    /// The query's last word, typed as the user types: the word itself, or any word it begins.
    CX_NODE_PARTIAL = 7,
    /// Words in this order, next to each other, in `field`.
    CX_NODE_PHRASE = 8,
    /// An exact filter: `field` is `CX_FIELD_KEYWORD`, `ID`, `SCHEMA`, `MODE` (text `public` or
    /// `private`) or `DOMAIN`; `text` is the value as written.
    CX_NODE_FILTER = 9,
    /// Items whose number in `slot` is between `low` and `high`, both included (either may be
    /// infinite); items without one do not match.
    CX_NODE_RANGE = 10,
    /// Items whose text in `slot` is `text`, case- and accent-insensitive.
    CX_NODE_ATTRIBUTE = 11,
    /// Items whose point in `slot` lies within `radius` metres of latitude `low`, longitude
    /// `high` (great-circle distance).
    CX_NODE_NEAR = 12,
} cx_node_kind;

/// Which part of an item a node looks at.
typedef enum cx_field : int32_t {
    /// The title, the keywords and the description (a plain word).
    CX_FIELD_ANY = 0,
    CX_FIELD_TITLE = 1,
    CX_FIELD_DESCRIPTION = 2,
    /// A whole keyword, case- and accent-insensitive.
    CX_FIELD_KEYWORD = 3,
    /// The canonical identifier, byte for byte.
    CX_FIELD_ID = 4,
    /// The content schema, case-insensitive.
    CX_FIELD_SCHEMA = 5,
    /// The index mode: `public` or `private`.
    CX_FIELD_MODE = 6,
    /// The domain, byte for byte.
    CX_FIELD_DOMAIN = 7,
} cx_field;

/// One node of a query tree. A tree is an array in pre-order: each node is followed by its
/// `child_count` subtrees. `text` is borrowed for the duration of the call.
typedef struct cx_query_node {
    cx_node_kind kind;
    cx_field field;
    cx_text text;
    uint32_t child_count;
    /// For `CX_NODE_RANGE`, `ATTRIBUTE` and `NEAR`: the value slot, and the numbers they read.
    uint32_t slot;
    double low;
    double high;
    double radius;
} cx_query_node;

/// One key of a search's order: the number in `slot` (items without one last, either way), or
/// relevance (`CX_SLOT_RELEVANCE`), or, with `distance`, the great-circle distance of the point in
/// `slot` from `latitude`, `longitude` (items without one last, either way). A distance key is
/// the only key beside relevance, and is refused across remote shards.
typedef struct cx_sort_key {
    uint32_t slot;
    bool descending;
    bool distance;
    double latitude;
    double longitude;
} cx_sort_key;

/// A count a search makes over all its matches: of each text in `slot`, or of each number.
typedef struct cx_facet_request {
    uint32_t slot;
    cx_value_kind kind;
} cx_facet_request;

/// A search. `domain` is the caller's domain: it sees that domain's private items and every
/// public item, unless `all_domains` is set.
typedef struct cx_search_request {
    /// The query tree, in pre-order (see `cx_query_node`); at least one node.
    const cx_query_node *_Nullable nodes;
    size_t node_count;
    cx_text domain;
    bool all_domains;
    cx_scope scope;
    int64_t now_ms;
    uint32_t offset;
    uint32_t limit;
    /// When no item the caller may see matches every plain word the query's root joins without
    /// an explicit operator, those words match when any of them does (the items with more of them
    /// first), and the results say so (`cx_results_relaxed`). Phrases, filters, exclusions and
    /// explicit operators stay exact.
    bool relax;
    /// The order of the results: these keys, then relevance, or relevance first and these keys
    /// breaking its ties when the first is `CX_SLOT_RELEVANCE`. None: by relevance.
    const cx_sort_key *_Nullable sort_keys;
    size_t sort_key_count;
    /// Counts over every match the caller may see (`cx_results_facet_count`); a search counting
    /// checks every match.
    const cx_facet_request *_Nullable facets;
    size_t facet_count;
    /// The handle searches again and again (a service's reader). On a read-only handle on one
    /// database, counts then read each counted attribute from a column kept in memory (4 bytes an
    /// item for a text, 8 for a number), and a page sorted by a number first is sorted from only
    /// the matches whose value can reach it, by the number's ranks kept in memory (when fewer
    /// than the page pass, from every match; the count past a thousand beyond the page is then
    /// estimated from those that passed). Each is built from the attribute's value stream the
    /// first time it is needed at a revision, and shared with every handle of the process on the
    /// same database; building costs a few times one count or sort, so a command searching once
    /// is better without.
    bool keep_fields_in_memory;
    /// The query's vector of meaning (`meaning_dimensions` floats of unit length), or NULL. With
    /// one, a ratio above 0, an order by relevance, and an index of one database holding vectors
    /// (`CX_SLOT_MEANING`), the results are ranked by words and meaning together (SPEC §2.4): the
    /// items the words match, and the items nearest in meaning (a cosine of at least 0.3) among
    /// those meaning considers: with `meaning_finds`, the query's selection (the query less the
    /// plain words of its root: phrases stay), else the words' matches. An item the words do not
    /// match is found by meaning alone only when it stands out of the query's closeness to the
    /// items considered (at least 0.3 nearer than their mean, ten unrelated items of similarity 0
    /// counted in), and is then counted in the total.
    /// Each result is scored (1 - r) × its words' percent / 100 + r × its nearness, the cosine
    /// scaled from 0.15 (0) to 0.6 (1) for one of the nearest and 0 otherwise, r being
    /// `semantic_ratio`; its percent is that score × 100, at most 100, never scaled to the page's
    /// best. Equal scores are ordered as the words order them, then by storage. Counts (`facets`) are
    /// of the words' matches. Each result says what found it (`cx_result::matched_by`).
    const float *_Nullable meaning;
    uint32_t meaning_dimensions;
    /// From 0 (words only) to 1 (meaning only).
    double semantic_ratio;
    /// Meaning may find items the words do not match: the query is free text alone (words and
    /// phrases side by side, no operator, exclusion, field or filter; SPEC §2.4).
    bool meaning_finds;
    /// Whether a plain word of 5 letters or more also matches the index's words a typo or two
    /// from it, the first letter kept (SPEC §2.1); numbers, identifiers, phrases and field words
    /// match exactly. Not over shards.
    bool typos;
    /// The languages the query is read in, ISO 639 codes separated by commas (`fr,de`); empty:
    /// those of the items the search may see (SPEC §2.5).
    cx_text languages;
} cx_search_request;

/// A run of bytes inside a text: `offset` and `length` in bytes.
typedef struct cx_range {
    uint32_t offset;
    uint32_t length;
} cx_range;

/// Counts over the whole database.
typedef struct cx_stats {
    uint64_t documents;
    uint64_t public_count;
    uint64_t private_count;
    uint64_t expired_count;
} cx_stats;

// MARK: - Strings

/// Frees a string returned through an `out_error` or an owned `cx_text`. Accepts NULL.
void cx_string_free(char *_Nullable string);

// MARK: - Opening and closing

/// Functions taking a database, request or cursor accept NULL and return
/// `CX_ERR_INVALID_ARGUMENT` for it, as they do for a handle already closed.

/// Opens the database at `path` (a NUL-terminated file-system path).
///
/// On success `*out` owns a new handle, freed with `cx_database_free`.
/// Returns `CX_ERR_LOCKED`, `CX_ERR_OPENING`, `CX_ERR_CORRUPT`, `CX_ERR_VERSION`, `CX_ERR_IO`,
/// `CX_ERR_NETWORK` or `CX_ERR_INVALID_ARGUMENT`.
cx_status cx_database_open(const char *_Nullable path, cx_open_mode mode, cx_database *_Nullable *_Nonnull out,
                           char *_Nullable *_Nullable out_error);

/// Opens the database that `xapian-tcpsrv` serves at `host` and `port`, read-only, waiting up to
/// `timeout_ms` to connect and for each answer.
///
/// Returns `CX_ERR_NETWORK` when the server cannot be reached or answers late, and what
/// `cx_database_open` returns for what the server reports.
cx_status cx_database_open_remote(const char *_Nullable host, uint16_t port, uint32_t timeout_ms,
                                  cx_database *_Nullable *_Nonnull out, char *_Nullable *_Nullable out_error);

/// One shard of a topology: a local database's `folder`, or else the `host` and `port` of the
/// `xapian-tcpsrv` serving it, and the local folder of a copy of its vectors of meaning
/// (`cx_database_keep_meaning_copy`), or NULL.
typedef struct cx_shard {
    const char *_Nullable folder;
    const char *_Nullable host;
    uint16_t port;
    const char *_Nullable meaning_copy;
} cx_shard;

/// Opens a read-only *view* of `count` shards searched as one database, named `name` in messages:
/// each shard stays readable on its own through the view (`cx_database_shard_metadata`), at the
/// revision the view reads. A view reopens only when asked (`cx_database_reopen`, every shard at
/// its latest revision); a commit that overtakes it is reported as `CX_ERR_MODIFIED`, never read
/// past. Remote shards are waited for up to `timeout_ms`. Returns what `cx_database_open` and
/// `cx_database_open_remote` return.
///
/// When every shard names a vectors copy (`meaning_copy`), the view ranks by meaning over the
/// copies, opened beside the shards and reopened with them: a search by meaning and
/// `cx_search_similar` then answer as over local shards. Two copies of one database (the same
/// UUID) are refused with `CX_ERR_INVALID_ARGUMENT`.
cx_status cx_database_open_shards(const char *_Nullable name, const cx_shard *_Nullable shards, size_t count,
                                  uint32_t timeout_ms, cx_database *_Nullable *_Nonnull out,
                                  char *_Nullable *_Nullable out_error);

/// Each shard's record under `key`, in the view's order, then each vectors copy's, joined by
/// newlines: a `malloc`-ed string for the caller to free. `CX_ERR_INVALID_ARGUMENT` for a handle
/// that is not a view of shards.
cx_status cx_database_shard_metadata(cx_database *_Nullable database, cx_text key,
                                     char *_Nullable *_Nonnull out_values, char *_Nullable *_Nullable out_error);

/// Makes writable shard `database` keep a copy of its vectors of meaning in the database at
/// `path` (created when missing): one small document an item that has a vector, at its document id,
/// holding its vector, its expiration and the terms that say which item it is and who may see it,
/// and the shard's batch number (`searchlight.batch`). The copy is brought up to date now (every
/// item compared, unless it holds the shard's revision already) and follows each commit by the
/// items it wrote; a copy that failed to follow a commit is compared whole at the next. A shard
/// that has no vector gets no copy until it has one. Shard machines' search services read it
/// through `xapian-replicate` (`cx_shard::meaning_copy`).
cx_status cx_database_keep_meaning_copy(cx_database *_Nullable database, const char *_Nullable path,
                                        char *_Nullable *_Nullable out_error);

/// Closes the database, committing nothing that was not committed: a transaction still open is
/// abandoned. Returns `CX_ERR_IO` if Xapian reports a failure while closing. The handle must
/// still be freed.
cx_status cx_database_close(cx_database *_Nullable database, char *_Nullable *_Nullable out_error);

/// Frees the handle, closing it first if needed (errors are discarded). Accepts NULL.
void cx_database_free(cx_database *_Nullable database);

/// Re-opens a read-only database at its latest revision. Returns `CX_ERR_IO` or
/// `CX_ERR_CORRUPT` on failure.
cx_status cx_database_reopen(cx_database *_Nullable database, char *_Nullable *_Nullable out_error);

/// Writes a compacted copy of the database's last commit to the folder `destination` (a
/// NUL-terminated path that must not exist yet): the same documents (renumbered without gaps),
/// values, spelling data and metadata, with the space of deleted and replaced documents reclaimed. The
/// handle (and a writer's lock) is left as it is. Returns `CX_ERR_INVALID_ARGUMENT` while a
/// transaction is open, `CX_ERR_IO` (for example, the disk is full; `destination` may then hold a
/// partial copy for the caller to remove), or `CX_ERR_OPENING`.
cx_status cx_database_compact(cx_database *_Nullable database, const char *_Nullable destination,
                              char *_Nullable *_Nullable out_error);

/// The index format this version writes: `"9"`.
const char *cx_current_format(void);

/// The index format the database records (the current one for an empty index), in a `malloc`-ed string for
/// the caller to free. Formats 2 to 8 are read (get, export) but not searched: their next writer
/// rebuilds them into the current format from their stored items (the Kit's upgrade).
cx_status cx_database_format(cx_database *_Nullable database, char *_Nullable *_Nonnull out_format,
                             char *_Nullable *_Nullable out_error);

/// Adds each item's attributes (`cx_item.values`) to the document stored for its domain and
/// identifier, which keeps everything else, its data included; an item not stored is skipped.
/// For a custom field added to an index whose items are stored already.
cx_status cx_database_add_attributes(cx_database *_Nullable database, const cx_item *_Nullable items, size_t count,
                                     char *_Nullable *_Nullable out_error);

/// Removes every item's value in `slot` (from `CX_SLOT_FIRST_ATTRIBUTE` up) and the filter terms of
/// its texts; `*out_count` is the number of items that held one. A writable handle: for a custom
/// field an index no longer has, whose slot another may take.
cx_status cx_database_clear_attribute(cx_database *_Nullable database, uint32_t slot, uint64_t *out_count,
                                      char *_Nullable *_Nullable out_error);

/// The index's own record under `key` (a `searchlight.` key the Kit keeps, such as its custom
/// fields), as stored: a `malloc`-ed string for the caller to free, empty when there is none.
cx_status cx_database_metadata(cx_database *_Nullable database, cx_text key, char *_Nullable *_Nonnull out_value,
                               char *_Nullable *_Nullable out_error);

/// Records `value` under `key` (empty removes it), with the transaction open if one is. A writable
/// handle; `key` must begin `searchlight.` and not be one the shim keeps itself (the format).
cx_status cx_database_set_metadata(cx_database *_Nullable database, cx_text key, cx_text value,
                                   char *_Nullable *_Nullable out_error);

/// Copies each record `from` holds under a key that begins with `prefix` (a `searchlight.` prefix
/// of records the Kit keeps, such as its client states) into `to`, a writable handle, with its
/// transaction if one is open. Neither handle is taken over.
cx_status cx_database_copy_metadata(cx_database *_Nullable to, cx_database *_Nullable from, cx_text prefix,
                                    char *_Nullable *_Nullable out_error);

/// True when the handle was opened with `CX_OPEN_WRITE`.
bool cx_database_is_writable(const cx_database *_Nullable database);

// MARK: - Transactions

/// Starts a flushed transaction: nothing written until `cx_database_commit` is visible to readers
/// or survives a crash. Returns `CX_ERR_INVALID_ARGUMENT` on a read-only handle or when a
/// transaction is already open.
cx_status cx_database_begin(cx_database *_Nullable database, char *_Nullable *_Nullable out_error);

/// Commits the open transaction to disk atomically. Returns `CX_ERR_IO` (for example, the disk
/// is full; the transaction is then abandoned and the database keeps its previous revision).
cx_status cx_database_commit(cx_database *_Nullable database, char *_Nullable *_Nullable out_error);

/// Abandons the open transaction. Accepts a handle without one.
cx_status cx_database_cancel(cx_database *_Nullable database, char *_Nullable *_Nullable out_error);

// MARK: - Writing

/// Documents built from items and not yet stored. Building them (term generation) needs no
/// database, so it may run on another thread while the writer stores earlier documents. Owned by
/// the caller, freed with `cx_documents_free`; one thread at a time.
typedef struct cx_documents cx_documents;

/// Marks in `out_unchanged` (one byte per item) each item stored already byte for byte as it
/// would be stored now and not expired at `now_ms`: 1, nothing of it needs rewriting; 2, the same
/// but read from another file (`cx_item.source`), to be stored again for that; 0 otherwise. The
/// same identity twice in one call counts as changed, so that the last occurrence wins.
/// Returns `CX_ERR_INVALID_ARGUMENT` on a read-only handle, or `CX_ERR_IO`.
cx_status cx_database_find_unchanged(cx_database *_Nullable database, const cx_item *items, size_t count,
                                     int64_t now_ms, uint8_t *out_unchanged, char *_Nullable *_Nullable out_error);

/// The document id of each item's stored version (by its domain and identifier; the other fields
/// are not read), 0 for none, in `out_documents`; and the database's last document id ever used
/// in `out_last`. A writable handle sees its own uncommitted writes.
cx_status cx_database_find_documents(cx_database *_Nullable database, const cx_item *items, size_t count,
                                     uint32_t *out_documents, uint32_t *out_last, char *_Nullable *_Nullable out_error);

/// Builds the documents of `count` items, on the calling thread. Touches no database: any thread
/// may call it, at the same time as a writer stores other documents. On success `*out` owns them.
cx_status cx_documents_build(const cx_item *items, size_t count, cx_documents *_Nullable *_Nonnull out,
                             char *_Nullable *_Nullable out_error);

/// Stores the documents `cx_documents_build` built from the same `count` items, replacing any
/// item with the same (domain, identifier). An item whose expiration is at or before `now_ms` is
/// not stored; any stored version is deleted instead. An item's recorded views are kept unless it
/// gives its own. `out_outcomes`, when not NULL, receives one value per item: 0 added,
/// 1 replaced, 2 expired. Returns `CX_ERR_INVALID_ARGUMENT` on a read-only handle or documents
/// not built from `count` items, or `CX_ERR_IO`.
cx_status cx_database_store_documents(cx_database *_Nullable database, cx_documents *documents, const cx_item *items,
                                      size_t count, int64_t now_ms, int32_t *_Nullable out_outcomes,
                                      char *_Nullable *_Nullable out_error);

/// Frees built documents. Accepts NULL.
void cx_documents_free(cx_documents *_Nullable documents);

/// For each line digest, the stored item that carries it and has not expired at `now_ms`: that
/// line, read under the same options, would store exactly that item again. `out_documents`
/// receives one Xapian document id per digest, 0 for none. Works on read-only and writable
/// handles (a writable one sees its own uncommitted writes).
cx_status cx_database_find_lines(cx_database *_Nullable database, const uint64_t *digests, size_t count, int64_t now_ms,
                                 uint32_t *out_documents, char *_Nullable *_Nullable out_error);

/// Records one view of each identified item: the item of `domain`, or else a public item of any
/// domain with that identifier, that has not expired at `now_ms`. `out_outcomes` receives one
/// value per identifier: 1 recorded, 0 no such visible item. Only the item's view values change.
cx_status cx_database_record_views(cx_database *_Nullable database, cx_text domain, const cx_text *identifiers,
                                   size_t count, int64_t now_ms, int32_t *out_outcomes,
                                   char *_Nullable *_Nullable out_error);

/// Deletes the items of `domain` with the given identifiers. Public items are refused unless
/// `include_public` is set. `out_outcomes` receives one `cx_removal` per identifier.
cx_status cx_database_delete_items(cx_database *_Nullable database, cx_text domain, const cx_text *identifiers, size_t count,
                                   bool include_public, int32_t *out_outcomes,
                                   char *_Nullable *_Nullable out_error);

/// Deletes the items read from the file `source` (`cx_item.source`), of any domain, except the
/// `keep_count` items named in `keep` by domain and identifier (the items the file holds now).
/// `out_removed` receives how many were deleted. Returns `CX_ERR_INVALID_ARGUMENT` on a read-only
/// handle, or `CX_ERR_IO`.
cx_status cx_database_delete_source(cx_database *_Nullable database, cx_text source, const cx_text *_Nullable keep_domains,
                                    const cx_text *_Nullable keep_identifiers, size_t keep_count, uint64_t *out_removed,
                                    char *_Nullable *_Nullable out_error);

/// Deletes the private items of `domain` and of every domain below it on dot-separated
/// components (`com.example` covers `com.example.shop`); public ones too when `include_public`.
/// `*out_removed` receives the number deleted.
cx_status cx_database_delete_domain(cx_database *_Nullable database, cx_text domain, bool include_public,
                                    uint64_t *out_removed, char *_Nullable *_Nullable out_error);

/// Deletes (or, with `dry_run`, only counts) every item whose expiration is at or before `now_ms`.
cx_status cx_database_delete_expired(cx_database *_Nullable database, int64_t now_ms, bool dry_run, uint64_t *out_count,
                                     char *_Nullable *_Nullable out_error);

// MARK: - Bulk builds

/// A bulk build: segment builders that each write a fresh database of their own, in parallel,
/// merged with the current database into a new one by compaction (`cx_bulk_merge`), or, when
/// the run changes little of a large index, written into the current database (`cx_bulk_apply`).
///
/// A run of items goes to the segments in any split; each item carries its position in the run
/// (its sequence), and where one identity occurs more than once, the occurrence with the highest
/// sequence wins, whichever segment holds it. Items stored unchanged in the current database are not
/// written at all. Nobody reads a segment before the merge, so segments are written without syncing or
/// copy-on-write (`DB_NO_SYNC | DB_DANGEROUS`) and committed whenever their share of the memory
/// budget is full.
typedef struct cx_bulk cx_bulk;

/// What a bulk build comes to, once resolved (`cx_bulk_resolve`).
typedef struct cx_bulk_plan {
    /// Documents the segments hold: the run's winning occurrences.
    uint64_t stored;
    /// Documents of the current database that the run replaces, removes as expired, or overtakes.
    uint64_t superseded;
    /// Documents in the current database.
    uint64_t base_documents;
    /// Occurrences that counted as added or unchanged when they were stored, but followed an
    /// earlier occurrence of the same identity in the run: they updated that one.
    uint64_t added_then_updated;
    uint64_t unchanged_then_updated;
} cx_bulk_plan;

/// Starts a bulk build of `segment_count` segments (at least 1) in the folder `folder` (a
/// NUL-terminated path that must not exist yet; the caller removes it when done). `base` is the
/// current database, opened by path and read-only by each segment (NULL: the index is empty).
/// `memory_budget` is the bytes the segments' write buffers may hold together (0: the default).
/// On success `*out` owns the build, freed with `cx_bulk_free`.
cx_status cx_bulk_open(const char *_Nullable base, const char *_Nullable folder, uint32_t segment_count,
                       uint64_t memory_budget, cx_bulk *_Nullable *_Nonnull out, char *_Nullable *_Nullable out_error);

/// Chooses the index's common words (pairs of them side by side are terms a phrase reads) when the
/// current database has chosen none and holds fewer than 500 items: from its words and those of
/// `items`, the run's first piece, once they are 500 items or more together. Call it before any
/// `cx_bulk_add`, so that the choice does not depend on which segment stores first; otherwise the
/// first `cx_bulk_add` makes it from its own items.
cx_status cx_bulk_choose_common_words(cx_bulk *_Nullable bulk, const cx_item *_Nullable items, size_t count,
                                      char *_Nullable *_Nullable out_error);

/// Stores `count` items in segment `segment`, the item `items[i]` having the sequence `sequences[i]`.
/// One thread at a time may use a segment; different segments may be used from different threads at
/// once. `out_outcomes` receives one value per item (0 added, 1 replaced, 2 expired, 3 unchanged,
/// 4 unchanged but read from another file than before, and stored again for that),
/// judged against the current database. Returns `CX_ERR_INVALID_ARGUMENT` for a segment out of
/// range or a finished build, `CX_ERR_IO` (the disk is full, say) or `CX_ERR_NO_MEMORY`.
cx_status cx_bulk_add(cx_bulk *_Nullable bulk, uint32_t segment, const cx_item *items, const uint64_t *sequences,
                      size_t count, int64_t now_ms, int32_t *_Nullable out_outcomes,
                      char *_Nullable *_Nullable out_error);

/// Records lines recognized as stored unchanged (`cx_database_find_lines`): the current
/// database's documents they name and their sequences. Safe to call from any thread.
cx_status cx_bulk_keep(cx_bulk *_Nullable bulk, const uint32_t *documents, const uint64_t *sequences, size_t count,
                       char *_Nullable *_Nullable out_error);

/// Ends the adding: decides, for every identity met more than once, which occurrence wins (the
/// latest; a recognized line later still keeps the stored item), removes the others from the
/// segments, and commits them. Then `cx_bulk_apply` or `cx_bulk_merge` writes the result (or, when
/// the plan stores and supersedes nothing, nothing needs writing).
cx_status cx_bulk_resolve(cx_bulk *_Nullable bulk, cx_bulk_plan *out_plan, char *_Nullable *_Nullable out_error);

/// Writes a resolved build into `database`, the current database opened for writing, inside the
/// caller's transaction: deletes the superseded documents and adds every segment's. For a run that
/// changes little of a large index, cheaper than a merge.
cx_status cx_bulk_apply(cx_bulk *_Nullable bulk, cx_database *_Nullable database,
                        char *_Nullable *_Nullable out_error);

/// Copies the current database's documents that a resolved build does not supersede into segment
/// `segment` (every n-th of them, n the number of segments), for a merge that compacts the
/// segments alone: cheaper than deleting when the run supersedes much of the index. Call it for
/// every segment, each from one thread at a time, in parallel as the segments allow; then
/// `cx_bulk_merge` with `survivors_copied`. Does nothing for a build over an empty index.
cx_status cx_bulk_copy_survivors(cx_bulk *_Nullable bulk, uint32_t segment, char *_Nullable *_Nullable out_error);

/// Writes a resolved build as a new database in `destination` (a NUL-terminated path that must
/// not exist): the current database and the segments compacted together, then the superseded
/// documents deleted, committed; or, with `survivors_copied` (`cx_bulk_copy_survivors` ran for
/// every segment), the segments alone compacted. With `keep_ids`, every document keeps its id:
/// the current database's, and the ids its items were added at (`cx_item.document_id`, each past
/// the current database's last id), as a topology's shard needs. Runs on the calling thread.
/// Returns `CX_ERR_IO` (for example, the disk is full; `destination` may then hold a partial
/// database for the caller to remove).
cx_status cx_bulk_merge(cx_bulk *_Nullable bulk, const char *_Nullable destination, bool survivors_copied,
                        bool keep_ids, char *_Nullable *_Nullable out_error);

/// Frees the build, closing its segments. Removes nothing from disk. Accepts NULL.
void cx_bulk_free(cx_bulk *_Nullable bulk);

// MARK: - Reading

/// Finds the item (domain, identifier). On success `*out_data` receives a `malloc`-ed copy of its
/// stored data, and `*out_source` (when not NULL) one of the path of the file it was read from, or
/// NULL for none; both freed with `cx_string_free`. Returns `CX_ERR_NOT_FOUND` when absent.
cx_status cx_database_get(cx_database *_Nullable database, cx_text domain, cx_text identifier,
                          char *_Nullable *_Nonnull out_data, size_t *out_length,
                          char *_Nullable *_Nullable out_source, char *_Nullable *_Nullable out_error);

/// Counts documents, public, private and expired (at `now_ms`) items.
cx_status cx_database_stats(cx_database *_Nullable database, int64_t now_ms, cx_stats *out_stats,
                            char *_Nullable *_Nullable out_error);

/// One domain and how many items it stores.
typedef struct cx_name_count {
    /// A domain or a file; borrowed from the list that holds it.
    cx_text name;
    /// The items stored under it.
    uint64_t documents;
} cx_name_count;

/// Names with item counts: the domains of a database, or the files its items were read from.
typedef struct cx_name_list cx_name_list;

/// Lists every domain with its stored item count, in byte order of the names. On success `*out`
/// owns the list, freed with `cx_name_list_free`.
cx_status cx_database_domains(cx_database *_Nullable database, cx_name_list *_Nullable *_Nonnull out,
                              char *_Nullable *_Nullable out_error);

/// Lists the files items were read from (`cx_item.source`) that begin with `prefix` (empty:
/// every file), with their stored item counts, in byte order. On success `*out` owns the list,
/// freed with `cx_name_list_free`.
cx_status cx_database_sources(cx_database *_Nullable database, cx_text prefix,
                              cx_name_list *_Nullable *_Nonnull out, char *_Nullable *_Nullable out_error);

/// The number of names in the list.
size_t cx_name_list_count(const cx_name_list *list);
/// Entry `index`; an index past the end gives an empty name and a zero count.
cx_name_count cx_name_list_entry(const cx_name_list *list, size_t index);
/// Frees a list. Accepts NULL.
void cx_name_list_free(cx_name_list *_Nullable list);

/// Counts for one domain (exactly, not its subdomains): `documents` stored, live `public_count`
/// and `private_count` at `now_ms`, and `expired_count`, stored but expired.
cx_status cx_database_domain_stats(cx_database *_Nullable database, cx_text domain, int64_t now_ms,
                                   cx_stats *out_stats, char *_Nullable *_Nullable out_error);

/// Runs a search. On success `*out` owns the results, freed with `cx_results_free`.
/// Returns `CX_ERR_INVALID_ARGUMENT` for a malformed tree, `CX_ERR_EARLIER_FORMAT` for an index
/// of an earlier format until it is rebuilt, or `CX_ERR_VERSION` for one of a format this version
/// does not read.
cx_status cx_search(cx_database *_Nullable database, const cx_search_request *_Nullable request,
                    cx_results *_Nullable *_Nonnull out, char *_Nullable *_Nullable out_error);

/// What found a result (`cx_result::matched_by`): its words, its meaning, or both.
enum {
    CX_MATCHED_BY_WORDS = 1,
    CX_MATCHED_BY_MEANING = 2,
};

/// One result of a page (`cx_results_page`); its texts and ranges are borrowed from the results.
typedef struct cx_result {
    /// The item's stored data (JSON).
    cx_text data;
    /// The relevance, 1–100 (100 for every match of the empty query).
    int32_t percent;
    /// What found it: `CX_MATCHED_BY_WORDS`, `CX_MATCHED_BY_MEANING`, or both.
    uint32_t matched_by;
    /// The snippet: the plain text of the item's description (which its data holds) around the
    /// matches of the query's words, an ellipsis marking a cut.
    cx_text snippet;
    /// The matched runs inside the snippet, in order and not overlapping; NULL when there are none.
    const cx_range *_Nullable snippet_matches;
    size_t snippet_match_count;
    /// Whether the fields below were read from `data`, as the Kit's reader reads them: false when
    /// the data holds one in another form (another dialect's key, a date as a string), and the
    /// caller reads `data` itself.
    bool fields_read;
    /// The fields a result shows (SPEC §2.2), read from `data` once. A text whose data is NULL is
    /// absent (or `null`).
    cx_text identifier;
    cx_text domain;
    cx_text title;
    cx_text description;
    cx_text canonical_url;
    cx_text image_url;
    /// The keywords, empty ones left out; NULL when there are none.
    const cx_text *_Nullable keywords;
    size_t keyword_count;
    /// Epoch milliseconds, or 0 for none.
    int64_t expiration;
    bool is_public;
} cx_result;

/// The page of results, in rank order, read in one call: `*out_count` receives their number (at
/// most the request's limit). Borrowed from `results`; NULL for an empty page.
const cx_result *_Nullable cx_results_page(const cx_results *results, size_t *out_count);
/// Whether the plain words matched when any of them did, since no item has every one (`relax`).
bool cx_results_relaxed(const cx_results *results);
/// The number of matching items: exact up to 1,000 past the page, estimated beyond; exact when
/// the request's limit is 0 (for up to a second of counting).
uint64_t cx_results_total(const cx_results *results);
/// Whether `cx_results_total` is an estimate: the search stopped counting before the last match.
bool cx_results_total_is_estimate(const cx_results *results);
/// Whether the page came from the index's impact tiers, proven to be the page a full evaluation
/// gives (tiers.cpp), rather than from a full evaluation.
bool cx_results_from_tiers(const cx_results *results);
/// Every accessor below accepts any index: one past the corrections or facets gives an empty
/// text, zero, or no numbers, never an error.
/// When nothing matched: how many words of the query have a likelier spelling in the index.
size_t cx_results_correction_count(const cx_results *results);
/// The pre-order position of the corrected node (a `CX_NODE_WORD` or `CX_NODE_PARTIAL`).
uint32_t cx_results_correction_node(const cx_results *results, size_t index);
/// The corrected word, lower-cased and folded; borrowed from `results`.
cx_text cx_results_correction_text(const cx_results *results, size_t index);

/// How many distinct values request facet `facet` counted (0 for a facet out of range, and for
/// one whose numbers `cx_results_facet_numbers` gives).
size_t cx_results_facet_size(const cx_results *results, size_t facet);

/// A number facet counted on one database: every visible match's number, one each, in match
/// order (`*out_count` of them; NULL and 0 when the facet was counted by distinct value instead).
/// Borrowed from `results`.
const double *_Nullable cx_results_facet_numbers(const cx_results *results, size_t facet, size_t *out_count);

/// Value `index` of facet `facet` and how many visible matches hold it: for a text facet its
/// text (`*out_number` 0), for a number facet its number (`*out_text` empty). Borrowed from
/// `results`.
void cx_results_facet_value(const cx_results *results, size_t facet, size_t index, cx_text *out_text,
                            double *out_number, uint64_t *out_count);
/// The items nearest in meaning to the item (`domain`, `identifier`), best first, among those
/// `request` may see (its domain, scope and time) and its query selects (`nodes`: `CX_NODE_ALL`
/// for every item): its page (`offset`, `limit`), each at least 0.3 near (cosine), the item
/// itself left out. A result's percent is its similarity. `CX_ERR_NOT_FOUND` when the request may
/// not see the item; empty results with `cx_results_unembedded` when it has no vector yet.
cx_status cx_search_similar(cx_database *_Nullable database, const cx_search_request *_Nullable request,
                            cx_text domain, cx_text identifier, cx_results *_Nullable *_Nonnull out,
                            char *_Nullable *_Nullable out_error);

/// Whether `cx_search_similar`'s item has no vector of meaning.
bool cx_results_unembedded(const cx_results *results);

/// Frees results. Accepts NULL.
void cx_results_free(cx_results *_Nullable results);

/// Opens a cursor over the stored items, in storage order, from the one at `first_position` on
/// (1 for every item; see `cx_cursor_position`), or only over those without a vector of meaning
/// (`CX_SLOT_MEANING`) when `without_meaning`. `*out` is freed with `cx_cursor_free`; the
/// database must outlive it.
cx_status cx_cursor_open(cx_database *_Nullable database, uint32_t first_position, bool without_meaning,
                         cx_cursor *_Nullable *_Nonnull out, char *_Nullable *_Nullable out_error);

/// The storage position of the item the cursor is at (0 before the first and after the last).
/// Positions grow in storage order and stay an item's when it is replaced, so a cursor opened
/// again after writes goes on from where another left off.
uint32_t cx_cursor_position(const cx_cursor *_Nullable cursor);

/// Moves to the next item. `*out_done` is set when there is none; otherwise `*out_data` holds
/// its stored data and `*out_source` the path of the file it was read from (empty for none), both
/// borrowed until the next call, `*out_expiration_ms` its expiration and `*out_views` its
/// recorded views.
cx_status cx_cursor_next(cx_cursor *_Nullable cursor, cx_text *out_data, int64_t *out_expiration_ms,
                         int64_t *out_views, cx_text *out_source, bool *out_done,
                         char *_Nullable *_Nullable out_error);

/// The content digest of the item the cursor is at: what `cx_database_set_meaning` checks, so
/// that a vector made of an item's text is not stored on an item rewritten since.
uint64_t cx_cursor_digest(const cx_cursor *_Nullable cursor);

/// Frees a cursor. Accepts NULL.
void cx_cursor_free(cx_cursor *_Nullable cursor);

// MARK: - Meaning

/// How a search's vector of meaning reads each of `count` `words` (SPEC §2.4; the words its
/// model's vocabulary lacks, folded as its tokenizer folds them): `out_held[i]` when an item
/// `request` may see now (its domain, scope and time; its nodes are not read) holds `words[i]` as a
/// plain word matches it (stemmed, without typos); otherwise `out_corrections[i]` is the word a
/// typo or two from it (the first letter kept, as typos are: nearest, then the most frequent) that
/// such an item holds, or NULL for none. Each correction is freed with `cx_string_free`; on an
/// error none is returned.
cx_status cx_read_words(cx_database *_Nullable database, const cx_search_request *_Nullable request,
                        const cx_text *_Nullable words, size_t count, bool *_Nullable out_held,
                        char *_Nullable *_Nullable out_corrections, char *_Nullable *_Nullable out_error);

/// How many items the index holds, how many of them have a vector of meaning, and the storage
/// position after its last item (where the items written next begin).
cx_status cx_database_meaning_counts(cx_database *_Nullable database, uint64_t *out_items, uint64_t *out_with_meaning,
                                     uint32_t *out_end, char *_Nullable *_Nullable out_error);

/// Stores vectors of meaning, in the writer's transaction: for each of `count` items, by storage
/// position, its vector of `dimensions` floats (`vectors`, one after another), kept as 8-bit
/// multiples of a scale (`4 + dimensions` bytes). An item that is gone, or whose content digest is
/// no longer `digests[i]` (`cx_cursor_digest`: rewritten since it was read), is left alone.
/// `*out_stored` counts the vectors stored.
cx_status cx_database_set_meaning(cx_database *_Nullable database, const uint32_t *_Nullable positions,
                                  const uint64_t *_Nullable digests, const float *_Nullable vectors, size_t count,
                                  uint32_t dimensions, size_t *out_stored, char *_Nullable *_Nullable out_error);

/// Marks the items at `positions` (each still at its `digests[i]`, else left alone) as written in
/// a language the meaning model does not read: they get no vector, count as having their meaning
/// (`cx_database_meaning_counts`, cursors `without_meaning`), and are never found by meaning.
/// `*out_marked` is how many were. In the writer's transaction.
cx_status cx_database_mark_unread(cx_database *_Nullable database, const uint32_t *_Nullable positions,
                                  const uint64_t *_Nullable digests, size_t count, size_t *out_marked,
                                  char *_Nullable *_Nullable out_error);

/// Removes every item's vector of meaning, in the writer's transaction (a different model's).
cx_status cx_database_clear_meaning(cx_database *_Nullable database, char *_Nullable *_Nullable out_error);

// MARK: - Text

/// Folds Latin accents (`Café` → `Cafe`, `Straße` → `Strasse`), keeping case. On success
/// `*out` is `malloc`-ed, freed with `cx_string_free`.
cx_status cx_fold_accents(cx_text text, char *_Nullable *_Nonnull out, size_t *out_length,
                          char *_Nullable *_Nullable out_error);

#pragma clang assume_nonnull end

#ifdef __cplusplus
}
#endif

#endif  // CXAPIAN_H
