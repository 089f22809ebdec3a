// BERT's forward pass, for sentence vectors.
//
// The texts of one call share every dense layer: their tokens are stacked, without padding, into
// one matrix, so each of a layer's four matrix products is one large product over every token of
// the call. Only attention is per text (and per head), over that text's own tokens; no mask is
// needed, since no text sees another's tokens or any padding.
//
// A call's texts are split into as many groups of about as many tokens as the machine has cores
// (at most `most_workers`), each encoded on a thread of its own with its own scratch space, and
// oneDNN runs single-threaded inside each: so the steps between the products (attention's small
// products, softmax, GELU, layer norms) run in parallel too, and no library thread spins waiting
// for the next product. Calls on different threads run at once (a batch of queries beside the
// background embedding of new items): the weights are only read, and each call takes its scratch
// spaces from a pool.
//
// Three of the four dense layers multiply in int8, the fourth in bf16 (dense.hpp), both on oneDNN,
// and attention in float: each thread that encodes sets OpenMP, which oneDNN runs on, to one
// thread. A text's vector is the same whatever texts share its call: the only product whose
// rounding could depend on where a text's rows lie among the call's (a float product's, which
// oneDNN blocks by rows) runs over each text's rows alone.

#include "CEncoder.h"

#include "attention.hpp"
#include "dense.hpp"
#include "elementwise.hpp"
#include "libraries.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using encoder::Dense;
using encoder::DenseScratch;
using encoder::libraries;
using encoder::Then;

struct Layer {
    Dense qkv;  // query, key and value stacked: 3 × hidden outputs
    Dense attention;
    const float *attention_norm_weight, *attention_norm_bias;
    Dense intermediate;
    Dense output;
    const float *output_norm_weight, *output_norm_bias;
};

struct invalid_argument : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Lowers the calling thread to the scheduler's idle priority (Linux's `SCHED_IDLE`): it runs only
/// on a core no other thread of the machine wants. (A thread cannot always raise itself back, so
/// only threads that end with their work are lowered.)
void lower_to_idle() {
    sched_param none{};
    pthread_setschedparam(pthread_self(), SCHED_IDLE, &none);
}

/// Thrown between two steps of a layer when a stop was asked for: the call returns `CE_STOPPED`.
struct stopped {};

char *copy_message(const std::string &message) {
    char *copy = static_cast<char *>(std::malloc(message.size() + 1));
    if (copy) std::memcpy(copy, message.c_str(), message.size() + 1);
    return copy;
}

ce_status fail(ce_status status, const std::string &message, char **out_error) {
    if (out_error) *out_error = copy_message(message);
    return status;
}

/// How many lanes `layer_norm`'s sums keep apart, so that the compiler runs them many at a time.
constexpr size_t lanes = 16;

/// The sum of `term` of `count` values, `lanes` partial sums at a time.
template <typename Term>
inline float sum_of(const float *__restrict values, size_t count, Term term) {
    float sums[lanes] = {};
    size_t i = 0;
    for (; i + lanes <= count; i += lanes)
        for (size_t lane = 0; lane < lanes; ++lane) sums[lane] += term(values[i + lane]);
    for (; i < count; ++i) sums[0] += term(values[i]);
    float sum = 0;
    for (float part : sums) sum += part;
    return sum;
}

/// Each row of `rows` × `width` values normalized to mean 0 and variance 1, then scaled and shifted.
CENCODER_WIDEST
void layer_norm(float *__restrict values, size_t rows, size_t width, const float *__restrict weight,
                const float *__restrict bias, float epsilon) {
    for (size_t row = 0; row < rows; ++row) {
        float *x = values + row * width;
        const float mean = sum_of(x, width, [](float value) { return value; }) / float(width);
        const float squares = sum_of(x, width, [mean](float value) { return (value - mean) * (value - mean); });
        const float scale = 1.0f / std::sqrt(squares / float(width) + epsilon);
        for (size_t i = 0; i < width; ++i) x[i] = (x[i] - mean) * scale * weight[i] + bias[i];
    }
}

}  // namespace

