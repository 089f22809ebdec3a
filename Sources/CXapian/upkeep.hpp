// What the index keeps beside Xapian's lists to answer faster (its accelerators: the impact tiers,
// the phrase pairs and the common words they pair, this process's readers' words for typos
// and codes of vectors of meaning, and a shard's vectors copy), kept true through one door: each function here is the one call
// every path that changes the index makes at that moment (a transaction's store and commit, a bulk
// build's apply and merge, a compaction). An accelerator added later is kept up to date here, and
// nowhere else.
#pragma once

#include "database.hpp"
#include "pairs.hpp"

namespace cx::upkeep {

/// `document`, stored as `id` by `database`'s writer in its transaction (a store, or a bulk
/// build's apply): the postings that enter an impact tier are noted, the words of its text, and
/// the item.
void stored(cx_database &database, Xapian::docid id, const Xapian::Document &document);

/// Document `id` deleted by `database`'s writer in its transaction, or its vector of meaning
/// changed: noted for the codes this process's readers keep of vectors of meaning.
void rewritten(cx_database &database, Xapian::docid id);

/// Before `database`'s transaction commits: the common words are chosen once the index is large
/// enough (every item given its pairs), and the noted postings written into their tiers, stamped
/// as current at the revision the commit makes.
void committing(cx_database &database);

/// After `database`'s transaction committed: the words its items hold, and the items it wrote, are
/// recorded for this process's readers of the new revision, and a shard's vectors copy follows
/// (meaning_copy.hpp).
void committed(cx_database &database);

/// `database`'s transaction was cancelled, or its commit failed: what was noted for it is dropped.
void dropped(cx_database &database);

/// Common words a bulk build chose, recorded in `writer`, and every item up to `last` (every item,
/// for 0) given its pairs.
void chose_common_words(Xapian::WritableDatabase &writer, const CommonWords &common, Xapian::docid last = 0);

/// A database about to be compacted from `writer`'s committed revision: its tiers are built (the
/// caller commits them), so that compaction packs them with the rest.
void compacting(Xapian::WritableDatabase &writer);

/// A database just compacted, before its first commit: the tiers it holds stamped as current, or,
/// when `tiers_built` is false (its source was read-only, and could not build them), built.
void compacted(Xapian::WritableDatabase &compacted, bool tiers_built);

/// A bulk build's merged database, before its commit: `common` (the common words the build chose
/// or kept, or null) recorded, the items up to `unpaired` given their pairs (the items the database
/// held before, when the build chose the words; none for 0), and its tiers built.
void merged(Xapian::WritableDatabase &merged, const CommonWords *common, Xapian::docid unpaired);

}  // namespace cx::upkeep
