// Terms and values: how an item is laid out in a Xapian document.

#include "schema.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "errors.hpp"
#include "text.hpp"

namespace cx {

namespace {

constexpr size_t kept_bytes = 200;

/// Whether a character can begin words: a word character outside the ranges Xapian splits into
/// CJK n-grams (a bigram is its own beginning already).
bool begins_words(unsigned ch) {
    if (!Xapian::Unicode::is_wordchar(ch)) return false;
    return ch < 0x2E80 || (ch > 0x2FFF && ch < 0x3000) || (ch > 0x9FFF && ch < 0xA700) ||
           (ch > 0xA71F && ch < 0xAC00) || (ch > 0xD7AF && ch < 0xF900) || (ch > 0xFAFF && ch < 0xFE30) ||
           (ch > 0xFE4F && ch < 0xFF00) || (ch > 0xFFEF && ch < 0x20000) || (ch > 0x2A6DF && ch < 0x2F800) ||
           ch > 0x2FA1F;
}

/// The byte lengths of `word`'s indexed beginnings, shortest first: one for each length from
/// `shortest_beginning` characters up to `longest_beginning` or the whole word, stopping at the
/// first character that does not begin words.
struct BeginningLengths {
    size_t bytes[longest_beginning - shortest_beginning + 1];
    size_t count = 0;
};

BeginningLengths beginning_lengths(const std::string &word) {
    BeginningLengths lengths;
    size_t characters = 0;
    const Xapian::Utf8Iterator end;
    for (Xapian::Utf8Iterator it(word); it != end && characters < longest_beginning && begins_words(*it);) {
        ++it;
        ++characters;
        if (characters >= shortest_beginning)
            lengths.bytes[lengths.count++] = it == end ? word.size() : static_cast<size_t>(it.raw() - word.data());
    }
    return lengths;
}

}  // namespace

uint64_t fnv1a64(const std::string &bytes) {
    uint64_t hash = 0xcbf29ce484222325ULL;
    for (unsigned char byte : bytes) {
        hash ^= byte;
        hash *= 0x100000001b3ULL;
    }
    return hash;
}

std::string content_digest(const std::string &data) {
    const uint64_t hash = fnv1a64(data);
    std::string value(8, '\0');
    for (int i = 0; i < 8; ++i) value[i] = static_cast<char>(hash >> (56 - 8 * i));
    return value;
}

std::string source_term(const std::string &path) { return prefix::source + content_digest(path); }

std::string source_key(const std::string &path) { return source_key_prefix + content_digest(path); }

std::string source_key_of_term(const std::string &term) { return source_key_prefix + term.substr(prefix::source.size()); }

std::string line_term(uint64_t digest) {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(digest));
    return prefix::line + hex;
}

std::string bounded_term(const std::string &prefix, const std::string &value) {
    if (prefix.size() + value.size() <= term_limit) return prefix + value;
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(fnv1a64(value)));
    return prefix + value.substr(0, kept_bytes) + "\x1f#" + hash;
}

std::string unique_term(const std::string &domain, const std::string &identifier) {
    return bounded_term(prefix::unique, domain + "\x1f" + identifier);
}

std::string keyword_term(const std::string &keyword) { return bounded_term(prefix::keyword, fold_lower(keyword)); }

std::string schema_term(const std::string &schema) { return bounded_term(prefix::schema, fold_lower(schema)); }

double document_expiration(const Xapian::Document &document) {
    std::string value = document.get_value(slot::expiration);
    return value.empty() ? never_ms : Xapian::sortable_unserialise(value);
}

bool is_rebuildable(const std::string &recorded) {
    return (recorded.size() == 1 && recorded[0] >= '2' && recorded[0] <= '9') || recorded == "10" || recorded == "11" ||
           recorded == "12";
}

Xapian::termcount field_wdf(Field field) {
    switch (field) {
        case Field::title:
            return 3;
        case Field::keyword:
            return 2;
        case Field::description:
            return 1;
    }
    return 1;
}

