// Stored data: an item's JSON object, less the attributes whose values give them back (format 9).
//
// An attribute's value holds what the item's JSON holds under its key, exactly, for most of the
// built-in attributes: a number as `sortable_serialise` keeps it, a text as written. Kept in the
// data as well, each would be stored twice, and the data is compressed item by item, so that the
// key's name is paid in full each time. The Kit leaves such a key out of the JSON when its value
// gives it back (a field `given_back` in `cx_item_fields`), and says so in `cx_item::moved`; the data then starts with a
// mark byte and the two bytes of that set, which no JSON object starts with, and reading puts the
// keys back at the end of the object.

#include "stored.hpp"

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

}  // namespace

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
        if (!names(moved, slot)) continue;
        const cx_item_field *given = nullptr;
        for (const cx_item_field &field : item_fields()) {
            if (field.given_back && field.slot == slot) given = &field;
        }
        if (given == nullptr) continue;
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
