// What meaning_copy.cpp offers the other files of the shim: a shard's vectors copy, the small
// database beside a topology's shard that carries its vectors of meaning to a search service that
// reads the shard through a shard server.
#pragma once

#include <memory>
#include <string>
#include <vector>
#include <xapian.h>

#include "database.hpp"

namespace cx::meaning_copy {

/// The metadata key of what a vectors copy holds: its shard's UUID and revision.
inline const std::string of_key = "searchlight.meaning_copy.of";

/// The document that stands for `document` (an item of a shard) in the shard's vectors copy: its
/// vector of meaning, its expiration, the terms that say who may see it and which item it is (the
/// unique term, the mode, the private item's domain), and its stored data (`self_contained_data`).
/// Empty when the item has no vector value.
Xapian::Document thin(const Xapian::Document &document);

/// Brings `shard`'s vectors copy (`meaning_copy_path`) to the revision its writer has committed:
/// by the items its last commit wrote (`written`) when the copy holds the revision before
/// (`expected`), else every item compared, and only those that differ written. Stamps the copy with
/// the revision and the shard's batch, and commits it. A shard with no vector and no copy yet has
/// none made.
void follow(cx_database &shard, const std::string &expected, const std::vector<Xapian::docid> *written);

/// What the copy of a shard at its writer's committed revision is stamped with.
std::string stamp(const Xapian::Database &shard);

/// Reopens a view's vectors copies (`cx_database::meaning_copies`) at their latest revisions, and
/// records the batch each holds there (`cx_database::copy_batches`).
void reopen_and_hold(cx_database &copies);

/// A view's vectors copies, overtaken by `xapian-replicate` while the view read them, reopened:
/// whether each still holds the batch it held (`cx_database::copy_batches`), which is its shard's
/// in the view, so that the view reads on (a copy's items at one batch are its shard's at that
/// batch). Asks no shard server: the view's shards may be overtaken too.
bool reopen_copies(cx_database &view);

/// A view of the vectors copies the `count` `shards` name (`cx_shard::meaning_copy`), numbered as
/// the shards are, for the view of the shards named `name` to rank by meaning over. Throws
/// `Xapian::InvalidArgumentError` when two are copies of one database.
std::shared_ptr<cx_database> open_view(const char *name, const cx_shard *shards, size_t count);

}  // namespace cx::meaning_copy
