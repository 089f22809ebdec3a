#include "elementwise.hpp"

#include <cmath>

#if defined(__x86_64__)
#include <immintrin.h>

extern "C" {
__attribute__((target("avx512f"))) __m512 _ZGVeN16v_expf(__m512);
__attribute__((target("avx512f"))) __m512 _ZGVeN16v_erff(__m512);
__attribute__((target("avx2"))) __m256 _ZGVdN8v_expf(__m256);
__attribute__((target("avx2"))) __m256 _ZGVdN8v_erff(__m256);
}
#endif

namespace encoder {

namespace {

float exponentials_one_at_a_time(float *x, size_t count, float largest) {
    float sum = 0;
    for (size_t i = 0; i < count; ++i) sum += (x[i] = std::exp(x[i] - largest));
    return sum;
}

void gelu_one_at_a_time(float *x, size_t count) {
    for (size_t i = 0; i < count; ++i) x[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * float(M_SQRT1_2)));
}

#if defined(__x86_64__)
__attribute__((target("avx512f"))) float exponentials_avx512(float *x, size_t count, float largest) {
    const __m512 shift = _mm512_set1_ps(largest);
    __m512 sums = _mm512_setzero_ps();
    size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        const __m512 e = _ZGVeN16v_expf(_mm512_sub_ps(_mm512_loadu_ps(x + i), shift));
        _mm512_storeu_ps(x + i, e);
        sums = _mm512_add_ps(sums, e);
    }
    return _mm512_reduce_add_ps(sums) + exponentials_one_at_a_time(x + i, count - i, largest);
}

__attribute__((target("avx512f"))) void gelu_avx512(float *x, size_t count) {
    const __m512 half = _mm512_set1_ps(0.5f), one = _mm512_set1_ps(1.0f), root = _mm512_set1_ps(float(M_SQRT1_2));
    size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        const __m512 v = _mm512_loadu_ps(x + i);
        const __m512 erf = _ZGVeN16v_erff(_mm512_mul_ps(v, root));
        _mm512_storeu_ps(x + i, _mm512_mul_ps(_mm512_mul_ps(half, v), _mm512_add_ps(one, erf)));
    }
    gelu_one_at_a_time(x + i, count - i);
}

__attribute__((target("avx2"))) float exponentials_avx2(float *x, size_t count, float largest) {
    const __m256 shift = _mm256_set1_ps(largest);
    __m256 sums = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        const __m256 e = _ZGVdN8v_expf(_mm256_sub_ps(_mm256_loadu_ps(x + i), shift));
        _mm256_storeu_ps(x + i, e);
        sums = _mm256_add_ps(sums, e);
    }
    float lanes[8];
    _mm256_storeu_ps(lanes, sums);
    float sum = 0;
    for (float lane : lanes) sum += lane;
    return sum + exponentials_one_at_a_time(x + i, count - i, largest);
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

/// The widest of `avx512`, `avx2` and `baseline` the processor runs.
template <typename Function>
Function widest(Function avx512, Function avx2, Function baseline) {
#if defined(__x86_64__)
    return __builtin_cpu_supports("avx512f") ? avx512 : __builtin_cpu_supports("avx2") ? avx2 : baseline;
#else
    return baseline;
#endif
}

}  // namespace

float exponentials(float *x, size_t count, float largest) {
#if defined(__x86_64__)
    static const auto chosen = widest(exponentials_avx512, exponentials_avx2, exponentials_one_at_a_time);
#else
    static const auto chosen = exponentials_one_at_a_time;
#endif
    return chosen(x, count, largest);
}

void gelu(float *x, size_t count) {
#if defined(__x86_64__)
    static const auto chosen = widest(gelu_avx512, gelu_avx2, gelu_one_at_a_time);
#else
    static const auto chosen = gelu_one_at_a_time;
#endif
    chosen(x, count);
}

}  // namespace encoder