/// One group's scratch space, grown to the largest group it has encoded.
struct Scratch {
    std::vector<float> hidden, qkv, context, intermediate, scores;
    DenseScratch dense;
};

/// The scratch spaces no call is using. A call takes one for each of its groups and gives them
/// back, so that calls on different threads run at once, each in space of its own; the spaces a
/// busy moment made are kept for the next (as many as calls have ever run at once).
class ScratchPool {
  public:
    std::vector<std::unique_ptr<Scratch>> take(size_t count) {
        std::vector<std::unique_ptr<Scratch>> taken;
        {
            std::lock_guard<std::mutex> hold(lock_);
            while (taken.size() < count && !free_.empty()) {
                taken.push_back(std::move(free_.back()));
                free_.pop_back();
            }
        }
        while (taken.size() < count) taken.push_back(std::make_unique<Scratch>());
        return taken;
    }

    void give(std::vector<std::unique_ptr<Scratch>> &spaces) {
        std::lock_guard<std::mutex> hold(lock_);
        for (std::unique_ptr<Scratch> &space : spaces) free_.push_back(std::move(space));
        spaces.clear();
    }

  private:
    std::mutex lock_;
    std::vector<std::unique_ptr<Scratch>> free_;
};

/// The most threads one call encodes on.
constexpr size_t most_workers = 8;

struct ce_stop {
    std::atomic<bool> requested{false};
};

/// The head of a model's int8 form (`ce_encoder_quantized`), 64 bytes. Each layer's weights follow,
/// layer after layer: on a processor that multiplies bf16, its query, key and value weights stacked
/// as bf16; then its attention output, intermediate and output weights (`Int8Weights`). (The query,
/// key and value products are bf16: in int8 they cost CACM's hybrid ranking 3 %, docs/design.md.)
struct QuantizedHead {
    char magic[8];
    uint32_t most, layers, hidden, intermediate, halves, unused_word;
    uint64_t size;
    char unused[24];

    static constexpr char expected_magic[8] = {'S', 'L', 'I', 'N', 'T', '8', 0, 3};

    bool operator==(const QuantizedHead &other) const {
        return std::memcmp(magic, other.magic, sizeof magic) == 0 && most == other.most && layers == other.layers &&
               hidden == other.hidden && intermediate == other.intermediate && halves == other.halves &&
               size == other.size;
    }
};
static_assert(sizeof(QuantizedHead) == 64);

