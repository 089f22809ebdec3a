#include "elementwise.hpp"

#include <algorithm>
#include <cmath>

#if defined(__x86_64__)
#include <immintrin.h>

extern "C" {
__attribute__((target("avx2"))) __m256 _ZGVdN8v_expf(__m256);
__attribute__((target("avx2"))) __m256 _ZGVdN8v_erff(__m256);
}
#endif

namespace encoder {

namespace {

void softmax_one_at_a_time(float *x, size_t count) {
    float largest = x[0];
    for (size_t i = 1; i < count; ++i) largest = std::max(largest, x[i]);
    float sum = 0;
    for (size_t i = 0; i < count; ++i) sum += (x[i] = std::exp(x[i] - largest));
    const float inverse = 1.0f / sum;
    for (size_t i = 0; i < count; ++i) x[i] *= inverse;
}

void gelu_one_at_a_time(float *x, size_t count) {
    for (size_t i = 0; i < count; ++i) x[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * float(M_SQRT1_2)));
}

#if defined(__x86_64__)
// The last values of a row, fewer than a vector holds, are read under a mask, the lanes past the
// row reading −∞: a row of any width runs on the vector functions alone.

/// The sum (`add`) or the largest of a vector's eight values.
__attribute__((target("avx2"))) float reduce(__m256 v, bool add) {
    float lanes[8];
    _mm256_storeu_ps(lanes, v);
    float result = lanes[0];
    for (size_t lane = 1; lane < 8; ++lane) result = add ? result + lanes[lane] : std::max(result, lanes[lane]);
    return result;
}

__attribute__((target("avx2"))) void softmax_avx2(float *x, size_t count) {
    const __m256 none = _mm256_set1_ps(-INFINITY);
    const size_t whole = count - count % 8;
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i tail = _mm256_cmpgt_epi32(_mm256_set1_epi32(int(count % 8)), lane);
    const __m256 rest = _mm256_blendv_ps(none, _mm256_maskload_ps(x + whole, tail), _mm256_castsi256_ps(tail));
    __m256 largests = none;
    for (size_t i = 0; i < whole; i += 8) largests = _mm256_max_ps(largests, _mm256_loadu_ps(x + i));
    largests = _mm256_max_ps(largests, rest);
    const __m256 largest = _mm256_set1_ps(reduce(largests, false));
    __m256 sums = _mm256_setzero_ps();
    for (size_t i = 0; i < whole; i += 8) {
        const __m256 e = _ZGVdN8v_expf(_mm256_sub_ps(_mm256_loadu_ps(x + i), largest));
        _mm256_storeu_ps(x + i, e);
        sums = _mm256_add_ps(sums, e);
    }
    const __m256 last = _ZGVdN8v_expf(_mm256_sub_ps(rest, largest));
    sums = _mm256_add_ps(sums, last);
    const __m256 inverse = _mm256_set1_ps(1.0f / reduce(sums, true));
    for (size_t i = 0; i < whole; i += 8) _mm256_storeu_ps(x + i, _mm256_mul_ps(_mm256_loadu_ps(x + i), inverse));
    _mm256_maskstore_ps(x + whole, tail, _mm256_mul_ps(last, inverse));
}

__attribute__((target("avx2"))) void gelu_avx2(float *x, size_t count) {
    const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f), root = _mm256_set1_ps(float(M_SQRT1_2));
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        const __m256 v = _mm256_loadu_ps(x + i);
        const __m256 erf = _ZGVdN8v_erff(_mm256_mul_ps(v, root));
        _mm256_storeu_ps(x + i, _mm256_mul_ps(_mm256_mul_ps(half, v), _mm256_add_ps(one, erf)));
    }
    gelu_one_at_a_time(x + i, count - i);
}
#endif

/// `avx2` where the processor runs it (AVX2 and FMA, as libmvec's 8-float functions ask), else
/// `baseline`. Processors with AVX-512 run `avx2` too: libmvec's 16-float functions compute otherwise,
/// and a text's vector would then depend on the processor.
template <typename Function>
Function chosen_for_processor(Function avx2, Function baseline) {
#if defined(__x86_64__)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? avx2 : baseline;
#else
    return baseline;
#endif
}

}  // namespace

void softmax(float *x, size_t count) {
    if (count == 0) return;
#if defined(__x86_64__)
    static const auto chosen = chosen_for_processor(softmax_avx2, softmax_one_at_a_time);
#else
    static const auto chosen = softmax_one_at_a_time;
#endif
    chosen(x, count);
}

void gelu(float *x, size_t count) {
#if defined(__x86_64__)
    static const auto chosen = chosen_for_processor(gelu_avx2, gelu_one_at_a_time);
#else
    static const auto chosen = gelu_one_at_a_time;
#endif
    chosen(x, count);
}

}  // namespace encoder
