// Terms and values: how an item is laid out in a Xapian document.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "internal.hpp"

namespace cx {

namespace {

/// Xapian's glass backend refuses terms over 245 bytes; stay clear of it.
constexpr size_t term_limit = 240;
constexpr size_t kept_bytes = 200;


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

TextTerm text_term(const std::string &term) {
    TextTerm parsed;
    parsed.stemmed = !term.empty() && term[0] == 'Z';
    parsed.word = parsed.stemmed ? term.substr(1) : term;
    const auto take = [&](const std::string &prefix, TextTerm::Field field) {
        if (parsed.word.compare(0, prefix.size(), prefix) != 0) return false;
        parsed.word.erase(0, prefix.size());
        parsed.field = field;
        return true;
    };
    if (take(prefix::description, TextTerm::description) || take(prefix::keyword_text, TextTerm::keyword)) return parsed;
    // Title words are unprefixed; every boolean prefix is upper case.
    if (!parsed.word.empty() && !(parsed.word[0] >= 'A' && parsed.word[0] <= 'Z')) parsed.field = TextTerm::title;
    return parsed;
}

int64_t document_views(const Xapian::Document &document) {
    const std::string value = document.get_value(slot::views);
    return value.empty() ? 0 : std::strtoll(value.c_str(), nullptr, 10);
}

void set_document_views(Xapian::Document &document, int64_t views) {
    if (views <= 0) {
        // Xapian throws when asked to remove a value that is not there.
        if (!document.get_value(slot::views).empty()) document.remove_value(slot::views);
        if (!document.get_value(slot::view_boost).empty()) document.remove_value(slot::view_boost);
        return;
    }
    document.add_value(slot::views, std::to_string(views));
    document.add_value(slot::view_boost, Xapian::sortable_serialise(view_boost(views)));
}

double view_boost(int64_t views) {
    if (views <= 0) return 0;
    return std::min(1.0, std::log1p(static_cast<double>(views)) / std::log1p(1000.0));
}

}  // namespace cx
