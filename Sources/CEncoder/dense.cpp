#include "dense.hpp"

#include "elementwise.hpp"
#include "libraries.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>

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

/// `row`'s `depth` values as bytes: 0 for its smallest value (or 0, when none is below),
/// `most_input` for its largest (or 0); its scale and zero point say how to read them back.
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
    constexpr float most = float(Int8Weights::most_input);
    scale = high > low ? (high - low) / most : 1.0f;
    const float inverse = 1.0f / scale;
    zero = int32_t(std::floor(-low * inverse + 0.5f));
    const float shift = float(zero) + 0.5f;
    for (i = 0; i < depth; ++i) {
        const float step = row[i] * inverse;
        out[i] = uint8_t(std::clamp(std::floor(step + shift), 0.0f, most));
    }
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

/// `value`'s bits rounded to bf16 (to the nearest, ties to even): the upper half holds them.
inline uint32_t bf16_rounded(float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits + 0x7fffu + ((bits >> 16) & 1u);
}

/// `count` floats as bf16: each one's upper half, rounded.
CENCODER_WIDEST
void halves(const float *__restrict values, size_t count, uint16_t *__restrict out) {
    for (size_t i = 0; i < count; ++i) out[i] = uint16_t(bf16_rounded(values[i]) >> 16);
}

/// `count` floats rounded as `halves` rounds them, kept as floats.
CENCODER_WIDEST
void rounded(const float *__restrict values, size_t count, float *__restrict out) {
    for (size_t i = 0; i < count; ++i) {
        const uint32_t bits = bf16_rounded(values[i]) & 0xffff0000u;
        std::memcpy(&out[i], &bits, sizeof bits);
    }
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

/// `vector` holding at least `count` values: grown, never shrunk, so that the next, larger call
/// does not fill again what an earlier one filled.
template <typename Value>
void hold(std::vector<Value> &vector, size_t count) {
    if (vector.size() < count) vector.resize(count);
}

/// The most rows a product is made for a fixed number of rows (oneDNN's brgemm kernels, each made in
/// well under a millisecond), their count rounded up to a multiple of `row_step`, the rows past
/// the layer's input zero. Past them, one product takes any number of rows (oneDNN's gemm, as fast
/// on many rows, but whose kernels are made at its first run: about 5 ms for int8 and 2 ms for
/// bf16, once a process). A query's few tokens take the first kind, so that a process embedding one
/// query (a search from the command line) does not make the second's; the rounding keeps a
/// service to 32 such products (about 3 MB of kernels) rather than one for every count of rows.
constexpr size_t few_rows = 64, row_step = 8;

/// The rows a product over `rows` rows runs on: `rows`, or few rows rounded up.
size_t product_rows(size_t rows) { return rows > few_rows ? rows : (rows + row_step - 1) / row_step * row_step; }

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
    const float most = float(most_weight);
    for (size_t n = 0; n < columns; ++n)
        quantize_column(weight + n * depth, depth, most, values + n * depth, scales[n], sums[n]);
}

Dense::Dense(const float *weight, const float *bias, size_t columns, size_t depth, bool bf16_inputs)
    : columns_(columns), depth_(depth), weight_(weight), bias_(bias), bf16_inputs_(bf16_inputs),
      types_(float_types), product_(&product(types_, columns, depth, 0)) {}

Dense::Dense(Int8Weights weights, const float *bias, size_t columns, size_t depth)
    : columns_(columns), depth_(depth), bias_(bias), int8_(weights), types_(int8_types),
      product_(&product(types_, columns, depth, 0)) {}

Dense::Dense(const uint16_t *weight, const float *bias, size_t columns, size_t depth)
    : columns_(columns), depth_(depth), bias_(bias), bf16_(weight), types_(bf16_types),
      product_(&product(types_, columns, depth, 0)) {}

bool Dense::multiplies_bf16() {
#if defined(__x86_64__)
    static const bool bf16 = __builtin_cpu_supports("avx512bf16");
    return bf16;
#else
    return false;
#endif
}

struct Dense::Product {
    dnnl_primitive_t primitive = nullptr;
    /// The space oneDNN asks of each run, if any.
    dnnl_memory_desc_t pad{};
    size_t pad_size = 0;
};

const Dense::Product &Dense::product(Types types, size_t columns, size_t depth, size_t rows) {
    // Made for the first layer of a shape and kept for the process's life, as the libraries are.
    static std::mutex lock;
    static auto &made = *new std::map<std::tuple<int, int, int, size_t, size_t, size_t>, Product>();
    std::lock_guard<std::mutex> hold(lock);
    Product &kept = made[{int(types.in), int(types.weights), int(types.out), columns, depth, rows}];
    if (kept.primitive) return kept;
    // The weights [depth, columns] read from PyTorch's layout.
    const Libraries &l = libraries();
    const int64_t any = rows == 0 ? DNNL_RUNTIME_DIM_VAL : int64_t(rows);
    const dnnl_memory_desc_t in = matrix(any, int64_t(depth), types.in, dnnl_ab);
    const dnnl_memory_desc_t weights = matrix(int64_t(depth), int64_t(columns), types.weights, dnnl_ba);
    const dnnl_memory_desc_t out = matrix(any, int64_t(columns), types.out, dnnl_ab);
    dnnl_matmul_desc_t desc;
    check(l.matmul_desc_init(&desc, &in, &weights, nullptr, &out), "describing a product");
    dnnl_primitive_attr_t attributes = nullptr;
    check(l.attr_create(&attributes), "making a product's attributes");
    dnnl_primitive_desc_t found = nullptr;
    dnnl_status_t status = l.attr_scratchpad_mode(attributes, dnnl_scratchpad_mode_user);
    if (status == dnnl_success) status = l.primitive_desc_create(&found, &desc, attributes, l.engine, nullptr);
    l.attr_destroy(attributes);
    check(status, "finding a matrix product");
    Product product;
    if (const dnnl_memory_desc_t *pad = l.primitive_desc_query_md(found, dnnl_query_scratchpad_md, 0)) {
        product.pad = *pad;
        product.pad_size = l.memory_desc_size(pad);
    }
    status = l.primitive_create(&product.primitive, found);
    l.primitive_desc_destroy(found);
    check(status, "making a matrix product");
    kept = product;
    return kept;
}

