// Writes: items' documents stored, replaced and deleted, and views recorded.

#include "write.hpp"

#include <algorithm>
#include <unordered_set>

#include "database.hpp"
#include "document.hpp"
#include "errors.hpp"
#include "pairs.hpp"
#include "read.hpp"
#include "schema.hpp"
#include "upkeep.hpp"

using cx::str;

namespace {

/// Stores one item's document: replaces the stored version, adds a new item without a look-up,
/// or, for an item already expired, deletes the stored version. Counts the title's words for the
/// spelling data. Returns the outcome.
int32_t store(cx_database &database, const cx_item &item, const std::string &unique, Xapian::Document &document,
              int64_t now_ms, cx::SpellingCounts &spelling) {
    Xapian::WritableDatabase &writer = database.writer;
    bool existed = writer.term_exists(unique);
    if (item.expiration_ms > 0 && item.expiration_ms <= now_ms) {
        if (existed) {
            for (auto it = writer.postlist_begin(unique); it != writer.postlist_end(unique); ++it)
                cx::upkeep::rewritten(database, *it);
            writer.delete_document(unique);
        }
        return 2;
    }
    spelling.count(document);
    if (database.common_words) cx::add_pairs(document, *database.common_words);
    // Xapian: replace_document(term, doc) replaces the first document indexed by `term` and
    // deletes any others.
    Xapian::docid id;
    if (existed) {
        id = *writer.postlist_begin(unique);
        cx::keep_views(document, writer.get_document(id), item);
        writer.replace_document(unique, document);
    } else if (item.document_id != 0) {
        if (item.document_id <= writer.get_lastdocid())
            throw Xapian::InvalidArgumentError("document id " + std::to_string(item.document_id) +
                                               " is not past the last one, " + std::to_string(writer.get_lastdocid()));
        id = item.document_id;
        writer.replace_document(id, document);
    } else {
        id = writer.add_document(document);
    }
    cx::upkeep::stored(database, id, document);
    return existed ? 1 : 0;
}

}  // namespace

namespace cx {

cx_status require_writable(cx_database *database, char **out_error) {
    if (database == nullptr) return fail(CX_ERR_INVALID_ARGUMENT, "no database handle", out_error);
    if (database->closed) return fail(CX_ERR_INVALID_ARGUMENT, "the database is closed", out_error);
    if (!database->writable) return fail(CX_ERR_INVALID_ARGUMENT, "the database is open read-only", out_error);
    return CX_OK;
}

}  // namespace cx

