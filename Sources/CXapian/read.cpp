// Reading without a query: one item, counts, domains, and the cursor over every item.

#include "read.hpp"

#include <algorithm>

#include "database.hpp"
#include "document.hpp"
#include "errors.hpp"
#include "matching.hpp"
#include "meaning.hpp"
#include "schema.hpp"
#include "stored.hpp"

using cx::str;

struct cx_name_list {
    std::vector<std::string> names;
    std::vector<uint64_t> counts;
};

struct cx_cursor {
    Xapian::Database reader;
    Xapian::PostingIterator position;
    Xapian::PostingIterator end;
    bool started = false;
    std::string data;
    /// The current item's source path, as `cx_cursor_next` gave it.
    std::string source;
    /// The current item's content digest (`cx::document_digest`).
    uint64_t digest = 0;
    /// Only items without a vector of meaning: the vectors' value stream, read alongside.
    bool without_meaning = false;
    Xapian::ValueIterator meaning;
    Xapian::ValueIterator meaning_end;

    /// Whether the item at `position` has a vector of meaning.
    bool has_meaning() {
        if (meaning == meaning_end) return false;
        if (meaning.get_docid() < *position) meaning.skip_to(*position);
        return meaning != meaning_end && meaning.get_docid() == *position;
    }
};

namespace {

using Query = Xapian::Query;

/// The live items matching `query` at `now_ms`, counted exactly.
Xapian::doccount count_live(const Xapian::Database &reader, const Query &query, int64_t now_ms) {
    Xapian::Enquire enquire(reader);
    cx::set_matchable_query(enquire, reader,
                            Query(Query::OP_AND_NOT, query,
                                  Query(Query::OP_VALUE_LE, cx::slot::expiration,
                                        Xapian::sortable_serialise(static_cast<double>(now_ms)))));
    return enquire.get_mset(0, 0, reader.get_doccount()).get_matches_estimated();
}

}  // namespace

namespace cx {

cx_status require_open(cx_database *database, char **out_error) {
    if (database == nullptr) return fail(CX_ERR_INVALID_ARGUMENT, "no database handle", out_error);
    if (database->closed) return fail(CX_ERR_INVALID_ARGUMENT, "the database is closed", out_error);
    return CX_OK;
}

}  // namespace cx

namespace {

/// The path of the file `document` was read from, recorded in `reader`'s metadata; empty for none.
std::string source_of(const Xapian::Database &reader, const Xapian::Document &document) {
    const std::string term = cx::source_term_of(document);
    return term.empty() ? std::string() : reader.get_metadata(cx::source_key_of_term(term));
}

}  // namespace