struct ce_encoder {
    ce_shape shape;
    encoder::Precision precision = encoder::Precision::int8;
    const float *word, *position, *token_type, *norm_weight, *norm_bias;
    /// Each layer's query, key and value biases, and (where the processor does not multiply bf16,
    /// or with float products) weights, stacked: read in place by `Layer::qkv`.
    std::vector<std::vector<float>> stacked_weights, stacked_biases;
    /// The int8 weights quantized when the encoder was made; empty when it reads the caller's.
    std::vector<uint8_t> quantized;
    std::vector<Layer> layers;
    /// How many groups a call's texts are split into at most: one per core.
    size_t workers = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, most_workers);
    ScratchPool scratch;

    const float *weight(ce_weight_lookup lookup, void *context_, const std::string &name, size_t count) {
        size_t found = 0;
        const float *values = lookup(context_, name.c_str(), &found);
        if (!values) throw invalid_argument("The model has no weight " + name);
        if (found != count)
            throw invalid_argument(
                "The model's weight " + name + " has " + std::to_string(found) + " values, not " +
                std::to_string(count));
        return values;
    }

    /// Loads the weights `lookup` finds; with int8, reads `given` (its `given_size` bytes) as the
    /// model's int8 form when it is this model's for this processor, else quantizes the weights.
    void load(ce_weight_lookup lookup, void *context_, const uint8_t *given, size_t given_size) {
        using encoder::Int8Weights;
        const size_t h = size_t(shape.hidden), m = size_t(shape.intermediate);
        word = weight(lookup, context_, "embeddings.word_embeddings.weight", size_t(shape.vocabulary) * h);
        position = weight(lookup, context_, "embeddings.position_embeddings.weight", size_t(shape.positions) * h);
        token_type = weight(lookup, context_, "embeddings.token_type_embeddings.weight", 2 * h);
        norm_weight = weight(lookup, context_, "embeddings.LayerNorm.weight", h);
        norm_bias = weight(lookup, context_, "embeddings.LayerNorm.bias", h);
        const size_t count = size_t(shape.layers);
        const bool int8 = precision == encoder::Precision::int8;
        const bool bf16 = int8 && Dense::multiplies_bf16();
        // Where each layer's weights lie in the model's int8 form.
        const size_t halves_size = bf16 ? (3 * h * h * sizeof(uint16_t) + 63) / 64 * 64 : 0;
        const size_t shapes[3][2] = {{h, h}, {m, h}, {h, m}};
        size_t per_layer = halves_size;
        for (const auto &shape_ : shapes) per_layer += Int8Weights::size(shape_[0], shape_[1]);
        QuantizedHead head{};
        std::memcpy(head.magic, QuantizedHead::expected_magic, sizeof head.magic);
        head.most = uint32_t(Int8Weights::most_weight);
        head.layers = uint32_t(count);
        head.hidden = uint32_t(h);
        head.intermediate = uint32_t(m);
        head.halves = bf16 ? 1 : 0;
        head.size = sizeof(QuantizedHead) + count * per_layer;
        const bool read_given = int8 && given != nullptr && given_size == head.size &&
                                *reinterpret_cast<const QuantizedHead *>(given) == head;
        if (int8 && !read_given) {
            quantized.resize(head.size);
            std::memcpy(quantized.data(), &head, sizeof head);
        }
        const uint8_t *base = read_given ? given : quantized.data();
        stacked_weights.resize(count);
        stacked_biases.resize(count);
        layers.reserve(count);
        for (size_t index = 0; index < count; ++index) {
            const std::string prefix = "encoder.layer." + std::to_string(index) + ".";
            size_t at = sizeof(QuantizedHead) + index * per_layer;
            std::vector<float> &qkv_weight = stacked_weights[index], &qkv_bias = stacked_biases[index];
            const auto halves = reinterpret_cast<const uint16_t *>(base + at);
            qkv_bias.resize(3 * h);
            if (!bf16) qkv_weight.resize(3 * h * h);
            const char *parts[] = {"query", "key", "value"};
            for (size_t part = 0; part < 3; ++part) {
                const std::string name = prefix + "attention.self." + parts[part];
                std::memcpy(&qkv_bias[part * h], weight(lookup, context_, name + ".bias", h), h * sizeof(float));
                if (bf16 && read_given) continue;
                const float *part_weight = weight(lookup, context_, name + ".weight", h * h);
                if (bf16)
                    encoder::to_bf16(part_weight, h * h, reinterpret_cast<uint16_t *>(&quantized[at]) + part * h * h);
                else if (int8)
                    encoder::round_to_bf16(part_weight, h * h, &qkv_weight[part * h * h]);
                else
                    std::memcpy(&qkv_weight[part * h * h], part_weight, h * h * sizeof(float));
            }
            // With int8, the bf16 product, or the float product of the same rounded values.
            Dense qkv = bf16 ? Dense(halves, qkv_bias.data(), 3 * h, h)
                             : Dense(qkv_weight.data(), qkv_bias.data(), 3 * h, h, int8);
            at += halves_size;
            const auto named = [&](const std::string &name, size_t columns, size_t depth) {
                const float *weights = weight(lookup, context_, prefix + name + ".weight", columns * depth);
                const float *bias = weight(lookup, context_, prefix + name + ".bias", columns);
                if (!int8) return Dense(weights, bias, columns, depth);
                if (!quantized.empty()) Int8Weights::quantize(weights, columns, depth, quantized.data() + at);
                Dense layer(Int8Weights::at(base + at, columns, depth), bias, columns, depth);
                at += Int8Weights::size(columns, depth);
                return layer;
            };
            // In the order of `shapes`, which is the int8 form's.
            Dense attention = named("attention.output.dense", h, h);
            Dense intermediate = named("intermediate.dense", m, h);
            Dense output = named("output.dense", h, m);
            layers.push_back(Layer{
                std::move(qkv),
                std::move(attention),
                weight(lookup, context_, prefix + "attention.output.LayerNorm.weight", h),
                weight(lookup, context_, prefix + "attention.output.LayerNorm.bias", h),
                std::move(intermediate),
                std::move(output),
                weight(lookup, context_, prefix + "output.LayerNorm.weight", h),
                weight(lookup, context_, prefix + "output.LayerNorm.bias", h),
            });

        }
    }

    void encode(const int32_t *ids, const int32_t *lengths, size_t count, size_t most_threads, bool idle,
                const ce_stop *stop, float *out) {
        size_t tokens = 0;
        for (size_t text = 0; text < count; ++text) {
            if (lengths[text] < 1 || lengths[text] > shape.positions)
                throw invalid_argument(
                    "Text " + std::to_string(text) + " has " + std::to_string(lengths[text]) +
                    " tokens; the model takes 1 to " + std::to_string(shape.positions));
            tokens += size_t(lengths[text]);
        }
        for (size_t i = 0; i < tokens; ++i)
            if (ids[i] < 0 || ids[i] >= shape.vocabulary)
                throw invalid_argument("Token id " + std::to_string(ids[i]) + " is not in the model's vocabulary");

        // Contiguous groups of texts of about `tokens / workers` tokens each.
        const size_t workers = std::min({count, this->workers, most_threads == 0 ? this->workers : most_threads});
        std::vector<size_t> starts{0};
        std::vector<size_t> firsts{0};
        for (size_t text = 0, seen = 0; text < count && starts.size() < workers; ++text) {
            seen += size_t(lengths[text]);
            if (seen * workers >= tokens * starts.size() && text + 1 < count) {
                starts.push_back(text + 1);
                firsts.push_back(seen);
            }
        }
        starts.push_back(count);
        const size_t groups = starts.size() - 1;
        const size_t h = size_t(shape.hidden);
        std::vector<std::unique_ptr<Scratch>> spaces = scratch.take(groups);
        struct GiveBack {
            ScratchPool &pool;
            std::vector<std::unique_ptr<Scratch>> &spaces;
            ~GiveBack() { pool.give(spaces); }
        } give_back{scratch, spaces};
        const auto run = [&](size_t group) {
            encode_group(ids + firsts[group], lengths + starts[group], starts[group + 1] - starts[group], stop,
                         out + starts[group] * h, *spaces[group]);
        };
        if (groups == 1 && !idle) {
            run(0);
            return;
        }
        // When idle, every group runs on a thread of its own, lowered to the idle priority, while
        // the caller waits; else the caller runs the first.
        std::vector<std::exception_ptr> failures(groups);
        std::vector<std::thread> threads;
        for (size_t group = idle ? 0 : 1; group < groups; ++group)
            threads.emplace_back([&, group] {
                if (idle) lower_to_idle();
                try {
                    run(group);
                } catch (...) {
                    failures[group] = std::current_exception();
                }
            });
        if (!idle) try {
                run(0);
            } catch (...) {
                failures[0] = std::current_exception();
            }
        for (std::thread &thread : threads) thread.join();
        for (const std::exception_ptr &failure : failures)
            if (failure) std::rethrow_exception(failure);
    }

    /// Encodes `count` checked texts, whose tokens start at `ids`, into `out`, in `space`; throws
    /// `stopped` at the next step of a layer (one text's attention, or one of the products over
    /// every text) once `stop` is asked, so that a large group stops as soon as a small one.
    void encode_group(const int32_t *ids, const int32_t *lengths, size_t count, const ce_stop *stop, float *out,
                      Scratch &space) {
        const size_t h = size_t(shape.hidden), m = size_t(shape.intermediate);
        const size_t heads = size_t(shape.heads), head = h / heads;
        size_t tokens = 0, longest = 0;
        for (size_t text = 0; text < count; ++text) {
            tokens += size_t(lengths[text]);
            longest = std::max(longest, size_t(lengths[text]));
        }
        std::vector<float> &hidden = space.hidden, &qkv = space.qkv, &context = space.context,
                           &intermediate = space.intermediate, &scores = space.scores;
        // Grown, never shrunk: a larger call does not fill again what an earlier one filled.
        const auto hold = [](std::vector<float> &space, size_t count) {
            if (space.size() < count) space.resize(count);
        };
        hold(hidden, tokens * h);
        hold(qkv, tokens * 3 * h);
        hold(context, tokens * h);
        hold(intermediate, tokens * m);
        hold(scores, encoder::attention_space(longest, head));

        // Embeddings: word, position within its text, and token type 0.
        for (size_t text = 0, token = 0; text < count; ++text) {
            for (size_t position = 0; position < size_t(lengths[text]); ++position, ++token) {
                float *x = &hidden[token * h];
                const float *w = word + size_t(ids[token]) * h, *p = this->position + position * h;
                for (size_t i = 0; i < h; ++i) x[i] = w[i] + p[i] + token_type[i];
            }
        }
        layer_norm(hidden.data(), tokens, h, norm_weight, norm_bias, shape.layer_norm_epsilon);

        // oneDNN on this thread alone (see the top of the file).
        libraries().omp_threads(1);
        const float scale = 1.0f / std::sqrt(float(head));
        const auto stop_if_asked = [stop] {
            if (stop != nullptr && stop->requested.load(std::memory_order_relaxed)) throw stopped();
        };
        for (const Layer &layer : layers) {
            for (size_t text = 0, first = 0; text < count; first += size_t(lengths[text]), ++text) {
                stop_if_asked();
                const int length = lengths[text];
                // Each text's rows a product of their own, first in it as when the text is alone
                // (the top of the file).
                layer.qkv.apply(&hidden[first * h], size_t(length), &qkv[first * 3 * h], Then::store, space.dense);
                for (size_t part = 0; part < heads; ++part) {
                    const float *query = &qkv[first * 3 * h + part * head];
                    encoder::attend({query, query + h, query + 2 * h, 3 * h, &context[first * h + part * head], h},
                                    size_t(length), head, scale, scores.data());
                }
            }
            // Attention's output, added to its input, then normalized.
            stop_if_asked();
            layer.attention.apply(context.data(), tokens, hidden.data(), Then::add, space.dense);
            layer_norm(hidden.data(), tokens, h, layer.attention_norm_weight, layer.attention_norm_bias,
                       shape.layer_norm_epsilon);
            // The feed-forward block, likewise.
            stop_if_asked();
            layer.intermediate.apply(hidden.data(), tokens, intermediate.data(), Then::gelu, space.dense);
            stop_if_asked();
            layer.output.apply(intermediate.data(), tokens, hidden.data(), Then::add, space.dense);
            layer_norm(hidden.data(), tokens, h, layer.output_norm_weight, layer.output_norm_bias,
                       shape.layer_norm_epsilon);
        }

        // Each text's vector: the mean of its tokens' states, normalized.
        for (size_t text = 0, first = 0; text < count; first += size_t(lengths[text]), ++text) {
            float *vector = out + text * h;
            std::fill(vector, vector + h, 0.0f);
            for (size_t token = first; token < first + size_t(lengths[text]); ++token)
                for (size_t i = 0; i < h; ++i) vector[i] += hidden[token * h + i];
            double norm = 0;
            for (size_t i = 0; i < h; ++i) norm += double(vector[i]) * double(vector[i]);
            const float inverse = norm > 0 ? float(1.0 / std::sqrt(norm)) : 0.0f;
            for (size_t i = 0; i < h; ++i) vector[i] *= inverse;
        }
    }
};

