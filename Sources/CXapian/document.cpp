// Documents: what an item's Xapian document holds, built without a database, so that any thread
// may build them.

#include "document.hpp"

#include <memory>

#include "errors.hpp"
#include "language.hpp"
#include "schema.hpp"
#include "stored.hpp"
#include "text.hpp"

using cx::str;

namespace cx {

/// Builds the document for one item: free text for ranking and field search, boolean terms
/// for filters and identity, and the values searches need.
///
/// The words of every field go into one term space, each occurrence adding its field's
/// weight to the word's within-item frequency, so that a title word counts three times a
/// description word before BM25 saturates it. The position gaps keep phrases from matching across
/// fields. The title's words are also boolean field terms, without positions, for `title:`; the
/// words the description lacks are `XE` terms, for `description:`; a keyword's whole text is its
/// `keyword:` term. The words' beginnings serve as-you-type.
Xapian::Document make_document(Xapian::TermGenerator &generator, const cx_item &item, const std::string &unique) {
    Xapian::Document document;
    generator.set_document(document);
    generator.set_stemmer(cx::stemmer_for(item_language(item)));
    const auto index = [&](const std::string &text, cx::Field field) {
        const std::string folded = cx::fold_accents(text);
        generator.index_text(folded, cx::field_wdf(field));
        if (const cx::FieldFilter *filter = cx::field_filter(field))
            generator.index_text_without_positions(folded, 0, filter->prefix);
    };

    index(str(item.title), cx::Field::title);
    for (size_t i = 0; i < item.keyword_count; ++i) {
        const std::string keyword = str(item.keywords[i]);
        generator.increase_termpos(100);
        index(keyword, cx::Field::keyword);
        document.add_boolean_term(cx::keyword_term(keyword));
    }
    const auto outside_description = cx::match_terms(document);
    generator.increase_termpos(100);
    index(str(item.description), cx::Field::description);
    cx::drop_cjk_stems(document);
    cx::add_elsewhere_terms(document, outside_description);
    cx::add_word_beginnings(document);

    const std::string domain = str(item.domain);
    const std::string identifier = str(item.identifier);
    document.add_boolean_term(unique);
    document.add_boolean_term(cx::prefix::domain + domain);
    for (size_t dot = 0;; ++dot) {
        dot = domain.find('.', dot);
        document.add_boolean_term(cx::prefix::domain_tree + domain.substr(0, dot));
        if (dot == std::string::npos) break;
    }
    document.add_boolean_term(cx::prefix::mode + (item.is_public ? "public" : "private"));
    document.add_boolean_term(cx::bounded_term(cx::prefix::identifier, identifier));
    if (item.schema.length > 0) document.add_boolean_term(cx::schema_term(str(item.schema)));

    if (!item.is_public) document.add_boolean_term(cx::bounded_term(cx::prefix::private_domain, domain));
    if (item.expiration_ms > 0)
        document.add_value(cx::slot::expiration, Xapian::sortable_serialise(static_cast<double>(item.expiration_ms)));
    document.add_value(cx::slot::is_public, item.is_public ? "1" : "0");
    const std::string stored = cx::stored_data(item);
    document.add_value(cx::slot::digest, cx::content_digest(stored));
    if (item.line_digest != 0) document.add_boolean_term(cx::line_term(item.line_digest));
    if (item.source.length > 0) document.add_boolean_term(cx::source_term(str(item.source)));
    if (item.views >= 0) cx::set_document_views(document, item.views);
    cx::add_attributes(document, item);
    // An item that names no language is English's, and says so to `language:` and its counts.
    if (document.get_value(cx::slot::language).empty()) {
        document.add_value(cx::slot::language, "en");
        document.add_boolean_term(cx::attribute_term(cx::slot::language, "en"));
    }
    document.set_data(stored);
    return document;
}

std::string item_language(const cx_item &item) {
    for (size_t i = 0; i < item.value_count; ++i) {
        const cx_value &value = item.values[i];
        if (value.slot == cx::slot::language && value.kind == CX_VALUE_TEXT) return cx::language_code(str(value.text));
    }
    return "en";
}

Sameness stores_the_same(const Xapian::Document &stored, const cx_item &item) {
    if (stored.get_value(cx::slot::digest) != cx::item_digest(item) ||
        (item.views >= 0 && item.views != cx::document_views(stored)))
        return Sameness::different;
    const std::string source = item.source.length > 0 ? cx::source_term(str(item.source)) : std::string();
    return source_term_of(stored) == source ? Sameness::same : Sameness::moved;
}

std::string source_term_of(const Xapian::Document &document) {
    Xapian::TermIterator term = document.termlist_begin();
    term.skip_to(cx::prefix::source);
    if (term == document.termlist_end()) return std::string();
    const std::string &name = *term;
    return name.size() == cx::prefix::source.size() + 8 && name.compare(0, cx::prefix::source.size(), cx::prefix::source) == 0
               ? name
               : std::string();
}

void SourcePaths::record(Xapian::WritableDatabase &writer, const cx_item &item) {
    if (item.source.length == 0) return;
    std::string path = str(item.source);
    if (recorded.count(path) > 0) return;
    const std::string key = cx::source_key(path);
    if (writer.get_metadata(key) != path) writer.set_metadata(key, path);
    recorded.insert(std::move(path));
}

void keep_views(Xapian::Document &fresh, const Xapian::Document &stored, const cx_item &item) {
    if (item.views < 0) cx::set_document_views(fresh, cx::document_views(stored));
}

void add_attributes(Xapian::Document &document, const cx_item &item) {
    for (size_t i = 0; i < item.value_count; ++i) {
        const cx_value &value = item.values[i];
        if (value.slot < slot::first_attribute) continue;
        const std::string kept = slot_value(value);
        document.add_value(value.slot, kept);
        if (value.kind == CX_VALUE_TEXT) document.add_boolean_term(attribute_term(value.slot, kept));
    }
}

Xapian::TermGenerator make_generator() {
    Xapian::TermGenerator generator;
    generator.set_stemmer(Xapian::Stem("english"));
    generator.set_stemming_strategy(Xapian::TermGenerator::STEM_SOME);
    generator.set_flags(Xapian::TermGenerator::FLAG_CJK_NGRAM);
    return generator;
}

void SpellingCounts::count(const Xapian::Document &document) {
    const std::string &title = cx::prefix::title;
    auto term = document.termlist_begin();
    for (term.skip_to(title); term != document.termlist_end(); ++term) {
        const std::string &name = *term;
        if (name.compare(0, title.size(), title) != 0) break;
        ++words[name.substr(title.size())];
    }
}

void SpellingCounts::add_to(Xapian::WritableDatabase &writer) {
    for (const auto &[word, count] : words) writer.add_spelling(word, count);
    words.clear();
}

}  // namespace cx

extern "C" {

cx_status cx_documents_build(const cx_item *items, size_t count, cx_documents **out, char **out_error) {
    if (out == nullptr || (items == nullptr && count > 0))
        return cx::fail(CX_ERR_INVALID_ARGUMENT, "no items", out_error);
    *out = nullptr;
    try {
        // A generator (and stemmer) of its own: Xapian's objects are not shared between threads.
        Xapian::TermGenerator generator = cx::make_generator();
        auto built = std::make_unique<cx_documents>();
        built->documents.reserve(count);
        built->uniques.reserve(count);
        for (size_t i = 0; i < count; ++i) {
            built->uniques.push_back(cx::unique_term(str(items[i].domain), str(items[i].identifier)));
            built->documents.push_back(cx::make_document(generator, items[i], built->uniques.back()));
        }
        *out = built.release();
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

void cx_documents_free(cx_documents *documents) { delete documents; }

}  // extern "C"
