// The handle behind `cx_database`, and what every file of the shim includes. Nothing in the
// shim's headers but CXapian.h is visible to Swift.

#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>
#include <xapian.h>

#include "CXapian.h"

namespace cx {
struct CommonWords;
struct Snapshot;
struct TierNotes;
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
    /// Meaning is the exception: over local shards its posting source reads each shard's own
    /// values, which the matcher numbers as one index does (hybrid.cpp).
    bool sharded = false;
    /// A shard of it, or the index itself, is read through a shard server (`xapian-tcpsrv`), which
    /// runs none of Searchlight's code: a search by meaning needs every vector at hand.
    bool remote = false;
    /// Why searching this index is refused (another index format), or empty.
    std::string format_error;
    /// What searching it is refused with: `CX_ERR_EARLIER_FORMAT` for a format its next writer
    /// rebuilds, `CX_ERR_VERSION` for one this version does not read.
    cx_status format_status = CX_OK;
    /// The database every read goes through; for a writable handle it shares `writer`'s internals.
    Xapian::Database reader;
    /// A view of a topology's shards (`cx_database_open_shards`): each shard, sharing its internals
    /// with `reader`, so that it is read through the same connection at the same revision. A view
    /// never moves to another revision by itself (`with_retries`): the Kit reopens it whole and
    /// checks that every shard holds the same batch.
    std::vector<Xapian::Database> shards;
    Xapian::WritableDatabase writer;
    /// A read-only handle's snapshot of the revision it has open (`cx::snapshot`).
    std::shared_ptr<cx::Snapshot> snapshot;
    /// How many times a read-only view of shards has moved (`cx::reopen`): its shards have no one
    /// revision, and the view keeps its snapshot until it moves.
    uint64_t moves = 0;
    /// A writer's thresholds of the index's impact tiers, and the postings its transaction adds to
    /// them (tiers.cpp).
    std::shared_ptr<cx::TierNotes> tier_notes;
    /// The words of the items' text its transaction's items hold (typos.cpp), and the items it
    /// wrote (`cx::upkeep::stored`, `cx::upkeep::rewritten`), recorded when it commits for the
    /// readers of this process (`cx::record_written`).
    std::vector<std::string> written_words;
    std::vector<Xapian::docid> written_items;
    /// A shard writer's vectors copy (`cx_database_keep_meaning_copy`, meaning_copy.hpp): its
    /// folder, or empty; and the revision its transaction started from, as the copy is stamped
    /// when it holds that revision.
    std::string meaning_copy_path;
    std::string meaning_copy_before;
    /// A view of shards read through shard servers: a view of their vectors copies, in the same
    /// order (`cx_shard::meaning_copy`), which its searches by meaning read; null otherwise.
    std::shared_ptr<cx_database> meaning_copies;
    /// That view's copies each as a read-only handle of its own, sharing the view's internals: what
    /// a search by meaning asks as one index (meaning_copy.hpp).
    std::vector<std::shared_ptr<cx_database>> each_copy;
    /// That view's copies: the batch each held when last opened or reopened (`meaning_copy::reopen_and_hold`),
    /// which the view's shards hold while the view is read.
    std::vector<std::string> copy_batches;
    /// A writer's common words, read as its transaction begins: every item it stores gets their
    /// pairs (pairs.cpp). Null while the index has chosen none.
    std::shared_ptr<const cx::CommonWords> common_words;
    /// A read-only handle's second handle on its index, which counts a search's matches on another
    /// core while `reader` ranks its page (search.cpp, `count_beside`): a Xapian handle serves one
    /// thread at a time. Opened at the first such count; null until then.
    std::unique_ptr<Xapian::Database> counter;
};

namespace cx {

/// Opens the database a compaction just wrote into `path`, for writing, with Xapian's `flags`.
/// The compactor held that folder's lock while writing; a process spawned meanwhile by any thread
/// keeps a copy of the lock until it runs its program, so a busy lock is tried again for a while
/// before it counts as a failure.
Xapian::WritableDatabase open_compacted(const std::string &path, int flags);

}  // namespace cx
