// What read.cpp offers the other files of the shim: shared by every reading entry point.
#pragma once

#include <chrono>
#include <string>
#include <thread>

#include "database.hpp"
#include "errors.hpp"
#include "meaning_copy.hpp"
#include "snapshot.hpp"

namespace cx {

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
                    moved = reopen(*database);
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
            reopen(*database);
        } catch (const Xapian::DatabaseModifiedError &) {
            // Overtaken again while reopening: the next try reopens again.
        } catch (...) {
            return status_from_current_exception(out_error);
        }
    }
}

}  // namespace cx
