// What columns.cpp offers the other files of the shim.
#pragma once

#include <string>
#include <vector>

#include "database.hpp"
#include "schema.hpp"

namespace cx {

class NearWords;

/// Whether a search of `request` in `database` counts and sorts from kept fields: asked for, and
/// on a read-only handle of one database (a writer's revision moves with each change; a shard's
/// document ids are not its own).
inline bool keeps_fields(const cx_database &database, const cx_search_request &request) {
    return request.keep_fields_in_memory && !database.writable && !database.sharded;
}

/// One counted attribute of every item of one revision, in memory, indexed by document id: what a
/// handle that counts again and again (a service's reader,
/// `cx_search_request::keep_fields_in_memory`) counts from instead of reading the slot's value
/// stream each time.
struct Column {
    /// A text column: each item's value as a code into `texts` (its index plus one), 0 for none.
    std::vector<uint32_t> codes;
    std::vector<std::string> texts;
    /// A number column: each item's number, NaN for none.
    std::vector<double> numbers;
};

/// The column of `slot` in the revision read-only `database` has open, `number` telling how its
/// values read: built from the slot's value stream on first use and kept while any handle of this
/// process reads that revision of the same database (its snapshot holds it). Null when keeping it
/// would pass `most_column_bytes`, or for a database without a UUID: counts then read the stream.
std::shared_ptr<const Column> column(cx_database &database, Xapian::valueno slot, bool number);

/// The items whose number in `column` lies from `low` to `high`, both included (either infinite
/// for no end): Xapian's `OP_VALUE_RANGE`, read from the column instead of the slot's value
/// stream. Its frequency is exact, so the matcher leads with it when it is the rarest part of a
/// query, and walking it, or checking an item against it, costs an array's read.
Xapian::Query column_range(std::shared_ptr<const Column> column, double low, double high);

/// The values of one number attribute over every item holding it, at evenly spaced ranks: what a
/// page sorted by it first needs to know which values can reach the page (`page_bound`).
struct Ranks {
    /// `points[i]` is the value (serialised) at rank `i * (items - 1) / (points.size() - 1)`,
    /// ascending.
    std::vector<std::string> points;
    /// How many items hold the value.
    Xapian::doccount items = 0;
};

/// The ranks of number slot `slot` in the revision read-only `database` has open: built from its
/// value stream on first use and kept as `column` keeps columns. Null for a slot no item holds.
std::shared_ptr<const Ranks> ranks(cx_database &database, Xapian::valueno slot);

/// Every item's vector of meaning (`CX_SLOT_MEANING`) of one revision as a compact code
/// (`meaning_code`: 52 bytes an item of 384 dimensions), in memory, indexed by document id: what a
/// search by meaning compares first, before it compares the nearest again in full (hybrid.cpp).
/// Kept in blocks of items, so that a revision derived from another (`meaning_codes`) copies only
/// the blocks its commits changed.
struct MeaningCodes {
    static constexpr Xapian::docid block_items = 16384;
    struct Block {
        /// `words` words an item, the block's items side by side: word `w` of the item at `at` is
        /// `bits[w * block_items + at]` (`estimate_similarities`).
        std::vector<uint64_t> bits;
        /// Each item's weight, 0 for an item without a vector of `dimensions`.
        std::vector<float> weights;
    };
    uint32_t dimensions = 0;
    uint32_t words = 0;
    /// Block `b` holds the items from document id `b * block_items`.
    std::vector<std::shared_ptr<const Block>> blocks;
    /// How many items have a vector.
    Xapian::doccount count = 0;
    /// The items' mean residual (`meaning_code`), `dimensions` floats: what makes the
    /// estimates unbiased over the items (`CodedQuery::offset`). Read with every vector; a revision
    /// derived from another keeps the other's, its commits having changed under a sixteenth of the
    /// items.
    std::vector<float> residual;