namespace {

/// Calls `outcome(writer, identifier)` for each identifier, on a writable handle, and stores what
/// it returns in `out_outcomes`.
template <typename Outcome>
cx_status for_each_identifier(cx_database *database, const cx_text *identifiers, size_t count, int32_t *out_outcomes,
                              char **out_error, Outcome outcome) {
    if (cx_status status = cx::require_writable(database, out_error)) return status;
    if ((identifiers == nullptr || out_outcomes == nullptr) && count > 0)
        return cx::fail(CX_ERR_INVALID_ARGUMENT, "no identifiers", out_error);
    try {
        for (size_t i = 0; i < count; ++i) out_outcomes[i] = outcome(database->writer, str(identifiers[i]));
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

}  // namespace

extern "C" {

cx_status cx_database_find_unchanged(cx_database *database, const cx_item *items, size_t count, int64_t now_ms,
                                     uint8_t *out_unchanged, char **out_error) {
    if (cx_status status = cx::require_writable(database, out_error)) return status;
    if ((items == nullptr || out_unchanged == nullptr) && count > 0)
        return cx::fail(CX_ERR_INVALID_ARGUMENT, "no items", out_error);
    try {
        Xapian::WritableDatabase &writer = database->writer;
        std::unordered_set<std::string> seen;
        for (size_t i = 0; i < count; ++i) {
            const cx_item &item = items[i];
            std::string unique = cx::unique_term(str(item.domain), str(item.identifier));
            cx::Sameness sameness = cx::Sameness::different;
            const bool repeated = !seen.insert(unique).second;
            if (!repeated && !(item.expiration_ms > 0 && item.expiration_ms <= now_ms)) {
                Xapian::PostingIterator posting = writer.postlist_begin(unique);
                if (posting != writer.postlist_end(unique))
                    sameness = cx::stores_the_same(writer.get_document(*posting), item);
            }
            out_unchanged[i] = sameness == cx::Sameness::same ? 1 : sameness == cx::Sameness::moved ? 2 : 0;
        }
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

cx_status cx_database_find_documents(cx_database *database, const cx_item *items, size_t count,
                                     uint32_t *out_documents, uint32_t *out_last, char **out_error) {
    if (cx_status status = cx::require_open(database, out_error)) return status;
    if ((items == nullptr || out_documents == nullptr) && count > 0)
        return cx::fail(CX_ERR_INVALID_ARGUMENT, "no items", out_error);
    if (out_last == nullptr) return cx::fail(CX_ERR_INVALID_ARGUMENT, "no place for the last id", out_error);
    try {
        const Xapian::Database &handle = database->reader;
        std::vector<std::string> uniques;
        uniques.reserve(count);
        for (size_t i = 0; i < count; ++i) {
            uniques.push_back(cx::unique_term(str(items[i].domain), str(items[i].identifier)));
            out_documents[i] = 0;
        }
        *out_last = handle.get_lastdocid();
        if (count == 0) return CX_OK;
        // One search first: over a remote shard, each look-up is a round trip, and a write of new
        // items finds none of them.
        Xapian::Enquire enquire(handle);
        enquire.set_query(Xapian::Query(Xapian::Query::OP_OR, uniques.begin(), uniques.end()));
        enquire.set_weighting_scheme(Xapian::BoolWeight());
        if (enquire.get_mset(0, 1).empty()) return CX_OK;
        for (size_t i = 0; i < count; ++i) {
            Xapian::PostingIterator posting = handle.postlist_begin(uniques[i]);
            if (posting != handle.postlist_end(uniques[i])) out_documents[i] = *posting;
        }
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

cx_status cx_database_store_documents(cx_database *database, cx_documents *documents, const cx_item *items,
                                      size_t count, int64_t now_ms, int32_t *out_outcomes, char **out_error) {
    if (cx_status status = cx::require_writable(database, out_error)) return status;
    if (documents == nullptr || (items == nullptr && count > 0) || documents->documents.size() != count)
        return cx::fail(CX_ERR_INVALID_ARGUMENT, "the documents were not built from these items", out_error);
    try {
        cx::SpellingCounts spelling;
        cx::SourcePaths sources;
        for (size_t i = 0; i < count; ++i) {
            sources.record(database->writer, items[i]);
            int32_t outcome = store(*database, items[i], documents->uniques[i], documents->documents[i],
                                    now_ms, spelling);
            if (out_outcomes != nullptr) out_outcomes[i] = outcome;
        }
        spelling.add_to(database->writer);
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

cx_status cx_database_find_lines(cx_database *database, const uint64_t *digests, size_t count, int64_t now_ms,
                                 uint32_t *out_documents, char **out_error) {
    if (cx_status status = cx::require_open(database, out_error)) return status;
    if ((digests == nullptr || out_documents == nullptr) && count > 0)
        return cx::fail(CX_ERR_INVALID_ARGUMENT, "no digests", out_error);
    return cx::with_retries(database, out_error, [&] {
        Xapian::Database &reader = database->reader;
        for (size_t i = 0; i < count; ++i) {
            const std::string term = cx::line_term(digests[i]);
            Xapian::PostingIterator posting = reader.postlist_begin(term);
            const bool live = posting != reader.postlist_end(term) &&
                              cx::document_expiration(reader.get_document(*posting)) > static_cast<double>(now_ms);
            out_documents[i] = live ? *posting : 0;
        }
    });
}

cx_status cx_database_delete_items(cx_database *database, cx_text domain, const cx_text *identifiers, size_t count,
                                   bool include_public, int32_t *out_outcomes, char **out_error) {
    return for_each_identifier(database, identifiers, count, out_outcomes, out_error,
                               [&](Xapian::WritableDatabase &writer, const std::string &identifier) {
                                   const std::string unique = cx::unique_term(str(domain), identifier);
                                   Xapian::PostingIterator posting = writer.postlist_begin(unique);
                                   if (posting == writer.postlist_end(unique)) return CX_REMOVAL_NOT_FOUND;
                                   if (!include_public &&
                                       writer.get_document(*posting).get_value(cx::slot::is_public) == "1")
                                       return CX_REMOVAL_REFUSED_PUBLIC;
                                   cx::upkeep::rewritten(*database, *posting);
                                   writer.delete_document(unique);
                                   return CX_REMOVED;
                               });
}

cx_status cx_database_record_views(cx_database *database, cx_text domain, const cx_text *identifiers, size_t count,
                                   int64_t now_ms, int32_t *out_outcomes, char **out_error) {
    return for_each_identifier(
        database, identifiers, count, out_outcomes, out_error,
        [&](Xapian::WritableDatabase &writer, const std::string &identifier) {
            const auto live = [&](Xapian::docid id) {
                return cx::document_expiration(writer.get_document(id)) > static_cast<double>(now_ms);
            };
            // The domain's own item, else a public item of any domain: what a get from the
            // domain would show.
            Xapian::docid found = 0;
            const std::string unique = cx::unique_term(str(domain), identifier);
            Xapian::PostingIterator own = writer.postlist_begin(unique);
            if (own != writer.postlist_end(unique) && live(*own)) found = *own;
            const std::string any = cx::bounded_term(cx::prefix::identifier, identifier);
            for (auto it = writer.postlist_begin(any); found == 0 && it != writer.postlist_end(any); ++it) {
                if (writer.get_document(*it).get_value(cx::slot::is_public) == "1" && live(*it)) found = *it;
            }
            if (found == 0) return 0;
            // The document as stored, its terms untouched: Xapian rewrites only its values.
            Xapian::Document document = writer.get_document(found);
            cx::set_document_views(document, cx::document_views(document) + 1);
            writer.replace_document(found, document);
            return 1;
        });
}

cx_status cx_database_delete_domain(cx_database *database, cx_text domain, bool include_public, uint64_t *out_removed,
                                    char **out_error) {
    if (cx_status status = cx::require_writable(database, out_error)) return status;
    *out_removed = 0;
    try {
        Xapian::WritableDatabase &writer = database->writer;
        const std::string term = cx::prefix::domain_tree + str(domain);
        std::vector<Xapian::docid> doomed;
        for (auto it = writer.postlist_begin(term); it != writer.postlist_end(term); ++it) {
            if (include_public || writer.get_document(*it).get_value(cx::slot::is_public) != "1") doomed.push_back(*it);
        }
        for (Xapian::docid id : doomed) {
            cx::upkeep::rewritten(*database, id);
            writer.delete_document(id);
        }
        *out_removed = doomed.size();
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

cx_status cx_database_delete_source(cx_database *database, cx_text source, const cx_text *keep_domains,
                                    const cx_text *keep_identifiers, size_t keep_count, uint64_t *out_removed,
                                    char **out_error) {
    if (cx_status status = cx::require_writable(database, out_error)) return status;
    if ((keep_domains == nullptr || keep_identifiers == nullptr) && keep_count > 0)
        return cx::fail(CX_ERR_INVALID_ARGUMENT, "no items to keep", out_error);
    *out_removed = 0;
    if (source.length == 0) return CX_OK;
    try {
        Xapian::WritableDatabase &writer = database->writer;
        std::unordered_set<std::string> kept;
        for (size_t i = 0; i < keep_count; ++i) kept.insert(cx::unique_term(str(keep_domains[i]), str(keep_identifiers[i])));
        const std::string term = cx::source_term(str(source));
        std::vector<Xapian::docid> doomed;
        for (auto it = writer.postlist_begin(term); it != writer.postlist_end(term); ++it) {
            if (kept.empty()) {
                doomed.push_back(*it);
                continue;
            }
            Xapian::TermIterator unique = writer.termlist_begin(*it);
            unique.skip_to(cx::prefix::unique);
            if (unique == writer.termlist_end(*it) || kept.count(*unique) == 0) doomed.push_back(*it);
        }
        for (Xapian::docid id : doomed) {
            cx::upkeep::rewritten(*database, id);
            writer.delete_document(id);
        }
        *out_removed = doomed.size();
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

cx_status cx_database_delete_expired(cx_database *database, int64_t now_ms, bool dry_run, uint64_t *out_count,
                                     char **out_error) {
    *out_count = 0;
    if (database == nullptr || database->closed) return cx::fail(CX_ERR_INVALID_ARGUMENT, "no open database", out_error);
    if (!dry_run) {
        if (cx_status status = cx::require_writable(database, out_error)) return status;
    }
    try {
        Xapian::Database &reader = database->reader;
        // Sortable serialisations compare as strings in the same order as the numbers.
        const std::string now_key = Xapian::sortable_serialise(static_cast<double>(now_ms));
        std::vector<Xapian::docid> expired;
        for (auto it = reader.valuestream_begin(cx::slot::expiration); it != reader.valuestream_end(cx::slot::expiration);
             ++it) {
            if (*it <= now_key) expired.push_back(it.get_docid());
        }
        if (!dry_run) {
            for (Xapian::docid id : expired) {
                cx::upkeep::rewritten(*database, id);
                database->writer.delete_document(id);
            }
        }
        *out_count = expired.size();
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

}  // extern "C"