namespace {

/// Runs `body`, turning what it throws into a status and a message: the one place exceptions stop.
template <typename Body>
ce_status guarded(const char *doing, char **out_error, Body body) {
    try {
        body();
        return CE_OK;
    } catch (const stopped &) {
        return CE_STOPPED;
    } catch (const invalid_argument &error) {
        return fail(CE_ERR_INVALID_ARGUMENT, error.what(), out_error);
    } catch (const std::bad_alloc &) {
        return fail(CE_ERR_NO_MEMORY, std::string("Out of memory ") + doing, out_error);
    } catch (const std::exception &error) {
        return fail(CE_ERR_INTERNAL, error.what(), out_error);
    } catch (...) {
        return fail(CE_ERR_INTERNAL, std::string("Unknown failure ") + doing, out_error);
    }
}

}  // namespace

extern "C" ce_status ce_encoder_create(ce_shape shape, ce_precision precision, ce_weight_lookup lookup, void *context,
                                       const void *quantized, size_t quantized_size, ce_encoder **out,
                                       char **out_error) {
    *out = nullptr;
    if (shape.layers < 1 || shape.hidden < 1 || shape.heads < 1 || shape.hidden % shape.heads != 0 ||
        shape.intermediate < 1 || shape.vocabulary < 1 || shape.positions < 1)
        return fail(CE_ERR_INVALID_ARGUMENT, "The model's shape is not a BERT encoder's", out_error);
    return guarded("loading the model", out_error, [&] {
        if (!libraries().error.empty()) throw invalid_argument(libraries().error);
        auto encoder = std::make_unique<ce_encoder>();
        encoder->shape = shape;
        encoder->precision = precision == CE_PRECISION_FLOAT ? encoder::Precision::float32 : encoder::Precision::int8;
        encoder->load(lookup, context, static_cast<const uint8_t *>(quantized), quantized_size);
        *out = encoder.release();
    });
}

