// A shard's vectors copy (meaning_copy.hpp): one small document an item that has a vector, at the
// item's document id in its shard, kept by the shard's writer after each commit.
//
// A shard server runs none of Searchlight's code, and Xapian's remote backend reads a value one
// document a round trip: a search service that reads a shard through a server ranks by meaning over
// the shard's copy instead, which `xapian-replicate` brings to its machine as it brings the shard to
// the shard machine. The copy holds what a search by meaning reads (hybrid.cpp): the vector, the
// expiration, and the terms of visibility; the unique term, by which the items found by meaning
// are asked of the shard server; and the item's stored data, from which a page is read without a
// round trip an item (`cx::documents`). It carries the shard's batch number, which a view agrees on with
// the shards' (the Kit's `SearchableIndex.openView`).

#include "meaning_copy.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <iterator>

#include "errors.hpp"
#include "read.hpp"
#include "schema.hpp"
#include "stored.hpp"
#include "write.hpp"

namespace cx::meaning_copy {
namespace {

/// The metadata key of the number of the last batch a shard committed (the Kit's
/// `BatchJournal.batchKey`), which the copy carries too.
const std::string batch_key = "searchlight.batch";

/// The metadata key of the form of a copy's documents, and the form this version writes (`thin`):
/// 2 holds each item's data.
const std::string form_key = "searchlight.meaning_copy.form";
const std::string form = "2";

/// Whether `term` is one the copy keeps: the unique term, the mode, a private item's domain.
bool kept_term(const std::string &term) {
    return term.compare(0, prefix::unique.size(), prefix::unique) == 0 ||
           term.compare(0, prefix::mode.size(), prefix::mode) == 0 ||
           term.compare(0, prefix::private_domain.size(), prefix::private_domain) == 0;
}

/// Whether two thin documents hold the same data, values and terms.
bool same(const Xapian::Document &a, const Xapian::Document &b) {
    if (a.get_value(CX_SLOT_MEANING) != b.get_value(CX_SLOT_MEANING) || a.get_data() != b.get_data() ||
        a.get_value(slot::expiration) != b.get_value(slot::expiration) || a.termlist_count() != b.termlist_count())
        return false;
    for (auto x = a.termlist_begin(), y = b.termlist_begin(); x != a.termlist_end(); ++x, ++y)
        if (*x != *y) return false;
    return true;
}

bool exists(const std::string &path) {
    struct stat info{};
    return ::stat(path.c_str(), &info) == 0;
}

/// Writes into `copy` what item `id` of `shard` is now: its thin document, or nothing.
void write(Xapian::WritableDatabase &copy, const Xapian::Database &shard, Xapian::docid id, bool compare) {
    Xapian::Document document;
    try {
        document = thin(shard.get_document(id, Xapian::DOC_ASSUME_VALID));
    } catch (const Xapian::DocNotFoundError &) {
    }
    Xapian::Document kept;
    bool held = false;
    try {
        kept = copy.get_document(id);
        held = true;
    } catch (const Xapian::DocNotFoundError &) {
    }
    if (document.get_value(CX_SLOT_MEANING).empty()) {
        if (held) copy.delete_document(id);
        return;
    }
    if (compare && held && same(document, kept)) return;
    copy.replace_document(id, document);
}

}  // namespace

Xapian::Document thin(const Xapian::Document &document) {
    Xapian::Document thin;
    const std::string vector = document.get_value(CX_SLOT_MEANING);
    if (vector.empty()) return thin;
    thin.add_value(CX_SLOT_MEANING, vector);
    thin.set_data(self_contained_data(document));
    if (std::string expiration = document.get_value(slot::expiration); !expiration.empty())
        thin.add_value(slot::expiration, expiration);
    // The terms are few and sorted: the unique term, then the mode and the private domain.
    auto term = document.termlist_begin();
    for (const std::string &prefix : {prefix::unique, prefix::mode}) {
        term.skip_to(prefix);
        for (; term != document.termlist_end() && kept_term(*term); ++term) thin.add_boolean_term(*term);
    }
    return thin;
}

std::string stamp(const Xapian::Database &shard) {
    return shard.get_uuid() + " " + std::to_string(shard.get_revision());
}

void follow(cx_database &shard, const std::string &expected, const std::vector<Xapian::docid> *written) {
    const std::string &path = shard.meaning_copy_path;
    if (path.empty()) return;
    const Xapian::Database &reader = shard.writer;
    if (!exists(path) && reader.get_value_freq(CX_SLOT_MEANING) == 0) return;
    // A folder without Xapian's version file is a copy whose making was cut short (its writer killed
    // before Xapian wrote the file): only this shard's writer, which holds the shard's lock, writes
    // it, and it is made again whole.
    if (exists(path) && !exists(path + "/iamglass")) std::filesystem::remove_all(path);
    Xapian::WritableDatabase copy(path, Xapian::DB_CREATE_OR_OPEN);
    const std::string now = stamp(reader);
    // A copy of another form (one without the items' data) is compared item by item, and rewritten.
    const bool same_form = copy.get_metadata(form_key) == form;
    if (same_form && copy.get_metadata(of_key) == now) return;
    copy.begin_transaction();
    if (same_form && written != nullptr && !expected.empty() && copy.get_metadata(of_key) == expected) {
        std::vector<Xapian::docid> items(*written);
        std::sort(items.begin(), items.end());
        items.erase(std::unique(items.begin(), items.end()), items.end());
        for (Xapian::docid id : items) write(copy, reader, id, false);
    } else {
        // Every item compared: those the copy holds that the shard no longer gives a vector go, and
        // only those that differ are written, so that replication ships what changed.
        std::vector<Xapian::docid> held, given;
        for (auto value = copy.valuestream_begin(CX_SLOT_MEANING); value != copy.valuestream_end(CX_SLOT_MEANING);
             ++value)
            held.push_back(value.get_docid());
        for (auto value = reader.valuestream_begin(CX_SLOT_MEANING);
             value != reader.valuestream_end(CX_SLOT_MEANING); ++value)
            given.push_back(value.get_docid());
        std::vector<Xapian::docid> gone;
        std::set_difference(held.begin(), held.end(), given.begin(), given.end(), std::back_inserter(gone));
        for (Xapian::docid id : gone) copy.delete_document(id);
        for (Xapian::docid id : given) write(copy, reader, id, true);
    }
    copy.set_metadata(of_key, now);
    copy.set_metadata(form_key, form);
    copy.set_metadata(batch_key, reader.get_metadata(batch_key));
    copy.commit_transaction();
}

namespace {

/// Records the batch each of a view's copies holds at the revision it has open.
void hold(cx_database &copies) {
    std::vector<std::string> batches;
    for (const Xapian::Database &copy : copies.shards) batches.push_back(copy.get_metadata(batch_key));
    copies.copy_batches = std::move(batches);
}

}  // namespace

void reopen_and_hold(cx_database &copies) {
    cx::reopen(copies);
    hold(copies);
}

bool reopen_copies(cx_database &view) {
    if (!view.meaning_copies) return false;
    try {
        const std::vector<std::string> held = view.meaning_copies->copy_batches;
        reopen_and_hold(*view.meaning_copies);
        return view.meaning_copies->copy_batches == held;
    } catch (...) {
        return false;
    }
}

std::shared_ptr<cx_database> open_view(const char *name, const cx_shard *shards, size_t count) {
    auto copies = std::make_shared<cx_database>();
    copies->path = std::string(name) + " (vectors copies)";
    copies->sharded = true;
    std::vector<std::string> uuids;
    for (size_t i = 0; i < count; ++i) {
        Xapian::Database opened(shards[i].meaning_copy);
        uuids.push_back(opened.get_uuid());
        copies->reader.add_database(opened);
        copies->shards.push_back(opened);
        auto one = std::make_shared<cx_database>();
        one->path = shards[i].meaning_copy;
        one->reader = opened;
        copies->each_copy.push_back(std::move(one));
    }
    hold(*copies);
    std::sort(uuids.begin(), uuids.end());
    if (std::adjacent_find(uuids.begin(), uuids.end()) != uuids.end())
        throw Xapian::InvalidArgumentError("two of the vectors copies of " + std::string(name) +
                                           " are copies of one database: each shard needs its own");
    return copies;
}

}  // namespace cx::meaning_copy

extern "C" {

cx_status cx_database_keep_meaning_copy(cx_database *database, const char *path, char **out_error) {
    if (cx_status status = cx::require_writable(database, out_error)) return status;
    if (path == nullptr || *path == 0) return cx::fail(CX_ERR_INVALID_ARGUMENT, "no folder for the copy", out_error);
    if (database->in_transaction)
        return cx::fail(CX_ERR_INVALID_ARGUMENT, "a transaction is open; commit it first", out_error);
    try {
        database->meaning_copy_path = path;
        cx::meaning_copy::follow(*database, {}, nullptr);
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

}  // extern "C"
