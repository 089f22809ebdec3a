// dense.hpp — the encoder's dense layers: out = in · weightᵀ + bias, then stored, added to out or
// passed through GELU.
//
// A layer's products are int8 (oneDNN's matrix product of unsigned 8-bit inputs by signed 8-bit
// weights into 32-bit sums, four to five times OpenBLAS's float product on one core): the weights
// are quantized once, when the model loads, one scale per output column (each column's largest
// magnitude maps to 127); each input row is quantized when the layer runs, its own scale and zero
// point mapping its smallest and largest value to 0 and 255. Then an output is
//     (sum − zero × column's sum of weights) × row's scale × column's scale + bias,
// exact but for the two roundings. The float precision runs the same layers on OpenBLAS's float
// products: the reference the int8 products are tested against.

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
    dnnl_stream_t stream_ = nullptr;
};

class Dense {
  public:
    /// A layer of `columns` outputs over `depth` inputs: `weight` is [columns, depth], as PyTorch's
    /// Linear keeps it, `bias` [columns]. The float precision reads `weight` in place (it must
    /// outlive the layer); int8 keeps its quantized copy.
    Dense(const float *weight, const float *bias, size_t columns, size_t depth, Precision precision);
    Dense(const Dense &) = delete;
    Dense &operator=(const Dense &) = delete;
    Dense(Dense &&other) noexcept;
    ~Dense();

    /// The layer over `rows` rows of `in` ([rows, depth]), into `out` ([rows, columns]).
    void apply(const float *in, size_t rows, float *out, Then then, DenseScratch &scratch) const;

    /// The int8 weights, column after column (empty for the float precision).
    const std::vector<int8_t> &quantized() const { return quantized_; }

  private:
    size_t columns_, depth_;
    const float *weight_, *bias_;
    std::vector<int8_t> quantized_;
    std::vector<float> column_scales_;
    std::vector<int32_t> column_sums_;
    dnnl_primitive_t product_ = nullptr;
    /// The space oneDNN asks of each run, if any.
    dnnl_memory_desc_t pad_{};
    size_t pad_size_ = 0;
};

}  // namespace encoder

#endif
