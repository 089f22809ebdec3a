#include "dense.hpp"

#include "elementwise.hpp"
#include "libraries.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace encoder {

namespace {

void check(dnnl_status_t status, const char *doing) {
    if (status != dnnl_success)
        throw std::runtime_error(
            std::string("oneDNN failed ") + doing + " (status " + std::to_string(int(status)) + ")");
}


/// How many lanes the reductions below keep apart, so that the compiler runs them many at a time
/// (one float sum, or minimum, is a chain it keeps in order).
constexpr size_t lanes = 16;

/// `row`'s `depth` values as bytes: 0 for its smallest value (or 0, when none is below), 255 for
/// its largest (or 0); its scale and zero point say how to read them back.
CENCODER_WIDEST
void quantize_row(const float *__restrict row, size_t depth, uint8_t *__restrict out, float &scale, int32_t &zero) {
    float lows[lanes] = {}, highs[lanes] = {};
    size_t i = 0;
    for (; i + lanes <= depth; i += lanes)
        for (size_t lane = 0; lane < lanes; ++lane) {
            lows[lane] = std::min(lows[lane], row[i + lane]);
            highs[lane] = std::max(highs[lane], row[i + lane]);
        }
    for (; i < depth; ++i) {
        lows[0] = std::min(lows[0], row[i]);
        highs[0] = std::max(highs[0], row[i]);
    }
    const float low = *std::min_element(lows, lows + lanes), high = *std::max_element(highs, highs + lanes);
    scale = high > low ? (high - low) / 255.0f : 1.0f;
    const float inverse = 1.0f / scale;
    zero = int32_t(std::floor(-low * inverse + 0.5f));
    const float shift = float(zero) + 0.5f;
    for (i = 0; i < depth; ++i) out[i] = uint8_t(std::clamp(std::floor(row[i] * inverse + shift), 0.0f, 255.0f));
}

/// A column of `depth` weights as signed bytes, its largest magnitude `most`; its scale says how
/// to read them back, and its sum is theirs.
CENCODER_WIDEST
void quantize_column(const float *__restrict weight, size_t depth, float most, int8_t *__restrict out, float &scale,
                     int32_t &sum) {
    float largests[lanes] = {};
    size_t i = 0;
    for (; i + lanes <= depth; i += lanes)
        for (size_t lane = 0; lane < lanes; ++lane)
            largests[lane] = std::max(largests[lane], std::fabs(weight[i + lane]));
    for (; i < depth; ++i) largests[0] = std::max(largests[0], std::fabs(weight[i]));
    const float largest = *std::max_element(largests, largests + lanes);
    scale = largest > 0 ? largest / most : 1.0f;
    const float inverse = 1.0f / scale;
    int32_t total = 0;
    for (i = 0; i < depth; ++i) {
        // Multiplied, then rounded, as two steps (never one fused step): the same bytes on every
        // processor, for the same file.
        const float step = weight[i] * inverse;
        const int8_t value = int8_t(std::clamp(std::floor(step + 0.5f), -most, most));
        out[i] = value;
        total += value;
    }
    sum = total;
}

/// Row `sums` of the int8 product read back as floats, the bias added, then stored in `out` or
/// added to it.
CENCODER_WIDEST
void finish_row(const int32_t *__restrict sums, size_t columns, float scale, int32_t zero,
                const float *__restrict column_scales, const int32_t *__restrict column_sums,
                const float *__restrict bias, bool add, float *__restrict out) {
    const auto value = [&](size_t n) {
        return float(sums[n] - zero * column_sums[n]) * (scale * column_scales[n]) + bias[n];
    };
    if (add)
        for (size_t n = 0; n < columns; ++n) out[n] += value(n);
    else
        for (size_t n = 0; n < columns; ++n) out[n] = value(n);
}

/// The float product's rows, `out` already holding the product: the bias added.
CENCODER_WIDEST
void add_bias(float *__restrict out, size_t rows, size_t columns, const float *__restrict bias) {
    for (size_t row = 0; row < rows; ++row)
        for (size_t n = 0; n < columns; ++n) out[row * columns + n] += bias[n];
}

/// A oneDNN memory object over `data`, destroyed with the scope.
struct Memory {
    dnnl_memory_t memory = nullptr;
    Memory(const dnnl_memory_desc_t &desc, void *data) {
        check(libraries().memory_create(&memory, &desc, libraries().engine, data), "describing a matrix");
    }
    ~Memory() { libraries().memory_destroy(memory); }
};

dnnl_memory_desc_t matrix(int64_t rows, int64_t columns, dnnl_data_type_t type, dnnl_format_tag_t tag) {
    dnnl_memory_desc_t desc;
    const dnnl_dims_t dims = {rows, columns};
    check(libraries().memory_desc_init(&desc, 2, dims, type, tag), "describing a matrix");
    return desc;
}

/// `count` bytes rounded up to a multiple of 64.
size_t aligned(size_t count) { return (count + 63) / 64 * 64; }

}  // namespace

DenseScratch::~DenseScratch() {
    if (stream_) libraries().stream_destroy(stream_);
}

size_t Int8Weights::size(size_t columns, size_t depth) {
    return aligned(columns * depth) + 2 * aligned(columns * 4);
}

Int8Weights Int8Weights::at(const uint8_t *at, size_t columns, size_t depth) {
    const uint8_t *scales = at + aligned(columns * depth);
    return {reinterpret_cast<const int8_t *>(at), reinterpret_cast<const float *>(scales),
            reinterpret_cast<const int32_t *>(scales + aligned(columns * 4))};
}

