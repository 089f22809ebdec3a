// Opening, closing and transactions.

#include "database.hpp"

#include <sys/stat.h>

#include "errors.hpp"
#include "fan_out.hpp"
#include "meaning_copy.hpp"
#include "pairs.hpp"
#include "read.hpp"
#include "schema.hpp"
#include "upkeep.hpp"
#include "write.hpp"

namespace {

/// Whether `path` is a file rather than a database's folder: a stub file listing shards.
bool is_topology(const char *path) {
    struct stat status;
    return stat(path, &status) == 0 && S_ISREG(status.st_mode);
}

/// Refuses an index of another format: it would be searched and written with the wrong terms.
/// Searching refuses it (`format_status`), while get and export read its stored items. One this
/// shim can rebuild (`is_rebuildable`) opens for writing, for the Kit to rebuild it into a new
/// generation; any other does not. A writer's commits overtaking the reader just opened are read
/// past, as every read does (`with_retries`).
cx_status check_format(cx_database &database, char **out_error) {
    std::string format;
    Xapian::doccount count = 0;
    const cx_status read = cx::with_retries(&database, out_error, [&] {
        format = database.reader.get_metadata(cx::format_key);
        count = database.reader.get_doccount();
    });
    if (read != CX_OK) return read;
    if (count == 0 || format == cx::format) return CX_OK;
    const std::string named = format.empty() ? std::string("1") : format;
    if (cx::is_rebuildable(format)) {
        database.format_error = "it is in index format " + named + ", which its next writer rebuilds into format " +
                                cx::format + " before it is searched";
        database.format_status = CX_ERR_EARLIER_FORMAT;
        return CX_OK;
    }
    database.format_error = "it was written in index format " + named + ", and this version reads formats 2 to " +
                            cx::format + " and writes format " + cx::format;
    database.format_status = CX_ERR_VERSION;
    if (database.writable) return cx::fail(CX_ERR_VERSION, database.format_error, out_error);
    return CX_OK;
}

}  // namespace

Xapian::WritableDatabase cx::open_compacted(const std::string &path, int flags) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (true) {
        try {
            return Xapian::WritableDatabase(path, flags);
        } catch (const Xapian::DatabaseLockError &) {
            if (std::chrono::steady_clock::now() >= deadline) throw;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }
}

