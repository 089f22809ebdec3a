// What meaning.cpp offers the other files of the shim: items' vectors of meaning, as values.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>
#include <xapian.h>

namespace cx {

/// An item's vector of meaning as its value keeps it: a little-endian float32 scale, then each
/// dimension as a signed 8-bit multiple of it (the vector's largest magnitude is 127 of them).
/// 384 dimensions keep in 388 bytes.
std::string meaning_value(const float *vector, uint32_t dimensions);

/// The sum of the products of `dimensions` components, each pair widened to 32 bits: the kernel of
/// comparing vectors of meaning. It is compiled for the widest vector instructions the processor
/// has (AVX-512, AVX2, or x86-64's SSE2), chosen when the program loads. `MeaningQuery`'s steps
/// keep the sum under 2^31.
#if defined(__x86_64__) && !__has_feature(address_sanitizer)
#define CX_WIDEST_VECTORS __attribute__((target_clones("avx512bw", "avx2", "default")))
#else
#define CX_WIDEST_VECTORS
#endif
CX_WIDEST_VECTORS int32_t meaning_product(const int16_t *query, const int8_t *stored, uint32_t dimensions);

/// A query's vector of meaning, made ready to compare with stored ones: each dimension as a 16-bit
/// multiple of `scale`, so that a comparison is a sum of integer products, which the compiler
/// computes many at a time (a float sum is computed one product after another, in order). The
/// largest dimension is 32,767 steps (fewer past 512 dimensions, so that a sum stays under 2^31):
/// the rounding is at most 1/65,534 of it, well under the stored vectors' 1/254.
struct MeaningQuery {
    std::vector<int16_t> components;
    float scale = 0;

    MeaningQuery(const float *vector, uint32_t dimensions);

    /// The cosine similarity with a stored vector of the same dimensions, given its scale and its
    /// components (`meaning_value`).
    double similarity(float stored_scale, const int8_t *stored) const {
        return double(scale) * double(stored_scale) *
               double(meaning_product(components.data(), stored, uint32_t(components.size())));
    }

    /// The cosine similarity with a stored value (`meaning_value`); 0 for one of other dimensions.
    double similarity(const std::string &value) const {
        if (value.size() != sizeof(float) + components.size()) return 0;
        float stored_scale;
        std::memcpy(&stored_scale, value.data(), sizeof(float));
        return similarity(stored_scale, reinterpret_cast<const int8_t *>(value.data() + sizeof(float)));
    }
};

/// What `CX_SLOT_MEANING` holds for an item in a language the model does not read
/// (`cx_database_mark_unread`): a scale alone, of 0. The item counts as given its meaning (a
/// cursor of items without meaning passes it), and is never compared (`is_vector`).
inline const std::string unread_meaning(sizeof(float), '\0');

/// Whether `value`, from `CX_SLOT_MEANING`, is a vector, not `unread_meaning`.
inline bool is_vector(const std::string &value) { return value.size() > sizeof(float); }

/// The digest the item's document keeps in `slot::digest`, as a number (0 for none).
uint64_t document_digest(const Xapian::Document &document);

}  // namespace cx
