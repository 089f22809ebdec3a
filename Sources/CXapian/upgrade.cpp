// Rebuilding an item of an earlier index format into the current one (`upgraded_document`).

#include <map>
#include <set>

#include "internal.hpp"
#include "read.hpp"

namespace cx {

namespace {

/// Whether `term` starts with `prefix`.
bool starts(const std::string &term, const std::string &prefix) { return term.compare(0, prefix.size(), prefix) == 0; }

/// A free-text term of formats 2 to 5, taken apart: its field, whether it is a stem, and the word
/// (or stem) alone. False for every other term.
bool per_field_text(const std::string &term, Field &field, bool &stemmed, std::string &word) {
    stemmed = starts(term, "Z");
    word = stemmed ? term.substr(1) : term;
    if (starts(word, prefix::description)) {
        field = Field::description;
        word.erase(0, prefix::description.size());
    } else if (starts(word, prefix::keyword_text)) {
        field = Field::keyword;
        word.erase(0, prefix::keyword_text.size());
    } else if (is_shared_word(word)) {
        field = Field::title;  // unprefixed
    } else {
        return false;
    }
    return !word.empty();
}

/// Whether `term` is one of the terms formats 3 to 5 added for their own searches: beginnings per
/// field (`XBT`, `XBK`, `XBC`), repeated terms (`XW`, `XWW`), pairs of common words (`XJ`) and
/// the mark of items without them (`XN`).
bool is_per_field_extra(const std::string &term) {
    for (const char *extra : {"XBT", "XBK", "XBC", "XW", "XJ", "XN"}) {
        if (starts(term, extra)) return true;
    }
    return false;
}

}  // namespace

Xapian::Document upgraded_document(const Xapian::Document &document, Layout from) {
    Xapian::Document fresh;
    if (from == Layout::shared) {
        // Formats 7 and 8: the same terms, values and data; the views become sortable too. The
        // attributes are added from the items' data, and leave it (`cx_database_add_attributes`).
        fresh = document;
        set_document_views(fresh, document_views(document));
        return fresh;
    }
    // The match terms (`is_match_term`) of the item's description.
    std::set<std::string> described;
    if (from == Layout::shared_with_description_terms) {
        // Format 6: the same terms, less the description's `XC` terms, which say what is described:
        // its words' stems (`XCrun`), or, as the first format 6 release wrote them, its words and
        // their stems (`XCrunning`, `ZXCrun`). The beginnings are made again below.
        const std::string stemmed_description = "Z" + prefix::description;
        for (auto it = document.termlist_begin(); it != document.termlist_end(); ++it) {
            const std::string &term = *it;
            if (starts(term, prefix::description)) {
                described.insert(term.substr(prefix::description.size()));
            } else if (starts(term, stemmed_description)) {
                described.insert(term.substr(stemmed_description.size()));
            } else if (!starts(term, prefix::beginning)) {
                for (auto position = it.positionlist_begin(); position != it.positionlist_end(); ++position)
                    fresh.add_posting(term, *position, 0);
                fresh.add_term(term, it.get_wdf());
            }
        }
    } else {
        struct Shared {
            Xapian::termcount wdf = 0;
            std::vector<Xapian::termpos> positions;
        };
        std::map<std::string, Shared> shared;
        for (auto it = document.termlist_begin(); it != document.termlist_end(); ++it) {
            const std::string &term = *it;
            Field field;
            bool stemmed;
            std::string word;
            if (!per_field_text(term, field, stemmed, word)) {
                if (!is_per_field_extra(term)) fresh.add_term(term, it.get_wdf());
                continue;
            }
            const std::string key = stemmed ? "Z" + word : word;
            Shared &merged = shared[key];
            merged.wdf += it.get_wdf();
            for (auto position = it.positionlist_begin(); position != it.positionlist_end(); ++position)
                merged.positions.push_back(*position);
            if (field == Field::description) described.insert(word);
            if (const FieldFilter *filter = field_filter(field))
                fresh.add_term((stemmed ? "Z" : "") + filter->prefix + word, 0);
        }
        for (const auto &[term, merged] : shared) {
            for (Xapian::termpos position : merged.positions) fresh.add_posting(term, position, 0);
            fresh.add_term(term, merged.wdf);
        }
    }
    for (auto value = document.values_begin(); value != document.values_end(); ++value) {
        if (value.get_valueno() != slot::description) fresh.add_value(value.get_valueno(), *value);
    }
    fresh.set_data(document.get_data());
    drop_cjk_stems(fresh);
    // A stem `Zs` is described when `s` is; a word without a stem, when it or (format 6's
    // STEM_ALL) its stem is.
    add_elsewhere_terms_where(fresh, [&described](const std::string &term, Xapian::termcount) {
        if (term[0] == 'Z') return described.count(term.substr(1)) > 0;
        return described.count(term) > 0 || described.count(filter_stem(term)) > 0;
    });
    add_word_beginnings(fresh);
    set_document_views(fresh, document_views(fresh));
    return fresh;
}

}  // namespace cx

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
            if (items[i].moved != 0) {
                const std::string stored = cx::stored_data(items[i]);
                document.set_data(stored);
                document.add_value(cx::slot::digest, cx::item_digest(stored, items[i]));
            }
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
            for (term.skip_to(terms); term != document.termlist_end() && cx::starts(*term, terms); ++term)
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
    return cx::with_retries(database, out_error,
                            [&] { *out_value = cx::copy_bytes(database->reader.get_metadata(cx::str(key))); });
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

}  // extern "C"
