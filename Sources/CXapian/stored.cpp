// Stored data: an item's JSON object, with the attributes whose values give them back carried in a
// compact form of their own (format 10).
//
// An attribute's value holds what the item's JSON holds under its key, exactly, for most of the
// built-in attributes: a number as `sortable_serialise` keeps it, a text as written. Kept in the
// JSON as well, each would be stored twice, and the data is compressed item by item, so that the
// key's name is paid in full each time. The Kit leaves such a key out of the JSON when its value
// gives it back (a field `given_back` in `cx_item_fields`), and says so in `cx_item::moved`; the
// data then starts with a mark byte, which no JSON object starts with, and carries those values
// before the JSON, each as a slot byte, a length and the value's bytes. Reading puts the keys back
// at the end of the object from there: a page of results reads each item's data and nothing else.
// (Format 9 left such values to the value streams alone, and reading a page looked up every one
// of them in its own stream, a B-tree search each; its data is still read, for its rebuild.)
//
// A search reads what its results show back out of that JSON with json.cpp's scanner.

#include "stored.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <utility>
#include <vector>

#include "item_fields.hpp"
#include "schema.hpp"

namespace cx {

namespace {

/// The first byte of data that carries the attributes it leaves out of its JSON (format 10); a
/// JSON object starts with `{`. A byte of how many follows, then each attribute as a byte of its
/// slot past `slot::first_attribute`, its value's length (`append_length`) and the value.
constexpr char carried_mark = '\x02';

/// The first byte of format 9's data that leaves attributes out, to be read from their values;
/// the mark and the two bytes of `cx_item::moved`, least significant first.
constexpr char moved_mark = '\x01';
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

/// Appends `length` in seven-bit groups, least significant first, the high bit marking more.
void append_length(std::string &data, size_t length) {
    while (length >= 0x80) {
        data += static_cast<char>(0x80 | (length & 0x7F));
        length >>= 7;
    }
    data += static_cast<char>(length);
}

/// Reads a length `append_length` wrote at `at` in `data`, moving `at` past it; false when it runs
/// past the end.
bool read_length(const std::string &data, size_t &at, size_t &length) {
    length = 0;
    for (unsigned shift = 0; at < data.size() && shift < 64; shift += 7) {
        const unsigned char byte = static_cast<unsigned char>(data[at++]);
        length |= static_cast<size_t>(byte & 0x7F) << shift;
        if ((byte & 0x80) == 0) return true;
    }
    return false;
}

/// Puts the key of the attribute in `slot` back at the end of `json` (an object less its closing
/// brace), from `value`, its value as its slot keeps it; nothing for an empty value or a slot no
/// field gives back.
void put_back(std::string &json, Xapian::valueno slot, const std::string &value) {
    const Xapian::valueno bit = slot - slot::first_attribute;
    const cx_item_field *given = slot >= slot::first_attribute && bit < movable_slots ? given_back()[bit] : nullptr;
    if (given == nullptr || value.empty()) return;
    if (json.size() > 1) json += ',';
    append_string(json, given->branch_key);
    json += ':';
    if (given->kind == CX_VALUE_TEXT) {
        append_string(json, value);
    } else {
        append_number(json, Xapian::sortable_unserialise(value));
    }
}

/// The JSON object of format 10's `data`, which carries the attributes it leaves out
/// (`carried_mark`). Data that is not so formed is given back as it is, for the Kit to refuse.
std::string with_carried(const std::string &data) {
    size_t at = 1;
    if (at >= data.size()) return data;
    const size_t count = static_cast<unsigned char>(data[at++]);
    std::vector<std::pair<Xapian::valueno, std::string>> carried;
    for (size_t i = 0; i < count; ++i) {
        size_t length = 0;
        if (at >= data.size()) return data;
        const Xapian::valueno slot = slot::first_attribute + static_cast<unsigned char>(data[at++]);
        if (!read_length(data, at, length) || length > data.size() - at) return data;
        carried.emplace_back(slot, data.substr(at, length));
        at += length;
    }
    std::string json = data.substr(at);
    if (json.empty() || json.back() != '}') return data;
    json.pop_back();
    for (const auto &[slot, value] : carried) put_back(json, slot, value);
    json += '}';
    return json;
}

/// The JSON object of format 9's `data`, whose left-out attributes its document's values hold
/// (`moved_mark`).
std::string with_moved(const Xapian::Document &document, std::string data) {
    if (data.size() < moved_header) return data;
    const uint32_t moved = static_cast<unsigned char>(data[1]) | static_cast<unsigned char>(data[2]) << 8;
    data.erase(0, moved_header);
    if (data.empty() || data.back() != '}') return data;  // not an object: left for the Kit to refuse
    data.pop_back();
    for (Xapian::valueno slot = slot::first_attribute; slot < slot::first_attribute + movable_slots; ++slot) {
        if (names(moved, slot)) put_back(data, slot, document.get_value(slot));
    }
    data += '}';
    return data;
}

}  // namespace

std::string stored_data(const cx_item &item) {
    std::string data;
    if (item.moved != 0) {
        std::array<const cx_value *, movable_slots> carried{};
        for (size_t i = 0; i < item.value_count; ++i) {
            const cx_value &value = item.values[i];
            if (names(item.moved, value.slot)) carried[value.slot - slot::first_attribute] = &value;
        }
        data += carried_mark;
        data += static_cast<char>(std::count_if(carried.begin(), carried.end(), [](auto *value) { return value; }));
        for (const cx_value *value : carried) {
            if (value == nullptr) continue;
            const std::string kept = slot_value(*value);
            data += static_cast<char>(value->slot - slot::first_attribute);
            append_length(data, kept.size());
            data += kept;
        }
    }
    data.append(item.data.data != nullptr ? item.data.data : "", item.data.length);
    return data;
}

std::string item_digest(const cx_item &item) { return content_digest(stored_data(item)); }

std::string self_contained_data(const Xapian::Document &document) {
    std::string data = document.get_data();
    return !data.empty() && data[0] == moved_mark ? with_moved(document, std::move(data)) : data;
}

std::string item_data(const Xapian::Document &document) {
    std::string data = document.get_data();
    if (data.empty()) return data;
    if (data[0] == carried_mark) return with_carried(data);
    if (data[0] == moved_mark) return with_moved(document, data);
    return data;
}

}  // namespace cx
