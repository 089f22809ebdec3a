// What snapshot.cpp offers the other files of the shim: what a search reads of an index once a
// revision, and the handle's moves that end a snapshot.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "database.hpp"
#include "language.hpp"

namespace cx {

struct DocumentBits;
struct ViewBoosts;
struct KeptFields;
struct CommonWords;
class NearWords;

/// One revision of an index as its searches see it: what they read once and reuse, each on first
/// need: the items a domain may see (visibility.cpp), the recorded views' boosts (views.cpp), the
/// spelling table's words (spelling.cpp) and the words of the items' text (typos.cpp).
///
/// A read-only handle keeps the snapshot of what it has open until it moves (`snapshot`): one
/// database to another revision, a view of shards when it is reopened (`reopen`). A writer's
/// reader sees its uncommitted changes: each of its searches takes a snapshot of its own, which
/// nothing keeps. Over shard servers, what a snapshot keeps is round trips saved.
struct Snapshot {
    /// The revision of one database, or how many times a view of shards had moved
    /// (`cx_database::moves`).
    Xapian::rev revision = 0;
    /// Terms' frequencies (`term_frequency`), at most `kept_frequencies` of them, and values'
    /// (`value_frequency`).
    std::unordered_map<std::string, Xapian::doccount> frequencies;
    static constexpr size_t kept_frequencies = 1024;
    std::unordered_map<Xapian::valueno, Xapian::doccount> value_frequencies;
    /// The Kit's records read by key (`metadata`), at most `kept_records` of them: a reader asks
    /// for a few keys, again at every search.
    std::unordered_map<std::string, std::string> metadata;
    static constexpr size_t kept_records = 64;
    /// A view's shards' records by key, each shard's on a line (`cx_database_shard_metadata`), at
    /// most `kept_records` keys: a view that has not moved asks its shard servers nothing again.
    std::unordered_map<std::string, std::string> shard_records;
    /// The items a search may see, by the domain whose private items it sees ("" for none), for
    /// at most `visible_domains` domains (each is one bit per document).
    std::unordered_map<std::string, std::shared_ptr<const DocumentBits>> visible;
    static constexpr size_t visible_domains = 16;
    std::shared_ptr<const ViewBoosts> views;
    std::shared_ptr<const NearWords> spelling;
    /// The words of the items' text, for typo-tolerant matching (typos.cpp): every one, for a
    /// handle that keeps fields across revisions; else `letter_words`, the words of each first
    /// letter a search has needed (`letters_read`).
    std::shared_ptr<const NearWords> text_words;
    std::shared_ptr<NearWords> letter_words;
    std::unordered_set<std::string> letters_read;
    /// What searches keep in memory of this revision's fields (`cx::column`, `cx::ranks`).
    std::shared_ptr<KeptFields> fields;
    /// The common words the revision records (pairs.cpp), once a phrase has read them.
    std::shared_ptr<const CommonWords> common_words;
    bool common_words_read = false;
    /// The languages of the revision's items (the `language` attribute's codes), once a search
    /// has read them; and the languages a search reads its query in (`reading_languages`), by what
    /// it may see (its domain, whether it sees every domain, its scope), for at most
    /// `visible_domains` of them.
    std::shared_ptr<const ItemLanguages> languages;
    std::unordered_map<std::string, std::vector<std::string>> reading;
    /// Whether an item read in a stemming holds a form (`held_in_stemming`), by the stemming and
    /// the form, for at most `kept_held` of them: every search asks again about its words' typos.
    std::unordered_map<std::string, bool> held;
    static constexpr size_t kept_held = 4096;
    /// Whether a query matches an item a caller may see at a time (`matches_visible_item`), by the
    /// query, the caller and the time, for at most `kept_visible_matches` of them.
    std::unordered_map<std::string, bool> visible_matches;
    static constexpr size_t kept_visible_matches = 256;
};

/// The common words `database` records, read once a snapshot: null when it has chosen none, and
/// over shards, which may each have chosen other words.
std::shared_ptr<const CommonWords> common_words(const cx_database &database, Snapshot &snapshot);

/// The languages of the items of the revision `snapshot` is of, which `database` reads, read once
/// a snapshot.
const ItemLanguages &item_languages(const cx_database &database, Snapshot &snapshot);

/// Whether an item of the revision `snapshot` is of, read as `stemming`, holds `form`
/// (`held_in_stemming`): asked once a snapshot.
bool held_in_stemming(const cx_database &database, Snapshot &snapshot, const std::string &form,
                      const std::string &stemming);

/// The snapshot of the revision `database` reads (see `Snapshot`).
std::shared_ptr<Snapshot> snapshot(cx_database &database);

/// Brings `database`'s reader to the latest revision of what it reads, and says whether it may
/// have moved (`Xapian::Database::reopen`); a view of shards that moves takes a new snapshot.
bool reopen(cx_database &database);

/// How many items hold `term`, or a value in `slot`, in the revision `snapshot` is of: read once a
/// snapshot.
Xapian::doccount term_frequency(const cx_database &database, Snapshot &snapshot, const std::string &term);
Xapian::doccount value_frequency(const cx_database &database, Snapshot &snapshot, Xapian::valueno slot);

/// The record under `key` in the revision `snapshot` is of: read once a snapshot.
std::string metadata(const cx_database &database, Snapshot &snapshot, const std::string &key);

}  // namespace cx