void Dense::apply(const float *in, size_t rows, float *out, Then then, DenseScratch &scratch) const {
    if (rows == 0) return;
    const size_t padded = product_rows(rows);
    if (int8_.values == nullptr) {
        // bf16 or float: the input as the product reads it, its padding rows zero.
        void *input = const_cast<float *>(in);
        if (bf16_) {
            hold(scratch.halves_, padded * depth_);
            to_bf16(in, rows * depth_, scratch.halves_.data());
            std::fill(scratch.halves_.data() + rows * depth_, scratch.halves_.data() + padded * depth_, uint16_t(0));
            input = scratch.halves_.data();
        } else if (padded > rows || bf16_inputs_) {
            hold(scratch.floats_, padded * depth_);
            if (bf16_inputs_)
                round_to_bf16(in, rows * depth_, scratch.floats_.data());
            else
                std::copy(in, in + rows * depth_, scratch.floats_.data());
            std::fill(scratch.floats_.data() + rows * depth_, scratch.floats_.data() + padded * depth_, 0.0f);
            input = scratch.floats_.data();
        }
        float *products = out;
        if (then == Then::add || padded > rows) {
            hold(scratch.products_, padded * columns_);
            products = scratch.products_.data();
        }
        run_product(input, bf16_ ? static_cast<const void *>(bf16_) : weight_, products, padded, scratch);
        if (then == Then::add)
            for (size_t n = 0; n < rows * columns_; ++n) out[n] += products[n];
        else if (products != out)
            std::copy(products, products + rows * columns_, out);
        add_bias(out, rows, columns_, bias_);
        if (then == Then::gelu) gelu(out, rows * columns_);
        return;
    }
    hold(scratch.rows_, padded * depth_);
    hold(scratch.scales_, rows);
    hold(scratch.zeros_, rows);
    hold(scratch.sums_, padded * columns_);
    for (size_t row = 0; row < rows; ++row)
        quantize_row(in + row * depth_, depth_, &scratch.rows_[row * depth_], scratch.scales_[row],
                     scratch.zeros_[row]);
    std::fill(scratch.rows_.data() + rows * depth_, scratch.rows_.data() + padded * depth_, uint8_t(0));
    run_product(scratch.rows_.data(), int8_.values, scratch.sums_.data(), padded, scratch);
    for (size_t row = 0; row < rows; ++row) {
        float *written = out + row * columns_;
        finish_row(&scratch.sums_[row * columns_], columns_, scratch.scales_[row], scratch.zeros_[row],
                   int8_.scales, int8_.sums, bias_, then == Then::add, written);
        if (then == Then::gelu) gelu(written, columns_);
    }
}

void Dense::run_product(void *in, const void *weights, void *out, size_t rows, DenseScratch &scratch) const {
    const Libraries &l = libraries();
    // `rows` is `product_rows`' (the caller's buffers hold them).
    const Product &made = rows > few_rows ? *product_ : product(types_, columns_, depth_, rows);
    if (!scratch.stream_)
        check(l.stream_create(&scratch.stream_, l.engine, dnnl_stream_default_flags), "making a stream");
    Memory source(matrix(int64_t(rows), int64_t(depth_), types_.in, dnnl_ab), in);
    Memory weight(matrix(int64_t(depth_), int64_t(columns_), types_.weights, dnnl_ba), const_cast<void *>(weights));
    Memory product(matrix(int64_t(rows), int64_t(columns_), types_.out, dnnl_ab), out);
    const dnnl_exec_arg_t arguments[] = {
        {DNNL_ARG_SRC, source.memory}, {DNNL_ARG_WEIGHTS, weight.memory}, {DNNL_ARG_DST, product.memory}};
    if (made.pad_size > 0) {
        hold(scratch.pad_, made.pad_size);
        Memory padding(made.pad, scratch.pad_.data());
        const dnnl_exec_arg_t padded[] = {arguments[0], arguments[1], arguments[2],
                                          {DNNL_ARG_SCRATCHPAD, padding.memory}};
        check(l.primitive_execute(made.primitive, scratch.stream_, 4, padded), "running a matrix product");
    } else {
        check(l.primitive_execute(made.primitive, scratch.stream_, 3, arguments), "running a matrix product");
    }
}

void to_bf16(const float *values, size_t count, uint16_t *out) { halves(values, count, out); }

void round_to_bf16(const float *values, size_t count, float *out) { rounded(values, count, out); }

}  // namespace encoder