extern "C" {

cx_status cx_database_get(cx_database *database, cx_text domain, cx_text identifier, char **out_data,
                          size_t *out_length, char **out_source, char **out_error) {
    *out_data = nullptr;
    *out_length = 0;
    if (out_source != nullptr) *out_source = nullptr;
    if (cx_status status = cx::require_open(database, out_error)) return status;
    bool found = false;
    std::string data;
    std::string source;
    cx_status status = cx::with_retries(database, out_error, [&] {
        Xapian::Database &reader = database->reader;
        const std::string unique = cx::unique_term(str(domain), str(identifier));
        Xapian::PostingIterator posting = reader.postlist_begin(unique);
        found = posting != reader.postlist_end(unique);
        if (!found) return;
        const Xapian::Document document = reader.get_document(*posting);
        data = cx::item_data(document);
        source = source_of(reader, document);
    });
    if (status != CX_OK) return status;
    if (!found) return cx::fail(CX_ERR_NOT_FOUND, "no such item", out_error);
    try {
        *out_data = cx::copy_bytes(data);
        *out_length = data.size();
        if (out_source != nullptr && !source.empty()) *out_source = cx::copy_bytes(source);
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

cx_status cx_database_stats(cx_database *database, int64_t now_ms, cx_stats *out_stats, char **out_error) {
    if (cx_status status = cx::require_open(database, out_error)) return status;
    return cx::with_retries(database, out_error, [&] {
        Xapian::Database &reader = database->reader;
        cx_stats stats{};
        stats.documents = reader.get_doccount();
        stats.public_count = reader.get_termfreq(cx::prefix::mode + "public");
        stats.private_count = reader.get_termfreq(cx::prefix::mode + "private");
        const std::string now_key = Xapian::sortable_serialise(static_cast<double>(now_ms));
        for (auto it = reader.valuestream_begin(cx::slot::expiration); it != reader.valuestream_end(cx::slot::expiration);
             ++it) {
            if (*it <= now_key) ++stats.expired_count;
        }
        *out_stats = stats;
    });
}

cx_status cx_database_domain_stats(cx_database *database, cx_text domain, int64_t now_ms, cx_stats *out_stats,
                                   char **out_error) {
    if (cx_status status = cx::require_open(database, out_error)) return status;
    return cx::with_retries(database, out_error, [&] {
        Xapian::Database &reader = database->reader;
        const std::string domain_term = cx::bounded_term(cx::prefix::domain, str(domain));
        const Query in_domain(domain_term);
        cx_stats stats{};
        stats.documents = reader.get_termfreq(domain_term);
        for (auto [mode, count] : {std::pair{"public", &stats.public_count}, {"private", &stats.private_count}}) {
            *count = count_live(reader, Query(Query::OP_FILTER, in_domain, Query(cx::prefix::mode + mode)), now_ms);
        }
        stats.expired_count = stats.documents - std::min(stats.documents, stats.public_count + stats.private_count);
        *out_stats = stats;
    });
}

cx_status cx_database_domains(cx_database *database, cx_name_list **out, char **out_error) {
    *out = nullptr;
    if (cx_status status = cx::require_open(database, out_error)) return status;
    std::unique_ptr<cx_name_list> list;
    cx_status status = cx::with_retries(database, out_error, [&] {
        Xapian::Database &reader = database->reader;
        list = std::make_unique<cx_name_list>();
        cx::each_term(reader, cx::prefix::domain, [&](const std::string &term, Xapian::doccount frequency) {
            list->names.push_back(term.substr(cx::prefix::domain.size()));
            list->counts.push_back(frequency);
        });
    });
    if (status == CX_OK) *out = list.release();
    return status;
}

cx_status cx_database_sources(cx_database *database, cx_text prefix, cx_name_list **out, char **out_error) {
    *out = nullptr;
    if (cx_status status = cx::require_open(database, out_error)) return status;
    std::unique_ptr<cx_name_list> list;
    cx_status status = cx::with_retries(database, out_error, [&] {
        Xapian::Database &reader = database->reader;
        list = std::make_unique<cx_name_list>();
        // The paths recorded in the metadata, with the items that still carry each one.
        const std::string wanted = cx::str(prefix);
        std::vector<std::pair<std::string, uint64_t>> found;
        const std::string &keys = cx::source_key_prefix;
        for (auto key = reader.metadata_keys_begin(keys); key != reader.metadata_keys_end(keys); ++key) {
            std::string path = reader.get_metadata(*key);
            if (path.compare(0, wanted.size(), wanted) != 0) continue;
            const Xapian::doccount items = reader.get_termfreq(cx::source_term(path));
            if (items > 0) found.emplace_back(std::move(path), items);
        }
        std::sort(found.begin(), found.end());
        for (auto &[path, items] : found) {
            list->names.push_back(std::move(path));
            list->counts.push_back(items);
        }
    });
    if (status == CX_OK) *out = list.release();
    return status;
}

size_t cx_name_list_count(const cx_name_list *list) { return list->names.size(); }

cx_name_count cx_name_list_entry(const cx_name_list *list, size_t index) {
    if (index >= list->names.size()) return {{nullptr, 0}, 0};
    const std::string &name = list->names[index];
    return {{name.data(), name.size()}, list->counts[index]};
}

void cx_name_list_free(cx_name_list *list) { delete list; }

cx_status cx_cursor_open(cx_database *database, uint32_t first_position, bool without_meaning, cx_cursor **out,
                         char **out_error) {
    *out = nullptr;
    if (cx_status status = cx::require_open(database, out_error)) return status;
    try {
        auto cursor = std::make_unique<cx_cursor>();
        cursor->reader = database->reader;
        // The empty term's posting list holds every document.
        cursor->position = cursor->reader.postlist_begin("");
        cursor->end = cursor->reader.postlist_end("");
        if (first_position > 1) cursor->position.skip_to(first_position);
        cursor->without_meaning = without_meaning;
        if (without_meaning) {
            cursor->meaning = cursor->reader.valuestream_begin(CX_SLOT_MEANING);
            cursor->meaning_end = cursor->reader.valuestream_end(CX_SLOT_MEANING);
        }
        *out = cursor.release();
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

cx_status cx_cursor_next(cx_cursor *cursor, cx_text *out_data, int64_t *out_expiration_ms, int64_t *out_views,
                         cx_text *out_source, bool *out_done, char **out_error) {
    if (cursor == nullptr) return cx::fail(CX_ERR_INVALID_ARGUMENT, "no cursor", out_error);
    try {
        if (cursor->started && cursor->position != cursor->end) ++cursor->position;
        cursor->started = true;
        while (cursor->without_meaning && cursor->position != cursor->end && cursor->has_meaning()) ++cursor->position;
        *out_done = cursor->position == cursor->end;
        if (*out_done) {
            *out_data = {nullptr, 0};
            *out_expiration_ms = 0;
            *out_views = 0;
            *out_source = {nullptr, 0};
            return CX_OK;
        }
        Xapian::Document document = cursor->reader.get_document(*cursor->position);
        cursor->data = cx::item_data(document);
        cursor->source = source_of(cursor->reader, document);
        *out_source = {cursor->source.data(), cursor->source.size()};
        double expiration = cx::document_expiration(document);
        *out_expiration_ms = expiration >= cx::never_ms ? 0 : static_cast<int64_t>(expiration);
        *out_views = cx::document_views(document);
        cursor->digest = cx::document_digest(document);
        *out_data = {cursor->data.data(), cursor->data.size()};
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

uint32_t cx_cursor_position(const cx_cursor *cursor) {
    if (cursor == nullptr || !cursor->started || cursor->position == cursor->end) return 0;
    return *cursor->position;
}

uint64_t cx_cursor_digest(const cx_cursor *cursor) { return cursor == nullptr ? 0 : cursor->digest; }

void cx_cursor_free(cx_cursor *cursor) { delete cursor; }

}  // extern "C"
