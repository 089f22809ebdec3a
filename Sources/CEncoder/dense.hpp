// dense.hpp — the encoder's dense layers: out = in · weightᵀ + bias, then stored, added to out or
// passed through GELU.
//
// A layer's products are int8 (oneDNN's matrix product of unsigned 8-bit inputs by signed 8-bit
// weights into 32-bit sums, four to five times the float product on one core), but for
// attention's query, key and value, which int8 would cost the ranking (docs/design.md): that product
// reads its inputs and weights rounded to bf16, and sums in float (oneDNN's bf16 product on a
// processor that multiplies bf16, twice the float product; elsewhere its float product over the
// same rounded values, whose products are exact in float). For int8, the weights are quantized
// once, when the model loads, one scale per output column (each column's largest magnitude maps to
// 63); each input row is quantized when the layer runs, its own scale and zero point mapping its
// smallest and largest value to 0 and 255. Then an output is
//     (sum − zero × column's sum of weights) × row's scale × column's scale + bias,
// exact but for the two roundings. Weights keep 7 bits so that two products summed in 16 bits, as
// a processor without VNNI sums them (`vpmaddubsw`), never saturate (255 × 63 × 2 < 32,767): every
// processor computes the same sums from the same rows, and so gives a text the same vector but for
// the order of float sums (docs/design.md, *Meaning*). Inputs keep 8 bits: with 7, CACM's hybrid
// ranking lost 4 %. The float precision runs the same layers on oneDNN's float matrix product: the
// reference the int8 products are tested against.
//
// A model's int8 weights are laid out in one block (encoder.cpp), which the caller may keep in a
// file and give back to the next encoder of the model, so that a process maps them rather than
// quantizing them again.

#ifndef CENCODER_DENSE_HPP
#define CENCODER_DENSE_HPP

#include <oneapi/dnnl/dnnl.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace encoder {

enum class Precision { int8, float32 };

/// What is done with each value of a product, once its bias is added: stored in `out`, added to
/// what `out` holds (a residual connection), or passed through GELU and stored.
enum class Then { store, add, gelu };

/// A thread's working space for dense layers: the quantized rows, their sums, and the oneDNN
/// stream the products run on. Not shared by threads.
class DenseScratch {
  public:
    DenseScratch() = default;
    DenseScratch(const DenseScratch &) = delete;
    DenseScratch &operator=(const DenseScratch &) = delete;
    ~DenseScratch();

  private:
    friend class Dense;
    std::vector<uint8_t> rows_;
    std::vector<float> scales_;
    std::vector<int32_t> zeros_;
    std::vector<int32_t> sums_;
    std::vector<uint8_t> pad_;
    std::vector<uint16_t> halves_;
    std::vector<float> floats_;
    std::vector<float> products_;
    dnnl_stream_t stream_ = nullptr;
};

/// A dense layer's int8 weights, column after column: each column's values, its scale (a value
/// times the scale is the weight) and the sum of its values.
struct Int8Weights {
    const int8_t *values;
    const float *scales;
    const int32_t *sums;

    /// The bytes a layer's int8 weights take in a quantized model: values, scales and sums, each
    /// starting at a multiple of 64.
    static size_t size(size_t columns, size_t depth);

    /// The weights laid out from `at` (`size` bytes).
    static Int8Weights at(const uint8_t *at, size_t columns, size_t depth);

    /// `weight` ([columns, depth]) quantized into the `size` bytes from `at`, each column's largest
    /// magnitude `most_weight`.
    static void quantize(const float *weight, size_t columns, size_t depth, uint8_t *at);

    /// The largest magnitude a quantized weight takes, and the largest byte a quantized input row
    /// takes (its smallest is 0), on every processor.
    static constexpr int most_weight = 63, most_input = 255;
};

/// `count` floats as bf16 (their upper halves, rounded to the nearest, ties to even).
void to_bf16(const float *values, size_t count, uint16_t *out);

/// `count` floats rounded to bf16 as `to_bf16` does, kept as floats (their lower halves zero).
void round_to_bf16(const float *values, size_t count, float *out);

class Dense {
  public:
    /// A layer of `columns` outputs over `depth` inputs multiplying in float: `weight` is
    /// [columns, depth], as PyTorch's Linear keeps it, `bias` [columns]; both read in place (they
    /// must outlive the layer). With `bf16_inputs`, its input is rounded to bf16 before the product
    /// (`round_to_bf16`), as are its weights by the caller: the bf16 product, summed in float.
    Dense(const float *weight, const float *bias, size_t columns, size_t depth, bool bf16_inputs = false);
    /// The same layer multiplying in int8, its weights read in place.
    Dense(Int8Weights weights, const float *bias, size_t columns, size_t depth);
    /// The same layer multiplying in bf16, its weights (`to_bf16` of the float ones) read in place.
    Dense(const uint16_t *weight, const float *bias, size_t columns, size_t depth);
    /// Whether this processor multiplies bf16 (AVX512_BF16): else a bf16 product would be emulated,
    /// slower than the float one.
    static bool multiplies_bf16();
    Dense(const Dense &) = delete;
    Dense &operator=(const Dense &) = delete;
    Dense(Dense &&other) noexcept = default;

    /// The layer over `rows` rows of `in` ([rows, depth]), into `out` ([rows, columns]).
    void apply(const float *in, size_t rows, float *out, Then then, DenseScratch &scratch) const;

  private:
    size_t columns_, depth_;
    const float *weight_ = nullptr, *bias_;
    Int8Weights int8_{};
    const uint16_t *bf16_ = nullptr;
    bool bf16_inputs_ = false;

    /// The types a product reads and writes: its input, its weights and its output.
    struct Types {
        dnnl_data_type_t in, weights, out;
    };
    static constexpr Types int8_types{dnnl_u8, dnnl_s8, dnnl_s32}, bf16_types{dnnl_bf16, dnnl_bf16, dnnl_f32},
                           float_types{dnnl_f32, dnnl_f32, dnnl_f32};
    /// This layer's.
    Types types_{};

    void run_product(void *in, const void *weights, void *out, size_t rows, DenseScratch &scratch) const;

    /// oneDNN's product for this layer's shape and types over `rows` rows (0: any number), and the
    /// space each run asks of it: made once a process and shared by every layer of that shape (six
    /// layers, four shapes).
    struct Product;
    static const Product &product(Types types, size_t columns, size_t depth, size_t rows);
    /// The product for any number of rows.
    const Product *product_ = nullptr;
};

}  // namespace encoder

#endif
