// attention.hpp — one head's attention over one text's tokens.
//
// A head is small (32 dimensions of a few hundred tokens at most), so its two products are loops
// the compiler vectorizes (`CENCODER_WIDEST`) rather than calls of a library: a library's product
// is made for large matrices, and its kernels are made at its first run (oneDNN's float product
// takes about 20 ms for them, a whole search from the command line).

#ifndef CENCODER_ATTENTION_HPP
#define CENCODER_ATTENTION_HPP

#include <cstddef>

namespace encoder {

/// What one head's attention reads and writes. `query`, `key` and `value` are the head's columns
/// of the text's first token, each next token `stride` floats on; `out` likewise, `out_stride` on.
struct Head {
    const float *query, *key, *value;
    size_t stride;
    float *out;
    size_t out_stride;
};

/// `out = softmax(scale · query · keyᵀ) · value` over `length` tokens of `width` (the head's
/// dimensions) each, in `space`: at least `attention_space(length, width)` floats.
void attend(const Head &head, size_t length, size_t width, float scale, float *space);

/// `length` rounded up to a multiple of 16: the columns a row of scores is summed over.
inline size_t attention_padded(size_t length) { return (length + 15) / 16 * 16; }

/// The floats `attend` works in: the scores, and the keys as rows.
inline size_t attention_space(size_t length, size_t width) {
    return (length + width) * attention_padded(length);
}

}  // namespace encoder

#endif
