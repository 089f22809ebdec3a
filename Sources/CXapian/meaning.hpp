// What meaning.cpp offers the other files of the shim: items' vectors of meaning, as values.
#pragma once

#include <cstdint>
#include <string>
#include <xapian.h>

namespace cx {

/// An item's vector of meaning as its value keeps it: a little-endian float32 scale, then each
/// dimension as a signed 8-bit multiple of it (the vector's largest magnitude is 127 of them).
/// 384 dimensions keep in 388 bytes.
std::string meaning_value(const float *vector, uint32_t dimensions);

/// The digest the item's document keeps in `slot::digest`, as a number (0 for none).
uint64_t document_digest(const Xapian::Document &document);

}  // namespace cx