const FieldFilter *field_filter(Field field) {
    static const FieldFilter title{prefix::title};
    return field == Field::title ? &title : nullptr;
}

bool is_shared_word(const std::string &term) {
    // Every prefix, and the stems' `Z`, is upper case; the term generator lower-cases words.
    return !term.empty() && !(term[0] >= 'A' && term[0] <= 'Z');
}

void add_word_beginnings(Xapian::Document &document) {
    // A document lists its terms in order, so the words that share a beginning come one after
    // another: each length keeps one beginning open, and closes it when the next word does not
    // share it. A beginning that only its own word begins (`deep` in an item without `deeper`) is
    // kept: without it, an item that holds the word typed in full would miss a term of the query,
    // and Xapian would score the best match 50 % instead of 100 %.
    struct Beginning {
        std::string term;
        Xapian::termcount wdf = 0;
    };
    Beginning open[longest_beginning - shortest_beginning + 1];
    std::vector<Beginning> closed;
    for (auto it = document.termlist_begin(); it != document.termlist_end(); ++it) {
        const std::string &word = *it;
        if (!is_shared_word(word)) continue;
        const BeginningLengths lengths = beginning_lengths(word);
        for (size_t i = 0; i < lengths.count; ++i) {
            const size_t bytes = lengths.bytes[i];
            Beginning &beginning = open[i];
            const size_t prefix = prefix::beginning.size();
            const bool same = !beginning.term.empty() && beginning.term.size() == prefix + bytes &&
                              beginning.term.compare(prefix, bytes, word, 0, bytes) == 0;
            if (!same) {
                if (!beginning.term.empty()) closed.push_back(std::move(beginning));
                beginning = {prefix::beginning + word.substr(0, bytes), 0};
            }
            beginning.wdf += it.get_wdf();
        }
    }
    for (Beginning &beginning : open) {
        if (!beginning.term.empty()) closed.push_back(std::move(beginning));
    }
    for (const Beginning &beginning : closed) document.add_term(beginning.term, beginning.wdf);
}

namespace {

/// Whether the term generator gives a word that begins with `ch` a stem of its own (Xapian's
/// `should_stem`: it begins with a letter), outside the CJK ranges, whose stems `drop_cjk_stems`
/// leaves out.
bool has_stem(unsigned ch) {
    constexpr unsigned letters = (1u << Xapian::Unicode::LOWERCASE_LETTER) |
                                 (1u << Xapian::Unicode::TITLECASE_LETTER) |
                                 (1u << Xapian::Unicode::MODIFIER_LETTER) | (1u << Xapian::Unicode::OTHER_LETTER);
    return ((letters >> Xapian::Unicode::get_category(ch)) & 1) != 0 && begins_words(ch);
}

/// The first character of `term` from byte `skipped` on, or 0.
unsigned first_character(const std::string &term, size_t skipped) {
    if (term.size() <= skipped) return 0;
    return *Xapian::Utf8Iterator(term.data() + skipped, term.size() - skipped);
}

}  // namespace

bool is_match_term(const std::string &term) {
    // A stem is `Z` and a lower-case word (`ZS…` is a title filter's stem).
    if (!term.empty() && term[0] == 'Z')
        return term.size() > 1 && is_shared_word(term.substr(1, 1)) && has_stem(first_character(term, 1));
    return is_shared_word(term) && !has_stem(first_character(term, 0));
}

std::string match_term_of(const std::string &word, const Xapian::Stem &stemmer) {
    return has_stem(first_character(word, 0)) ? "Z" + stemmer(word) : word;
}

std::vector<std::pair<std::string, Xapian::termcount>> match_terms(const Xapian::Document &document) {
    std::vector<std::pair<std::string, Xapian::termcount>> terms;
    for (auto it = document.termlist_begin(); it != document.termlist_end(); ++it) {
        if (is_match_term(*it)) terms.emplace_back(*it, it.get_wdf());
    }
    return terms;
}