extern "C" {

cx_status cx_database_open(const char *path, cx_open_mode mode, cx_database **out, char **out_error) {
    *out = nullptr;
    try {
        if (path == nullptr) return cx::fail(CX_ERR_INVALID_ARGUMENT, "no path", out_error);
        auto database = std::make_unique<cx_database>();
        database->path = path;
        if (mode == CX_OPEN_WRITE) {
            database->writer = Xapian::WritableDatabase(path, Xapian::DB_CREATE_OR_OPEN);
            database->reader = database->writer;
            database->writable = true;
        } else {
            database->reader = Xapian::Database(path);
            database->sharded = is_topology(path);
        }
        if (cx_status status = check_format(*database, out_error)) return status;
        *out = database.release();
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

cx_status cx_database_open_remote(const char *host, uint16_t port, uint32_t timeout_ms, cx_database **out,
                                  char **out_error) {
    *out = nullptr;
    try {
        if (host == nullptr) return cx::fail(CX_ERR_INVALID_ARGUMENT, "no host", out_error);
        auto database = std::make_unique<cx_database>();
        database->path = std::string(host) + ":" + std::to_string(port);
        database->sharded = true;
        database->remote = true;
        database->reader = Xapian::Remote::open(host, port, timeout_ms, timeout_ms);
        if (cx_status status = check_format(*database, out_error)) return status;
        *out = database.release();
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

cx_status cx_database_open_shards(const char *name, const cx_shard *shards, size_t count, uint32_t timeout_ms,
                                  cx_database **out, char **out_error) {
    *out = nullptr;
    try {
        if (name == nullptr || shards == nullptr || count == 0)
            return cx::fail(CX_ERR_INVALID_ARGUMENT, "no shards", out_error);
        auto database = std::make_unique<cx_database>();
        database->path = name;
        database->sharded = true;
        bool copied = true;
        for (size_t i = 0; i < count; ++i) {
            const cx_shard &shard = shards[i];
            Xapian::Database opened = shard.folder != nullptr
                                          ? Xapian::Database(shard.folder)
                                          : Xapian::Remote::open(shard.host, shard.port, timeout_ms, timeout_ms);
            database->reader.add_database(opened);
            database->shards.push_back(opened);
            database->remote = database->remote || shard.folder == nullptr;
            copied = copied && shard.meaning_copy != nullptr;
        }
        if (cx_status status = check_format(*database, out_error)) return status;
        if (copied) database->meaning_copies = cx::meaning_copy::open_view(name, shards, count);
        *out = database.release();
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

cx_status cx_database_shard_metadata(cx_database *database, cx_text key, char **out_values, char **out_error) {
    *out_values = nullptr;
    if (cx_status status = cx::require_open(database, out_error)) return status;
    if (database->shards.empty()) return cx::fail(CX_ERR_INVALID_ARGUMENT, "not a view of shards", out_error);
    return cx::with_retries(database, out_error, [&] {
        const std::string name = cx::str(key);
        // A read-only view keeps its shards' records until it moves (`cx::reopen`): its check of the
        // shards' batches, at every search, asks the servers only after one of them moved. (A
        // writer's snapshot is its own call's, which nothing keeps.)
        const std::shared_ptr<cx::Snapshot> snapshot = cx::snapshot(*database);
        cx::Snapshot &kept = *snapshot;
        std::string values;
        if (const auto found = kept.shard_records.find(name); found != kept.shard_records.end()) {
            values = found->second;
        } else {
            std::vector<std::string> each(database->shards.size());
            cx::for_each_shard(*database,
                               [&](size_t shard) { each[shard] = database->shards[shard].get_metadata(name); });
            for (size_t i = 0; i < each.size(); ++i) values += (i > 0 ? "\n" : "") + each[i];
            if (kept.shard_records.size() >= cx::Snapshot::kept_records) kept.shard_records.clear();
            kept.shard_records.emplace(name, values);
        }
        if (database->meaning_copies)
            for (const Xapian::Database &copy : database->meaning_copies->shards) values += '\n' + copy.get_metadata(name);
        *out_values = cx::copy_bytes(values);
    });
}

cx_status cx_database_close(cx_database *database, char **out_error) {
    if (database == nullptr) return cx::fail(CX_ERR_INVALID_ARGUMENT, "no database handle", out_error);
    if (database->closed) return CX_OK;
    database->closed = true;
    try {
        if (database->writable && database->in_transaction) {
            database->in_transaction = false;
            database->writer.cancel_transaction();
        }
        database->reader.close();
        if (database->meaning_copies) database->meaning_copies->reader.close();
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

void cx_database_free(cx_database *database) {
    if (database == nullptr) return;
    cx_database_close(database, nullptr);
    try {
        delete database;
    } catch (...) {
        // Xapian's destructors do not throw; nothing can be reported from here in any case.
    }
}

cx_status cx_database_reopen(cx_database *database, char **out_error) {
    if (database == nullptr || database->closed) return cx::fail(CX_ERR_INVALID_ARGUMENT, "no open database", out_error);
    // Reopening reads the latest revision's roots; a commit in the meantime means reading again.
    return cx::with_retries(database, out_error, [&] {
        cx::reopen(*database);
        if (database->meaning_copies) cx::meaning_copy::reopen_and_hold(*database->meaning_copies);
    });
}

cx_status cx_database_compact(cx_database *database, const char *destination, char **out_error) {
    if (cx_status status = cx::require_open(database, out_error)) return status;
    if (destination == nullptr) return cx::fail(CX_ERR_INVALID_ARGUMENT, "no destination", out_error);
    if (database->in_transaction)
        return cx::fail(CX_ERR_INVALID_ARGUMENT, "a transaction is open; commit it first", out_error);
    try {
        // Compacts what is committed: a read-only view of the same database, so that the writer's
        // lock stays held throughout. Xapian writes and syncs the new database's tables.
        // The impact tiers are built first, in a commit of their own, so that compaction packs
        // them with the rest (a read-only handle builds them in the new database). A compacted
        // database starts again at revision 1: a commit restamps them as current there.
        if (database->writable) {
            cx::upkeep::compacting(database->writer);
            database->writer.commit();
        }
        Xapian::Database committed(database->path);
        committed.compact(destination);
        Xapian::WritableDatabase compacted = cx::open_compacted(destination, Xapian::DB_OPEN);
        cx::upkeep::compacted(compacted, database->writable);
        compacted.commit();
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

cx_status cx_database_format(cx_database *database, char **out_format, char **out_error) {
    *out_format = nullptr;
    if (cx_status status = cx::require_open(database, out_error)) return status;
    return cx::with_retries(database, out_error, [&] {
        const Xapian::Database &reader = database->reader;
        const std::string recorded = reader.get_metadata(cx::format_key);
        // An empty index takes the current format with its first items.
        *out_format = cx::copy_bytes(reader.get_doccount() == 0 ? cx::format : recorded);
    });
}

const char *cx_current_format(void) { return cx::format.c_str(); }

bool cx_database_is_writable(const cx_database *database) { return database != nullptr && database->writable; }

cx_status cx_database_begin(cx_database *database, char **out_error) {
    if (cx_status status = cx::require_writable(database, out_error)) return status;
    if (database->in_transaction) return cx::fail(CX_ERR_INVALID_ARGUMENT, "a transaction is already open", out_error);
    try {
        database->writer.begin_transaction(true);
        database->in_transaction = true;
        // The first transaction stamps the format, atomically with its items, and so does the
        // first into an index emptied since. An index of an earlier format with items is rebuilt
        // before it is written (the Kit's `SearchableIndex.upgradeIfOlder`).
        Xapian::WritableDatabase &writer = database->writer;
        const std::string recorded = writer.get_metadata(cx::format_key);
        if (writer.get_doccount() == 0) {
            if (recorded != cx::format) writer.set_metadata(cx::format_key, cx::format);
        } else if (recorded != cx::format) {
            database->in_transaction = false;
            database->writer.cancel_transaction();
            return cx::fail(CX_ERR_VERSION,
                            "it is in index format " + recorded + "; it is rebuilt into format " + cx::format +
                                " when opened for writing",
                            out_error);
        }
        database->common_words = cx::recorded_common_words(writer);
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

cx_status cx_database_commit(cx_database *database, char **out_error) {
    if (cx_status status = cx::require_writable(database, out_error)) return status;
    if (!database->in_transaction) return cx::fail(CX_ERR_INVALID_ARGUMENT, "no transaction is open", out_error);
    database->in_transaction = false;
    bool handed_to_xapian = false;
    try {
        cx::upkeep::committing(*database);
        handed_to_xapian = true;
        database->writer.commit_transaction();
        cx::upkeep::committed(*database);
        return CX_OK;
    } catch (...) {
        const cx_status status = cx::status_from_current_exception(out_error);
        cx::upkeep::dropped(*database);
        // Xapian cancels a transaction whose commit fails, and the database keeps its last
        // committed revision; one that failed before its commit is cancelled here.
        if (!handed_to_xapian) {
            try {
                database->writer.cancel_transaction();
            } catch (...) {
                // The failure reported is the first.
            }
        }
        return status;
    }
}

cx_status cx_database_cancel(cx_database *database, char **out_error) {
    if (cx_status status = cx::require_writable(database, out_error)) return status;
    if (!database->in_transaction) return CX_OK;
    database->in_transaction = false;
    cx::upkeep::dropped(*database);
    try {
        database->writer.cancel_transaction();
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

}  // extern "C"
