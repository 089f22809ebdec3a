// Reading an item's stored JSON object back, for a search's results: a scanner of RFC 8259's
// object and string grammar, over data the Kit wrote (`SearchableItem.dictionary`). What it does
// not read as the Kit would is left to the Kit (`result_fields`).

#include "json.hpp"

#include <charconv>
#include <set>
#include <unordered_map>

#include "item_fields.hpp"

namespace cx {

namespace {

constexpr size_t none = std::string::npos;

/// The index past the white space from `at` in `json`.
size_t skip_space(const std::string &json, size_t at) {
    while (at < json.size() && (json[at] == ' ' || json[at] == '\n' || json[at] == '\r' || json[at] == '\t')) ++at;
    return at;
}

/// Appends the UTF-8 of `code` to `out`.
void append_utf8(std::string &out, uint32_t code) {
    if (code < 0x80) {
        out += static_cast<char>(code);
    } else if (code < 0x800) {
        out += static_cast<char>(0xC0 | (code >> 6));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
        out += static_cast<char>(0xE0 | (code >> 12));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (code >> 18));
        out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    }
}

/// The four hexadecimal digits of a `\u` escape at `at`, or -1.
int32_t hex4(const std::string &json, size_t at) {
    if (at + 4 > json.size()) return -1;
    int32_t code = 0;
    for (size_t i = at; i < at + 4; ++i) {
        const char c = json[i];
        const int digit = c >= '0' && c <= '9'   ? c - '0'
                          : c >= 'a' && c <= 'f' ? c - 'a' + 10
                          : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                 : -1;
        if (digit < 0) return -1;
        code = code * 16 + digit;
    }
    return code;
}

/// Reads the JSON string that starts at `at` (its opening quote) in `json`, as text into `out`
/// when given (RFC 8259's escapes undone; a lone surrogate becomes U+FFFD); the index past its
/// closing quote, or `none` for a malformed one.
size_t read_string(const std::string &json, size_t at, std::string *out) {
    for (++at; at < json.size();) {
        const char c = json[at++];
        if (c == '"') return at;
        if (c != '\\') {
            if (out != nullptr) *out += c;
            continue;
        }
        if (at >= json.size()) return none;
        const char escaped = json[at++];
        char plain = 0;
        switch (escaped) {
            case '"': case '\\': case '/': plain = escaped; break;
            case 'b': plain = '\b'; break;
            case 'f': plain = '\f'; break;
            case 'n': plain = '\n'; break;
            case 'r': plain = '\r'; break;
            case 't': plain = '\t'; break;
            case 'u': {
                int32_t code = hex4(json, at);
                if (code < 0) return none;
                at += 4;
                if (code >= 0xD800 && code <= 0xDBFF) {
                    const bool paired = at + 1 < json.size() && json[at] == '\\' && json[at + 1] == 'u';
                    const int32_t low = paired ? hex4(json, at + 2) : -1;
                    if (low >= 0xDC00 && low <= 0xDFFF) {
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                        at += 6;
                    } else {
                        code = 0xFFFD;
                    }
                } else if (code >= 0xDC00 && code <= 0xDFFF) {
                    code = 0xFFFD;
                }
                if (out != nullptr) append_utf8(*out, static_cast<uint32_t>(code));
                continue;
            }
            default: return none;
        }
        if (out != nullptr) *out += plain;
    }
    return none;
}

/// The index past the JSON value that starts at `at`: a string, or whatever runs to the `,` or
/// `}` that ends it at this depth (a number, a literal, a nested object or array); `none` when
/// malformed.
size_t skip_value(const std::string &json, size_t at) {
    int depth = 0;
    while (at < json.size()) {
        const char c = json[at];
        if (c == '"') {
            at = read_string(json, at, nullptr);
            if (at == none || depth == 0) return at;
            continue;
        }
        if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            if (depth == 0) return at;
            if (--depth == 0) return at + 1;
        } else if (c == ',' && depth == 0) {
            return at;
        }
        ++at;
    }
    return depth == 0 ? at : none;
}

/// The text of the string member `key` of the JSON object `json`; empty when it has none, the
/// member is not a string, or the object is malformed.
std::string string_member(const std::string &json, const std::string &key) {
    size_t at = skip_space(json, 0);
    if (at >= json.size() || json[at] != '{') return {};
    for (++at;;) {
        at = skip_space(json, at);
        if (at >= json.size() || json[at] != '"') return {};
        std::string name;
        at = read_string(json, at, &name);
        if (at == none) return {};
        at = skip_space(json, at);
        if (at >= json.size() || json[at] != ':') return {};
        at = skip_space(json, at + 1);
        if (name == key) {
            std::string value;
            if (at < json.size() && json[at] == '"' && read_string(json, at, &value) != none) return value;
            return {};
        }
        at = skip_value(json, at);
        if (at == none) return {};
        at = skip_space(json, at);
        if (at >= json.size() || json[at] != ',') return {};
        ++at;
    }
}

/// The Branch key of the description in an item's JSON (`cx_item_fields`).
const std::string &description_key() {
    static const std::string key = [] {
        for (const cx_item_field &field : item_fields()) {
            if (std::string(field.name) == "contentDescription") return std::string(field.branch_key);
        }
        return std::string();
    }();
    return key;
}

/// The fields `result_fields` reads, by the key it reads each under.
enum class Member { identifier, canonical_url, title, description, image_url, keywords, expiration, mode, domain };

