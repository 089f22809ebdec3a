// An index's fields beyond the built-in ones: attributes added to the items stored, and cleared,
#include "database.hpp"
#include "document.hpp"
#include "errors.hpp"
#include "read.hpp"
#include "schema.hpp"
#include "write.hpp"
// and the Kit's own records in the metadata (its custom fields).

namespace {

/// Whether `term` starts with `prefix`.
bool starts(const std::string &term, const std::string &prefix) { return term.compare(0, prefix.size(), prefix) == 0; }

}  // namespace

extern "C" {

cx_status cx_database_add_attributes(cx_database *database, const cx_item *items, size_t count, char **out_error) {
    if (cx_status status = cx::require_writable(database, out_error)) return status;
    if (items == nullptr && count > 0) return cx::fail(CX_ERR_INVALID_ARGUMENT, "no items", out_error);
    try {
        Xapian::WritableDatabase &writer = database->writer;
        for (size_t i = 0; i < count; ++i) {
            const std::string unique = cx::unique_term(cx::str(items[i].domain), cx::str(items[i].identifier));
            Xapian::PostingIterator found = writer.postlist_begin(unique);
            if (found == writer.postlist_end(unique)) continue;
            Xapian::Document document = writer.get_document(*found);
            cx::add_attributes(document, items[i]);
            writer.replace_document(*found, document);
        }
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

cx_status cx_database_clear_attribute(cx_database *database, uint32_t slot, uint64_t *out_count, char **out_error) {
    *out_count = 0;
    if (cx_status status = cx::require_writable(database, out_error)) return status;
    if (slot < cx::slot::first_attribute || slot == CX_SLOT_RELEVANCE)
        return cx::fail(CX_ERR_INVALID_ARGUMENT, "not an attribute's slot", out_error);
    try {
        Xapian::WritableDatabase &writer = database->writer;
        // The documents first: a stream is not read while the documents it lists change.
        std::vector<Xapian::docid> holders;
        try {
            for (auto it = writer.valuestream_begin(slot); it != writer.valuestream_end(slot); ++it)
                holders.push_back(it.get_docid());
        } catch (const Xapian::UnimplementedError &) {
            // A remote shard streams no values (Xapian 1.4): each document is looked at.
            holders.clear();
            for (auto it = writer.postlist_begin(""); it != writer.postlist_end(""); ++it) {
                if (!writer.get_document(*it).get_value(slot).empty()) holders.push_back(*it);
            }
        }
        const std::string terms = cx::attribute_prefix + std::to_string(slot) + ":";
        for (Xapian::docid id : holders) {
            Xapian::Document document = writer.get_document(id);
            document.remove_value(slot);
            std::vector<std::string> filters;
            auto term = document.termlist_begin();
            for (term.skip_to(terms); term != document.termlist_end() && starts(*term, terms); ++term)
                filters.push_back(*term);
            for (const std::string &filter : filters) document.remove_term(filter);
            writer.replace_document(id, document);
        }
        *out_count = holders.size();
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

cx_status cx_database_metadata(cx_database *database, cx_text key, char **out_value, char **out_error) {
    *out_value = nullptr;
    if (cx_status status = cx::require_open(database, out_error)) return status;
    // A read-only handle reads a record once a revision: a search reads the custom fields'.
    return cx::with_retries(database, out_error, [&] {
        *out_value = cx::copy_bytes(database->writable ? database->reader.get_metadata(cx::str(key))
                                                       : cx::metadata(*database, *cx::snapshot(*database), cx::str(key)));
    });
}

cx_status cx_database_set_metadata(cx_database *database, cx_text key, cx_text value, char **out_error) {
    if (cx_status status = cx::require_writable(database, out_error)) return status;
    const std::string name = cx::str(key);
    if (!cx::is_kit_key(name)) return cx::fail(CX_ERR_INVALID_ARGUMENT, "not a key the Kit keeps: " + name, out_error);
    try {
        database->writer.set_metadata(name, cx::str(value));
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

cx_status cx_database_copy_metadata(cx_database *to, cx_database *from, cx_text prefix, char **out_error) {
    if (cx_status status = cx::require_writable(to, out_error)) return status;
    if (cx_status status = cx::require_open(from, out_error)) return status;
    const std::string start = cx::str(prefix);
    if (!cx::is_kit_key(start)) return cx::fail(CX_ERR_INVALID_ARGUMENT, "not a prefix the Kit keeps: " + start, out_error);
    try {
        const Xapian::Database &reader = from->reader;
        for (auto key = reader.metadata_keys_begin(start); key != reader.metadata_keys_end(start); ++key)
            to->writer.set_metadata(*key, reader.get_metadata(*key));
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

}  // extern "C"
