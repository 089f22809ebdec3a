// What item_fields.cpp offers the other files of the shim: the one table of an item's fields.
#pragma once

#include <iterator>

#include "CXapian.h"

namespace cx {

/// The rows of `cx_item_fields`, for range loops: `for (const cx_item_field &field : item_fields())`.
struct ItemFields {
    const cx_item_field *begin() const;
    const cx_item_field *end() const;
};

inline ItemFields item_fields() { return {}; }

}  // namespace cx