extern "C" void ce_encoder_free(ce_encoder *encoder) { delete encoder; }

extern "C" const void *ce_encoder_quantized(const ce_encoder *encoder, size_t *size) {
    *size = encoder->quantized.size();
    return encoder->quantized.empty() ? nullptr : encoder->quantized.data();
}

extern "C" int32_t ce_encoder_dimensions(const ce_encoder *encoder) { return encoder->shape.hidden; }

extern "C" ce_stop *ce_stop_create(void) {
    // Memory running out for these few bytes ends the program, as it would any allocation of Swift.
    ce_stop *stop = new (std::nothrow) ce_stop();
    if (stop == nullptr) std::abort();
    return stop;
}

extern "C" void ce_stop_free(ce_stop *stop) { delete stop; }

extern "C" void ce_stop_request(ce_stop *stop) { stop->requested.store(true, std::memory_order_relaxed); }

extern "C" bool ce_stop_requested(const ce_stop *stop) { return stop->requested.load(std::memory_order_relaxed); }

extern "C" ce_status ce_encode(ce_encoder *encoder, const int32_t *ids, const int32_t *lengths, size_t count,
                                size_t threads, bool idle, const ce_stop *stop, float *out, char **out_error) {
    return guarded("encoding texts", out_error,
                   [&] { encoder->encode(ids, lengths, count, threads, idle, stop, out); });
}

extern "C" ce_status ce_sha256(const void *bytes, size_t length, uint8_t out[32], char **out_error) {
    const encoder::Crypto &crypto = encoder::crypto();
    if (!crypto.error.empty()) return fail(CE_ERR_INVALID_ARGUMENT, crypto.error, out_error);
    unsigned int size = 32;
    crypto.digest(bytes ? bytes : "", length, out, &size, crypto.sha256(), nullptr);
    return CE_OK;
}

extern "C" void ce_string_free(char *string) { std::free(string); }
