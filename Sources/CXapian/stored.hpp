// What stored.cpp offers the other files of the shim.
#pragma once

#include <string>
#include <xapian.h>

#include "CXapian.h"

namespace cx {

/// The data a document stores for `item` (format 10): its JSON as given, or, when the item leaves
/// attributes out of it (`cx_item::moved`), a mark, those attributes' values, then the JSON
/// without them.
std::string stored_data(const cx_item &item);

/// `content_digest` of what `item` stores (`stored_data`, which holds its left-out attributes'
/// values too): an item with the same digest as its stored version is unchanged.
std::string item_digest(const cx_item &item);

/// The item's JSON object as given: the document's data with the attributes it leaves out put
/// back, from the data itself (format 10) or from the document's values (format 9, read for its
/// rebuild).
std::string item_data(const Xapian::Document &document);

/// The document's data in a form that needs none of its values: as stored (format 10 carries its
/// left-out attributes in it), or as `item_data` gives it (format 9). `item_data` reads it back.
std::string self_contained_data(const Xapian::Document &document);


}  // namespace cx