/// Each key of the fields `result_fields` reads: the one it reads each under (the Branch key, or
/// the camelCase key of a field the Branch dialect has no key for, and the envelope's `domain`),
/// and every other key the Kit would read one from, for which it gives up.
const std::unordered_map<std::string, std::optional<Member>> &member_keys() {
    static const std::unordered_map<std::string, std::optional<Member>> keys = [] {
        const std::unordered_map<std::string, Member> named = {
            {"canonicalIdentifier", Member::identifier}, {"canonicalUrl", Member::canonical_url},
            {"title", Member::title},                    {"contentDescription", Member::description},
            {"imageUrl", Member::image_url},             {"keywords", Member::keywords},
            {"expirationDate", Member::expiration},      {"contentIndexMode", Member::mode},
        };
        std::unordered_map<std::string, std::optional<Member>> found{{"domain", Member::domain}};
        for (const cx_item_field &field : item_fields()) {
            const auto member = named.find(field.name);
            if (member == named.end() || field.nested) continue;
            const char *read = field.branch_key != nullptr ? field.branch_key : field.camel_key;
            for (const char *key : {field.branch_key, field.camel_key, field.camel_alias})
                if (key != nullptr) found.emplace(key, std::nullopt);
            found[read] = member->second;
        }
        return found;
    }();
    return keys;
}

/// Reads the string or `null` at `at` into `text`, noting `has`; the index past it, or `none`.
size_t read_text(const std::string &json, size_t at, std::string &text, bool *has) {
    if (json.compare(at, 4, "null") == 0) return at + 4;
    if (json[at] != '"') return none;
    if (has != nullptr) *has = true;
    return read_string(json, at, &text);
}

/// Reads keywords at `at`: an array of strings, one string, or `null`; empty texts left out.
size_t read_keywords(const std::string &json, size_t at, std::vector<std::string> &keywords) {
    if (json[at] != '[') {
        std::string text;
        at = read_text(json, at, text, nullptr);
        if (at != none && !text.empty()) keywords.push_back(std::move(text));
        return at;
    }
    at = skip_space(json, at + 1);
    if (at < json.size() && json[at] == ']') return at + 1;
    for (;;) {
        if (at >= json.size() || json[at] != '"') return none;
        std::string text;
        at = read_string(json, at, &text);
        if (at == none) return none;
        if (!text.empty()) keywords.push_back(std::move(text));
        at = skip_space(json, at);
        if (at >= json.size()) return none;
        if (json[at] == ']') return at + 1;
        if (json[at] != ',') return none;
        at = skip_space(json, at + 1);
    }
}

/// The last millisecond of year 9999: the latest date the Kit reads.
constexpr int64_t latest_date = 253402300799999;

/// Reads a date at `at`: an integer of epoch milliseconds (0 or less: none), or `null`.
size_t read_date(const std::string &json, size_t at, int64_t &date) {
    if (json.compare(at, 4, "null") == 0) return at + 4;
    const size_t end = skip_value(json, at);
    if (end == none) return none;
    size_t last = end;
    while (last > at && (json[last - 1] == ' ' || json[last - 1] == '\n' || json[last - 1] == '\r' ||
                         json[last - 1] == '\t'))
        --last;
    int64_t value = 0;
    const std::from_chars_result read = std::from_chars(json.data() + at, json.data() + last, value);
    if (read.ec != std::errc() || read.ptr != json.data() + last || value > latest_date) return none;
    date = value > 0 ? value : 0;
    return end;
}

}  // namespace

std::optional<ResultFields> result_fields(const std::string &json) {
    const auto &keys = member_keys();
    ResultFields fields;
    std::set<Member> seen;
    bool moded = false;
    size_t at = skip_space(json, 0);
    if (at >= json.size() || json[at] != '{') return std::nullopt;
    at = skip_space(json, at + 1);
    if (at < json.size() && json[at] == '}') return std::nullopt;
    for (;;) {
        if (at >= json.size() || json[at] != '"') return std::nullopt;
        std::string name;
        at = read_string(json, at, &name);
        if (at == none) return std::nullopt;
        at = skip_space(json, at);
        if (at >= json.size() || json[at] != ':') return std::nullopt;
        at = skip_space(json, at + 1);
        if (at >= json.size()) return std::nullopt;
        const auto key = keys.find(name);
        if (key == keys.end()) {
            at = skip_value(json, at);
        } else if (!key->second || !seen.insert(*key->second).second) {
            return std::nullopt;
        } else {
            switch (*key->second) {
                case Member::identifier: at = read_text(json, at, fields.identifier, nullptr); break;
                case Member::domain: at = read_text(json, at, fields.domain, nullptr); break;
                case Member::title: at = read_text(json, at, fields.title, &fields.has_title); break;
                case Member::description:
                    at = read_text(json, at, fields.description, &fields.has_description);
                    break;
                case Member::canonical_url:
                    at = read_text(json, at, fields.canonical_url, &fields.has_canonical_url);
                    break;
                case Member::image_url: at = read_text(json, at, fields.image_url, &fields.has_image_url); break;
                case Member::keywords: at = read_keywords(json, at, fields.keywords); break;
                case Member::expiration: at = read_date(json, at, fields.expiration); break;
                case Member::mode: {
                    std::string mode;
                    at = read_text(json, at, mode, nullptr);
                    if (mode != "public" && mode != "private") return std::nullopt;
                    fields.is_public = mode == "public";
                    moded = true;
                    break;
                }
            }
        }
        if (at == none) return std::nullopt;
        at = skip_space(json, at);
        if (at >= json.size()) return std::nullopt;
        if (json[at] == '}') break;
        if (json[at] != ',') return std::nullopt;
        at = skip_space(json, at + 1);
    }
    if (skip_space(json, at + 1) != json.size()) return std::nullopt;
    if (fields.identifier.empty() || fields.domain.empty() || !moded) return std::nullopt;
    return fields;
}

std::string item_description(const std::string &data) { return string_member(data, description_key()); }

}  // namespace cx
