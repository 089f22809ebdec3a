// What read.cpp offers the other files of the shim: shared by every reading entry point.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "database.hpp"
#include "errors.hpp"
#include "language.hpp"
#include "meaning_copy.hpp"

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
/// A read-only handle of one database keeps the snapshot of the revision it has open until it
/// moves to another (`snapshot`). A writer's reader sees its uncommitted changes, and a
/// topology's shards have no one revision to key it by: each of their searches takes a snapshot
/// of its own, which nothing keeps.
struct Snapshot {
    Xapian::rev revision = 0;
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
};

/// The common words `database` records, read once a snapshot: null when it has chosen none, and
/// over shards, which may each have chosen other words.
std::shared_ptr<const CommonWords> common_words(const cx_database &database, Snapshot &snapshot);

/// The languages of the items of the revision `snapshot` is of, which `database` reads, read once
/// a snapshot.
const ItemLanguages &item_languages(const cx_database &database, Snapshot &snapshot);

/// The snapshot of the revision `database` reads (see `Snapshot`).
std::shared_ptr<Snapshot> snapshot(cx_database &database);

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
/// commits gets a window between two of them. A view of shards is never reopened here: it reports
/// `CX_ERR_MODIFIED`, and the Kit moves to a view whose shards all hold one batch; only its vectors
/// copies are, when they still hold its batch (`meaning_copy::reopen_copies`). Every other
/// exception becomes a status.
template <typename Body>
cx_status with_retries(cx_database *database, char **out_error, Body body) {
    constexpr int most_damage_retries = 8, most_copy_retries = 8;
    int damage_retries = 0, copy_retries = 0;
    for (int attempt = 0;; ++attempt) {
        try {
            body();
            return CX_OK;
        } catch (const Xapian::DatabaseModifiedError &) {
            // A view of shards reopened here could read one shard at a later batch than another; its
            // vectors copies alone read on when, reopened, they still hold the view's batch.
            if (!database->shards.empty()) {
                if (copy_retries++ >= most_copy_retries || !meaning_copy::reopen_copies(*database))
                    return status_from_current_exception(out_error);
                std::this_thread::sleep_for(std::chrono::milliseconds(copy_retries));
                continue;
            }
        } catch (const Xapian::DatabaseCorruptError &) {
            bool moved = false;
            if (!database->writable && database->shards.empty() && damage_retries++ < most_damage_retries) {
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
