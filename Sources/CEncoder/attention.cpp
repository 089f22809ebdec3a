#include "attention.hpp"

#include "elementwise.hpp"

#include <algorithm>

namespace encoder {

namespace {

/// A block of `Rows` rows of scores by `Columns` columns, from column `column`, summed in
/// registers: `scores[i][j] = scale · Σ_d query[i][d] · keys[d][j]`. Inlined into the function
/// compiled for the processor, and vectorized there.
template <size_t Rows, size_t Columns>
[[gnu::always_inline]] inline void score_block(const float *__restrict query, size_t stride,
                                               const float *__restrict keys, size_t padded, size_t width, float scale,
                                               size_t column, float *__restrict scores) {
    float sums[Rows][Columns] = {};
    for (size_t d = 0; d < width; ++d) {
        const float *__restrict k = keys + d * padded + column;
        for (size_t r = 0; r < Rows; ++r) {
            const float q = query[r * stride + d] * scale;
            for (size_t j = 0; j < Columns; ++j) sums[r][j] += q * k[j];
        }
    }
    for (size_t r = 0; r < Rows; ++r) std::copy(sums[r], sums[r] + Columns, scores + r * padded + column);
}

/// `Rows` rows of scores, every column up to `padded`, a multiple of 16.
template <size_t Rows>
[[gnu::always_inline]] inline void score_rows(const float *__restrict query, size_t stride,
                                              const float *__restrict keys, size_t padded, size_t width, float scale,
                                              float *__restrict scores) {
    size_t column = 0;
    for (; column + 64 <= padded; column += 64)
        score_block<Rows, 64>(query, stride, keys, padded, width, scale, column, scores);
    for (; column < padded; column += 16)
        score_block<Rows, 16>(query, stride, keys, padded, width, scale, column, scores);
}

/// `Rows` tokens' outputs: `out[i][·] = Σ_j weights[i][j] · value[j][·]`, over `Width` columns.
template <size_t Rows, size_t Width>
[[gnu::always_inline]] inline void mix_rows(const float *__restrict weights, size_t padded,
                                            const float *__restrict value, size_t stride, size_t length,
                                            float *__restrict out, size_t out_stride) {
    float sums[Rows][Width] = {};
    for (size_t j = 0; j < length; ++j) {
        const float *__restrict v = value + j * stride;
        for (size_t r = 0; r < Rows; ++r) {
            const float w = weights[r * padded + j];
            for (size_t d = 0; d < Width; ++d) sums[r][d] += w * v[d];
        }
    }
    for (size_t r = 0; r < Rows; ++r) std::copy(sums[r], sums[r] + Width, out + r * out_stride);
}

/// `mix_rows` over a width known only when run.
void mix_row(const float *__restrict weights, const float *__restrict value, size_t stride, size_t length,
             size_t width, float *__restrict out) {
    std::fill(out, out + width, 0.0f);
    for (size_t j = 0; j < length; ++j)
        for (size_t d = 0; d < width; ++d) out[d] += weights[j] * value[j * stride + d];
}

/// Rows of scores taken together, so that each key read serves them all.
constexpr size_t together = 4;

/// The head's width whose outputs are summed in registers (all-MiniLM-L6-v2's); others in memory.
constexpr size_t usual_width = 32;

}  // namespace

CENCODER_WIDEST
void attend(const Head &head, size_t length, size_t width, float scale, float *space) {
    const size_t padded = attention_padded(length);
    float *scores = space, *keys = space + length * padded;
    // The keys' columns as rows, `keys[d * padded + j]` token `j`'s dimension `d`, the columns
    // past the last token zero: a row of scores is a sum of rows of `keys`.
    for (size_t d = 0; d < width; ++d) {
        for (size_t j = 0; j < length; ++j) keys[d * padded + j] = head.key[j * head.stride + d];
        std::fill(keys + d * padded + length, keys + (d + 1) * padded, 0.0f);
    }
    size_t i = 0;
    for (; i + together <= length; i += together)
        score_rows<together>(head.query + i * head.stride, head.stride, keys, padded, width, scale,
                             scores + i * padded);
    for (; i < length; ++i)
        score_rows<1>(head.query + i * head.stride, head.stride, keys, padded, width, scale, scores + i * padded);
    for (i = 0; i < length; ++i) softmax(scores + i * padded, length);
    i = 0;
    if (width == usual_width) {
        for (; i + together <= length; i += together)
            mix_rows<together, usual_width>(scores + i * padded, padded, head.value, head.stride, length,
                                            head.out + i * head.out_stride, head.out_stride);
        for (; i < length; ++i)
            mix_rows<1, usual_width>(scores + i * padded, padded, head.value, head.stride, length,
                                     head.out + i * head.out_stride, head.out_stride);
    }
    for (; i < length; ++i)
        mix_row(scores + i * padded, head.value, head.stride, length, width, head.out + i * head.out_stride);
}

}  // namespace encoder
