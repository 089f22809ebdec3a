// elementwise.hpp — the encoder's functions of each value: softmax and GELU.
//
// Both run on glibc's vector functions (libmvec: `expf` and `erff` 8 floats at a time with AVX2,
// on processors with AVX-512 too, so that both compute the same values), chosen when first
// called; elsewhere on libm's, one value a call.

#ifndef CENCODER_ELEMENTWISE_HPP
#define CENCODER_ELEMENTWISE_HPP

#include <cstddef>

// The loops the compiler vectorizes itself are compiled for AVX-512 and AVX2 beside x86-64's
// baseline, the widest the processor has chosen when the program loads (not under
// AddressSanitizer, which does not take target_clones).
#if defined(__x86_64__) && !__has_feature(address_sanitizer)
#define CENCODER_WIDEST __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define CENCODER_WIDEST
#endif

// Never a multiplication and an addition fused into one step where the source writes two, in
// every file of the encoder (each includes this header before its code): the clones above, and
// processors with and without FMA, compute the same results.
#pragma STDC FP_CONTRACT OFF

namespace encoder {

/// Softmax of `count` values in place: `x[i] = exp(x[i] − largest) / Σ exp(x[j] − largest)`.
void softmax(float *x, size_t count);

/// BERT's GELU, with the error function (not the tanh approximation), in place:
/// `x[i] = x[i]/2 × (1 + erf(x[i]/√2))`.
void gelu(float *x, size_t count);

}  // namespace encoder

#endif