void Int8Weights::quantize(const float *weight, size_t columns, size_t depth, uint8_t *at) {
    int8_t *values = reinterpret_cast<int8_t *>(at);
    float *scales = reinterpret_cast<float *>(at + aligned(columns * depth));
    int32_t *sums = reinterpret_cast<int32_t *>(at + aligned(columns * depth) + aligned(columns * 4));
    const float most = float(most_weight());
    for (size_t n = 0; n < columns; ++n)
        quantize_column(weight + n * depth, depth, most, values + n * depth, scales[n], sums[n]);
}

/// With VNNI, the processor sums each product of an unsigned and a signed byte into 32 bits;
/// without, oneDNN sums two of them in 16 bits first (`vpmaddubsw`), where 255 × 127 × 2 would
/// saturate: weights then keep 7 bits, as oneDNN's int8 guide advises.
int Int8Weights::most_weight() {
#if defined(__x86_64__)
    static const int most = __builtin_cpu_supports("avx512vnni") ? 127 : 63;
    return most;
#else
    return 127;
#endif
}

Dense::Dense(const float *weight, const float *bias, size_t columns, size_t depth)
    : columns_(columns), depth_(depth), weight_(weight), bias_(bias) {}

Dense::Dense(Int8Weights weights, const float *bias, size_t columns, size_t depth)
    : columns_(columns), depth_(depth), bias_(bias), int8_(weights) {
    const Libraries &l = libraries();
    // One product for any number of rows; the weights [depth, columns] read from PyTorch's layout.
    const dnnl_memory_desc_t in = matrix(DNNL_RUNTIME_DIM_VAL, int64_t(depth), dnnl_u8, dnnl_ab);
    const dnnl_memory_desc_t weights_desc = matrix(int64_t(depth), int64_t(columns), dnnl_s8, dnnl_ba);
    const dnnl_memory_desc_t out = matrix(DNNL_RUNTIME_DIM_VAL, int64_t(columns), dnnl_s32, dnnl_ab);
    dnnl_matmul_desc_t desc;
    check(l.matmul_desc_init(&desc, &in, &weights_desc, nullptr, &out), "describing a product");
    dnnl_primitive_attr_t attributes = nullptr;
    check(l.attr_create(&attributes), "making a product's attributes");
    dnnl_primitive_desc_t found = nullptr;
    dnnl_status_t status = l.attr_scratchpad_mode(attributes, dnnl_scratchpad_mode_user);
    if (status == dnnl_success) status = l.primitive_desc_create(&found, &desc, attributes, l.engine, nullptr);
    l.attr_destroy(attributes);
    check(status, "finding an int8 product");
    if (const dnnl_memory_desc_t *pad = l.primitive_desc_query_md(found, dnnl_query_scratchpad_md, 0)) {
        pad_ = *pad;
        pad_size_ = l.memory_desc_size(pad);
    }
    status = l.primitive_create(&product_, found);
    l.primitive_desc_destroy(found);
    check(status, "making an int8 product");
}

Dense::Dense(Dense &&other) noexcept
    : columns_(other.columns_), depth_(other.depth_), weight_(other.weight_), bias_(other.bias_), int8_(other.int8_),
      product_(std::exchange(other.product_, nullptr)), pad_(other.pad_), pad_size_(other.pad_size_) {}

Dense::~Dense() {
    if (product_) libraries().primitive_destroy(product_);
}

void Dense::apply(const float *in, size_t rows, float *out, Then then, DenseScratch &scratch) const {
    const Libraries &l = libraries();
    if (weight_) {
        l.sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(rows), int(columns_), int(depth_), 1.0f, in, int(depth_),
                weight_, int(depth_), then == Then::add ? 1.0f : 0.0f, out, int(columns_));
        add_bias(out, rows, columns_, bias_);
        if (then == Then::gelu) gelu(out, rows * columns_);
        return;
    }
    if (rows == 0) return;
    scratch.rows_.resize(rows * depth_);
    scratch.scales_.resize(rows);
    scratch.zeros_.resize(rows);
    scratch.sums_.resize(rows * columns_);
    scratch.pad_.resize(pad_size_);
    for (size_t row = 0; row < rows; ++row)
        quantize_row(in + row * depth_, depth_, &scratch.rows_[row * depth_], scratch.scales_[row],
                     scratch.zeros_[row]);
    if (!scratch.stream_)
        check(l.stream_create(&scratch.stream_, l.engine, dnnl_stream_default_flags), "making a stream");
    Memory source(matrix(int64_t(rows), int64_t(depth_), dnnl_u8, dnnl_ab), scratch.rows_.data());
    Memory weights(matrix(int64_t(depth_), int64_t(columns_), dnnl_s8, dnnl_ba), const_cast<int8_t *>(int8_.values));
    Memory sums(matrix(int64_t(rows), int64_t(columns_), dnnl_s32, dnnl_ab), scratch.sums_.data());
    const dnnl_exec_arg_t arguments[] = {
        {DNNL_ARG_SRC, source.memory}, {DNNL_ARG_WEIGHTS, weights.memory}, {DNNL_ARG_DST, sums.memory}};
    if (pad_size_ > 0) {
        Memory padding(pad_, scratch.pad_.data());
        const dnnl_exec_arg_t padded[] = {arguments[0], arguments[1], arguments[2],
                                          {DNNL_ARG_SCRATCHPAD, padding.memory}};
        check(l.primitive_execute(product_, scratch.stream_, 4, padded), "running an int8 product");
    } else {
        check(l.primitive_execute(product_, scratch.stream_, 3, arguments), "running an int8 product");
    }
    for (size_t row = 0; row < rows; ++row) {
        float *written = out + row * columns_;
        finish_row(&scratch.sums_[row * columns_], columns_, scratch.scales_[row], scratch.zeros_[row],
                   int8_.scales, int8_.sums, bias_, then == Then::add, written);
        if (then == Then::gelu) gelu(written, columns_);
    }
}

}  // namespace encoder
