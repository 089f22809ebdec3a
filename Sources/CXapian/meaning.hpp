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

/// How many 64-bit words an item's compact code of `dimensions` takes (`meaning_code`).
constexpr uint32_t code_words(uint32_t dimensions) { return (dimensions + 63) / 64; }

/// Writes the compact code of a stored value (`meaning_value`) of `dimensions` into `bits`, its
/// word `w` at `bits[w * stride]` (`code_words(dimensions)` words), and returns its weight; 0, and
/// no bits, for a value that is not such a vector. A code is each dimension's sign, one bit (set
/// for a positive one), and a weight, the mean magnitude of the dimensions: the vector reads about
/// as the weight times its signs, the nearest vector of that form. 384 dimensions keep in 6 words
/// and a float (52 bytes, against the value's 388), and a comparison is a handful of population
/// counts. With `residual` (`dimensions` doubles), adds to it what the vector holds beyond its
/// code: the vector less the weight times its signs.
float meaning_code(const std::string &value, uint32_t dimensions, uint64_t *bits, size_t stride,
                   double *residual = nullptr);

/// A query's vector of meaning made ready to compare with compact codes (`meaning_code`): each
/// dimension as a 4-bit step between the smallest and the largest, kept as four planes of bits, so
/// that the sum of the dimensions a code's bits select is four population counts a word. The
/// estimate of a cosine similarity is then the code's weight times the query's dimensions summed
/// with the code's signs: about 0.03 from the cosine of the stored vectors, for all-MiniLM-L6-v2's
/// (docs/design.md, *Meaning*), which is why the nearest by estimate are compared again in full.
struct CodedQuery {
    static constexpr unsigned planes = 4;
    uint32_t words = 0;
    /// Plane `p`'s word `w` at `p * words + w`: bit `j` of plane `p` is bit `p` of dimension `j`'s
    /// step.
    std::vector<uint64_t> bits;
    /// Dimension `j` reads as `low + step * its step`; `total` is the sum of all of them.
    double low = 0, step = 0, total = 0;
    /// What every estimate adds: the query's product with the items' mean residual (what their
    /// vectors hold beyond their codes, `meaning_code`), so that the estimates are unbiased
    /// over the items: their mean is the mean of the cosines.
    double offset = 0;

    /// `residual`: the items' mean residual, `dimensions` floats, or null for none.
    CodedQuery(const float *vector, uint32_t dimensions, const float *residual);
};

/// The estimated cosine similarities of `count` consecutive items' codes with `query`, into `out`:
/// word `w` of item `i`'s code at `codes[w * stride + i]` (the words of many items side by side,
/// so that eight are counted at once), its weight `weights[i]` (0 for an item without a vector).
/// Eight items at a time with AVX-512's population counts where the processor has them, else one
/// at a time with the processor's population count instruction.
void estimate_similarities(const CodedQuery &query, const uint64_t *codes, size_t stride, const float *weights,
                           size_t count, float *out);

/// What `CX_SLOT_MEANING` holds for an item in a language the model does not read
/// (`cx_database_mark_unread`): a scale alone, of 0. The item counts as given its meaning (a
/// cursor of items without meaning passes it), and is never compared (`is_vector`).
inline const std::string unread_meaning(sizeof(float), '\0');

/// Whether `value`, from `CX_SLOT_MEANING`, is a vector, not `unread_meaning`.
inline bool is_vector(const std::string &value) { return value.size() > sizeof(float); }

/// The digest the item's document keeps in `slot::digest`, as a number (0 for none).
uint64_t document_digest(const Xapian::Document &document);

}  // namespace cx
