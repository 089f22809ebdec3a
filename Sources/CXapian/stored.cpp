// Stored data: an item's JSON object, less the attributes whose values give them back (format 9).
//
// An attribute's value holds what the item's JSON holds under its key, exactly, for most of the
// built-in attributes: a number as `sortable_serialise` keeps it, a text as written. Kept in the
// data as well, each would be stored twice, and the data is compressed item by item, so that the
// key's name is paid in full each time. The Kit leaves such a key out of the JSON when its value
// gives it back (a field `given_back` in `cx_item_fields`), and says so in `cx_item::moved`; the
// data then starts with a mark byte and the two bytes of that set, which no JSON object starts
// with, and reading puts the keys back at the end of the object.
//
// A search reads one member back out of that JSON itself, the description its snippets are made
// from (`item_description`), with a scanner of RFC 8259's object and string grammar.

#include "stored.hpp"

#include <array>
#include <charconv>
#include <cmath>

#include "item_fields.hpp"
#include "schema.hpp"

namespace cx {

namespace {

/// The first byte of data that leaves attributes out; a JSON object starts with `{`.
constexpr char moved_mark = '\x01';
/// The mark and the two bytes of `cx_item::moved`, least significant first.
constexpr size_t moved_header = 3;

/// The slots `cx_item::moved` can name: as many as its two stored bytes have bits.
constexpr Xapian::valueno movable_slots = 16;

/// The field each slot `cx_item::moved` can name gives back (`cx_item_fields`), or null: found once.
const std::array<const cx_item_field *, movable_slots> &given_back() {
    static const std::array<const cx_item_field *, movable_slots> fields = [] {
        std::array<const cx_item_field *, movable_slots> found{};
        for (const cx_item_field &field : item_fields()) {
            if (field.given_back) found[field.slot - slot::first_attribute] = &field;
        }
        return found;
    }();
    return fields;
}

/// Whether `moved` names the attribute in `slot`.
bool names(uint32_t moved, Xapian::valueno slot) {
    const Xapian::valueno bit = slot - slot::first_attribute;
    return slot >= slot::first_attribute && bit < movable_slots && ((moved >> bit) & 1U) != 0;
}

/// Appends `text` as a JSON string.
void append_string(std::string &json, const std::string &text) {
    json += '"';
    for (const unsigned char byte : text) {
        if (byte == '"' || byte == '\\') {
            json += '\\';
            json += static_cast<char>(byte);
        } else if (byte < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", byte);
            json += escaped;
        } else {
            json += static_cast<char>(byte);
        }
    }
    json += '"';
}

/// Appends `number` as the Kit writes it: an integer when it is one below 9e15, otherwise the
/// shortest decimal that reads back as the same double.
void append_number(std::string &json, double number) {
    if (std::nearbyint(number) == number && std::fabs(number) < 9.0e15) {
        json += std::to_string(static_cast<long long>(number));
        return;
    }
    char digits[32];
    const std::to_chars_result written = std::to_chars(digits, digits + sizeof digits, number);
    json.append(digits, written.ptr);
}

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

}  // namespace

std::string item_description(const std::string &data) { return string_member(data, description_key()); }

std::string stored_data(const cx_item &item) {
    std::string data;
    if (item.moved != 0) {
        data += moved_mark;
        data += static_cast<char>(item.moved & 0xFF);
        data += static_cast<char>((item.moved >> 8) & 0xFF);
    }
    data.append(item.data.data != nullptr ? item.data.data : "", item.data.length);
    return data;
}

std::string item_digest(const cx_item &item) { return item_digest(stored_data(item), item); }

std::string item_digest(const std::string &stored, const cx_item &item) {
    std::string digested = stored;
    for (size_t i = 0; i < item.value_count && item.moved != 0; ++i) {
        const cx_value &value = item.values[i];
        if (!names(item.moved, value.slot)) continue;
        const std::string kept = slot_value(value);
        digested += std::to_string(value.slot) + ":" + std::to_string(kept.size()) + ":" + kept;
    }
    return content_digest(digested);
}

std::string item_data(const Xapian::Document &document) {
    std::string data = document.get_data();
    if (data.size() < moved_header || data[0] != moved_mark) return data;
    const uint32_t moved = static_cast<unsigned char>(data[1]) | static_cast<unsigned char>(data[2]) << 8;
    data.erase(0, moved_header);
    if (data.empty() || data.back() != '}') return data;  // not an object: left for the Kit to refuse
    data.pop_back();
    for (Xapian::valueno slot = slot::first_attribute; slot < slot::first_attribute + movable_slots; ++slot) {
        const cx_item_field *given = given_back()[slot - slot::first_attribute];
        if (!names(moved, slot) || given == nullptr) continue;
        const cx_item_field &field = *given;
        const std::string value = document.get_value(slot);
        if (value.empty()) continue;
        if (data.size() > 1) data += ',';
        append_string(data, field.branch_key);
        data += ':';
        if (field.kind == CX_VALUE_TEXT) {
            append_string(data, value);
        } else {
            append_number(data, Xapian::sortable_unserialise(value));
        }
    }
    data += '}';
    return data;
}

}  // namespace cx
