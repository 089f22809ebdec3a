// What json.cpp offers the other files of the shim: what a search reads back out of an item's
// stored JSON object, with one scanner of RFC 8259's object and string grammar.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cx {

/// The fields a search result shows (SPEC §2.2), as the Kit reads them from an item's stored
/// JSON (`BranchUniversalObject(json:)`): a text absent or `null` is not `has_…`; keywords leave
/// out empty texts; an expiration of 0 or less is none (0).
struct ResultFields {
    std::string identifier;
    std::string domain;
    std::string title;
    std::string description;
    std::string canonical_url;
    std::string image_url;
    bool has_title = false;
    bool has_description = false;
    bool has_canonical_url = false;
    bool has_image_url = false;
    std::vector<std::string> keywords;
    /// Epoch milliseconds, or 0 for none.
    int64_t expiration = 0;
    bool is_public = false;
};

/// The fields a result shows, read from the item's JSON object `data` in one pass over its
/// members. Nothing when the object is malformed or holds one of them in a form the Kit reads
/// otherwise (a key of the other dialect, a key twice, a date as a string or a fraction, a mode
/// spelled otherwise than `public` or `private`): the Kit then decodes the data itself.
std::optional<ResultFields> result_fields(const std::string &data);

/// The description an item's JSON object `data` holds (the field `contentDescription` of
/// `cx_item_fields`, under its Branch key), as text: what its snippet is made from, since the index
/// keeps the description once. Empty when the object has none, or it is not a string.
std::string item_description(const std::string &data);

}  // namespace cx