    /// One past the last document id a block holds.
    Xapian::docid end() const { return Xapian::docid(blocks.size() * block_items); }
    float weight(Xapian::docid id) const { return blocks[id / block_items]->weights[id % block_items]; }
};

/// The compact codes of `dimensions` of the revision read-only `database` has open, for a search
/// that keeps fields (`keeps_fields`), kept as `column` keeps columns. They are those last kept of
/// the database with the items its commits since wrote read again, when a writer of this process
/// recorded every one of those commits (`record_written`) and they wrote fewer than a sixteenth
/// as many items; else every vector is read. Null when keeping them would pass
/// `most_column_bytes`, or for a database without a UUID: a search then reads the value stream.
std::shared_ptr<const MeaningCodes> meaning_codes(cx_database &database, uint32_t dimensions);

/// Every item's length (the summed within-item frequencies of its words, Xapian's document length)
/// of one revision, in memory, indexed by document id: what a search that keeps fields weighs its
/// words with (`weighed_from_lengths`) instead of reading Xapian's list of lengths for each match.
struct Lengths {
    std::vector<Xapian::termcount> of;
};

/// How many searches at a revision read Xapian's own lengths and expirations before the kept ones
/// are read whole. At 1,000,000 items reading them costs about 25 ms (the lengths) and 45 ms
/// (200,000 expirations, sorted), and each saves a search about 3 ms and 1 ms: about what 16
/// searches save. A revision that a write replaces after a search or two (a service recording
/// views) never reads them. A revision whose lengths and expirations are those last kept with what
/// this process's writer has committed since read again (as the codes of vectors of meaning are)
/// keeps them at its first search.
constexpr unsigned searches_before_keeping = 16;

/// The lengths of the revision read-only `database` has open, for a search that keeps fields
/// (`keeps_fields`), kept as `column` keeps columns (4 bytes an item): those last kept with the
/// items written since read again, at the first search at the revision that asks, when a writer of
/// this process recorded each commit since and they wrote at most a sixteenth of the items; else
/// read by the `searches_before_keeping`th. Null before, when keeping them would pass
/// `most_column_bytes`, or for a database without a UUID.
std::shared_ptr<const Lengths> lengths(cx_database &database);

/// The items of the revision read-only `database` has open that have expired at `now_ms`, in
/// ascending document ids: what a search that keeps fields leaves out instead of comparing the
/// expiration value of each match with `now_ms` (for two words of 1,000,000 items, that
/// comparison cost more than weighing them). Kept as `lengths` are (the items that can expire,
/// ordered by expiration: 12 bytes each), the expired ones for the latest number of them.
/// Null when they are not kept.
std::shared_ptr<const std::vector<Xapian::docid>> expired_items(cx_database &database, int64_t now_ms);

/// The words of the items' text of the revision `snapshot` is of (typos.cpp), kept once for every
/// read-only handle of this process that reads that revision of the same database: the first
/// that asks makes them, and those that ask meanwhile wait for it. They are the words last kept of
/// the database and those its commits since wrote (`record_written`), when a writer of this
/// process recorded every one of those commits and they wrote fewer than a sixteenth as many; else
/// they are read from the index (`read_text_words`). A writer's handle, whose revision holds what it
/// has not committed, and a view of shards read their own.
std::shared_ptr<const NearWords> kept_text_words(const cx_database &database, Snapshot &snapshot);

/// The words of the spelling table of the revision `snapshot` is of (spelling.cpp), kept once for
/// every read-only handle of this process that reads that revision of the same database, as the
/// words of the items' text are: one copy a revision for a service's readers, not one a reader
/// (about 10 MB at 200,000 items). A writer's handle and a view of shards read their own.
std::shared_ptr<const NearWords> kept_spelling_words(const cx_database &database, Snapshot &snapshot);

/// What one commit wrote, for this process's readers of the revision it made: the words of the
/// items' text that the items it stored hold, and the document ids of the items it stored,
/// replaced or deleted, or whose vectors of meaning it changed.
struct Written {
    std::vector<std::string> words;
    std::vector<Xapian::docid> items;
};

/// Records `written` as what the commit that made revision `revision` of the database `uuid` wrote.
void record_written(const std::string &uuid, Xapian::rev revision, Written written);

/// The most memory the kept columns of one revision take: 4 bytes an item for a text, 8 for a
/// number, for each attribute counted (at 1,000,000 items, 12 MB for a category and a price), 4
/// bytes an item for the lengths, and 52 bytes an item for the codes of vectors of meaning.
constexpr size_t most_column_bytes = size_t(512) << 20;

}  // namespace cx