namespace {

/// Adds `prefix::elsewhere` of each of the document's match terms for which `in_description` is
/// false.
template <typename InDescription>
void add_elsewhere_terms_where(Xapian::Document &document, const InDescription &in_description) {
    std::vector<std::string> elsewhere;
    for (auto it = document.termlist_begin(); it != document.termlist_end(); ++it) {
        if (is_match_term(*it) && !in_description(*it, it.get_wdf())) elsewhere.push_back(prefix::elsewhere + *it);
    }
    for (const std::string &term : elsewhere) document.add_boolean_term(term);
}

}  // namespace

void add_elsewhere_terms(Xapian::Document &document,
                         const std::vector<std::pair<std::string, Xapian::termcount>> &before) {
    // Both lists are in term order: one pass over each. A term the description brought is not in
    // `before`, or has a higher frequency now.
    auto previous = before.begin();
    add_elsewhere_terms_where(document, [&](const std::string &term, Xapian::termcount wdf) {
        while (previous != before.end() && previous->first < term) ++previous;
        return previous == before.end() || previous->first != term || previous->second != wdf;
    });
}

void drop_cjk_stems(Xapian::Document &document) {
    std::vector<std::string> dropped;
    auto term = document.termlist_begin();
    for (term.skip_to("Z"); term != document.termlist_end(); ++term) {
        const std::string &name = *term;
        if (name.empty() || name[0] != 'Z') break;
        // `ZS` is a title word's stem; `Z` and a lower-case word, a shared word's.
        const size_t skipped = name.compare(0, 1 + prefix::title.size(), "Z" + prefix::title) == 0 ? 2 : 1;
        const unsigned first = first_character(name, skipped);
        if (Xapian::Unicode::is_wordchar(first) && !begins_words(first)) dropped.push_back(name);
    }
    for (const std::string &name : dropped) document.remove_term(name);
}

bool is_plain_word(const std::string &word) {
    if (word.empty()) return false;
    for (Xapian::Utf8Iterator it(word), end; it != end; ++it) {
        if (!begins_words(*it)) return false;
    }
    return true;
}

bool is_indexed_beginning(const std::string &word) {
    const BeginningLengths lengths = beginning_lengths(word);
    return lengths.count > 0 && lengths.bytes[lengths.count - 1] == word.size();
}

std::string longest_beginning_term(const std::string &word) {
    const BeginningLengths lengths = beginning_lengths(word);
    const size_t all = longest_beginning - shortest_beginning + 1;
    if (lengths.count < all || lengths.bytes[all - 1] == word.size()) return {};
    return prefix::beginning + word.substr(0, lengths.bytes[all - 1]);
}

int64_t document_views(const Xapian::Document &document) {
    const std::string value = document.get_value(slot::views);
    return value.empty() ? 0 : std::strtoll(value.c_str(), nullptr, 10);
}

void set_document_views(Xapian::Document &document, int64_t views) {
    if (views <= 0) {
        // Xapian throws when asked to remove a value that is not there.
        for (Xapian::valueno slot : {slot::views, slot::view_boost, slot::views_order}) {
            if (!document.get_value(slot).empty()) document.remove_value(slot);
        }
        return;
    }
    document.add_value(slot::views, std::to_string(views));
    document.add_value(slot::view_boost, Xapian::sortable_serialise(view_boost(views)));
    document.add_value(slot::views_order, Xapian::sortable_serialise(static_cast<double>(views)));
}

double view_boost(int64_t views) {
    if (views <= 0) return 0;
    return std::min(1.0, std::log1p(static_cast<double>(views)) / std::log1p(1000.0));
}

std::string attribute_term(Xapian::valueno slot, const std::string &text) {
    return bounded_term(attribute_prefix + std::to_string(slot) + ":", fold_lower(text));
}

std::string slot_value(const cx_value &value) {
    switch (value.kind) {
        case CX_VALUE_NUMBER:
            return Xapian::sortable_serialise(value.number);
        case CX_VALUE_TEXT:
            return str(value.text);
        case CX_VALUE_POINT:
            return Xapian::LatLongCoord(value.number, value.second).serialise();
    }
    return std::string();
}

}  // namespace cx
