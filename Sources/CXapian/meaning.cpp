// Items' vectors of meaning: which items lack one, storing them, and removing them all.
//
// A vector is a value (`CX_SLOT_MEANING`), so it is as atomic as the rest of a document: written
// in the writer's transaction, carried by generations, compaction and replication. The items
// that lack one are those a write added or changed since vectors were last completed: a document
// is made without one, and the Kit completes them after its words are committed.

#include "meaning.hpp"

#include <algorithm>
#include <cmath>
#include <climits>
#include <cstdlib>
#include <cstring>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "database.hpp"
#include "errors.hpp"
#include "read.hpp"
#include "schema.hpp"
#include "upkeep.hpp"
#include "write.hpp"

namespace cx {

std::string meaning_value(const float *vector, uint32_t dimensions) {
    float largest = 0;
    for (uint32_t i = 0; i < dimensions; ++i) largest = std::max(largest, std::fabs(vector[i]));
    const float scale = largest > 0 ? largest / 127.0f : 1.0f;
    std::string value(sizeof(float) + dimensions, '\0');
    std::memcpy(value.data(), &scale, sizeof(float));
    for (uint32_t i = 0; i < dimensions; ++i)
        value[sizeof(float) + i] = static_cast<char>(static_cast<int8_t>(std::lrint(vector[i] / scale)));
    return value;
}

CX_WIDEST_VECTORS int32_t meaning_product(const int16_t *query, const int8_t *stored, uint32_t dimensions) {
    int32_t sum = 0;
    for (uint32_t i = 0; i < dimensions; ++i) sum += int32_t(query[i]) * int32_t(stored[i]);
    return sum;
}

MeaningQuery::MeaningQuery(const float *vector, uint32_t dimensions) : components(dimensions) {
    float largest = 0;
    for (uint32_t i = 0; i < dimensions; ++i) largest = std::max(largest, std::fabs(vector[i]));
    // At most 32,767 steps, and fewer past 512 dimensions, so that no sum overflows.
    const double steps = std::min(32767.0, double(INT32_MAX) / (128.0 * std::max(dimensions, 1u)));
    scale = largest > 0 ? float(largest / steps) : 1.0f;
    for (uint32_t i = 0; i < dimensions; ++i) components[i] = static_cast<int16_t>(std::lrint(vector[i] / scale));
}

float meaning_code(const std::string &value, uint32_t dimensions, uint64_t *bits, size_t stride, double *residual) {
    if (value.size() != sizeof(float) + dimensions) return 0;
    float scale;
    std::memcpy(&scale, value.data(), sizeof(float));
    const auto *components = reinterpret_cast<const int8_t *>(value.data() + sizeof(float));
    for (uint32_t w = 0; w < code_words(dimensions); ++w) bits[w * stride] = 0;
    int64_t magnitude = 0;
    for (uint32_t j = 0; j < dimensions; ++j) {
        if (components[j] > 0) bits[(j / 64) * stride] |= uint64_t(1) << (j % 64);
        magnitude += std::abs(int32_t(components[j]));
    }
    const float weight = magnitude > 0 ? float(double(scale) * double(magnitude) / dimensions) : 0;
    if (residual != nullptr && weight != 0)
        for (uint32_t j = 0; j < dimensions; ++j)
            residual[j] += double(scale) * components[j] - (components[j] > 0 ? double(weight) : -double(weight));
    return weight;
}

CodedQuery::CodedQuery(const float *vector, uint32_t dimensions, const float *residual)
    : words(code_words(dimensions)) {
    bits.assign(size_t(planes) * words, 0);
    if (dimensions == 0) return;
    if (residual != nullptr)
        for (uint32_t j = 0; j < dimensions; ++j) offset += double(vector[j]) * residual[j];
    const auto [smallest, largest] = std::minmax_element(vector, vector + dimensions);
    low = *smallest;
    step = (double(*largest) - low) / ((1u << planes) - 1);
    for (uint32_t j = 0; j < dimensions; ++j) {
        const unsigned level = step > 0 ? unsigned(std::lrint((vector[j] - low) / step)) : 0;
        for (unsigned p = 0; p < planes; ++p)
            if (level & (1u << p)) bits[size_t(p) * words + j / 64] |= uint64_t(1) << (j % 64);
        total += low + step * level;
    }
}

namespace {

/// An item's estimate from its sums (`estimate_similarities`): the query's dimensions where its
/// code is positive, less those where it is not, times its weight.
inline float estimated(const CodedQuery &query, float weight, uint64_t sums) {
    const double selected = query.low * double(sums & 0xffffffff) + query.step * double(sums >> 32);
    return float(weight * (2 * selected - query.total) + query.offset);
}

#if defined(__x86_64__) && !__has_feature(address_sanitizer)
#define CX_POPULATION_COUNT __attribute__((target_clones("popcnt", "default")))
#define CX_WIDE_POPULATION_COUNT 1
#else
#define CX_POPULATION_COUNT
#define CX_WIDE_POPULATION_COUNT 0
#endif

/// `estimate_similarities` a word at a time for a run of items: each item's count of positive
/// dimensions in its low 32 bits, and its query steps summed over them in its high 32.
CX_POPULATION_COUNT void estimate_portably(const CodedQuery &query, const uint64_t *codes, size_t stride,
                                           const float *weights, size_t count, float *out) {
    constexpr size_t run = 256;
    const uint32_t words = query.words;
    const uint64_t *planes = query.bits.data();
    for (size_t start = 0; start < count; start += run) {
        const size_t items = std::min(run, count - start);
        uint64_t sums[run];
        std::fill_n(sums, items, 0);
        for (uint32_t w = 0; w < words; ++w) {
            const uint64_t *word = codes + w * stride + start;
            const uint64_t p0 = planes[w], p1 = planes[words + w], p2 = planes[2 * words + w],
                           p3 = planes[3 * words + w];
            for (size_t i = 0; i < items; ++i) {
                const uint64_t x = word[i];
                const uint64_t stepped = uint64_t(__builtin_popcountll(x & p0)) +
                                         (uint64_t(__builtin_popcountll(x & p1)) << 1) +
                                         (uint64_t(__builtin_popcountll(x & p2)) << 2) +
                                         (uint64_t(__builtin_popcountll(x & p3)) << 3);
                sums[i] += uint64_t(__builtin_popcountll(x)) + (stepped << 32);
            }
        }
        for (size_t i = 0; i < items; ++i) out[start + i] = estimated(query, weights[start + i], sums[i]);
    }
}

#if CX_WIDE_POPULATION_COUNT
/// The bits each of eight words `x` shares with `plane`.
__attribute__((target("avx512f,avx512vpopcntdq"))) inline __m512i counted_lanes(__m512i x, uint64_t plane) {
    return _mm512_popcnt_epi64(_mm512_and_si512(x, _mm512_set1_epi64(int64_t(plane))));
}

/// `estimate_portably` eight items at a time, with AVX-512's population count of each 64-bit lane
/// (Ice Lake and Zen 4 on): about 2.5 times as fast.
__attribute__((target("avx512f,avx512vpopcntdq"))) void estimate_widely(const CodedQuery &query,
                                                                         const uint64_t *codes, size_t stride,
                                                                         const float *weights, size_t count,
                                                                         float *out) {
    const uint32_t words = query.words;
    const uint64_t *planes = query.bits.data();
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        __m512i sums = _mm512_setzero_si512();
        for (uint32_t w = 0; w < words; ++w) {
            const __m512i x = _mm512_loadu_si512(codes + w * stride + i);
            __m512i stepped = counted_lanes(x, planes[3 * words + w]);
            stepped = _mm512_add_epi64(_mm512_slli_epi64(stepped, 1), counted_lanes(x, planes[2 * words + w]));
            stepped = _mm512_add_epi64(_mm512_slli_epi64(stepped, 1), counted_lanes(x, planes[words + w]));
            stepped = _mm512_add_epi64(_mm512_slli_epi64(stepped, 1), counted_lanes(x, planes[w]));
            sums = _mm512_add_epi64(sums, _mm512_add_epi64(_mm512_slli_epi64(stepped, 32), _mm512_popcnt_epi64(x)));
        }
        alignas(64) uint64_t lanes[8];
        _mm512_store_si512(lanes, sums);
        for (size_t k = 0; k < 8; ++k) out[i + k] = estimated(query, weights[i + k], lanes[k]);
    }
    if (i < count) estimate_portably(query, codes + i, stride, weights + i, count - i, out + i);
}
#endif

}  // namespace

void estimate_similarities(const CodedQuery &query, const uint64_t *codes, size_t stride, const float *weights,
                           size_t count, float *out) {
#if CX_WIDE_POPULATION_COUNT
    static const bool wide = __builtin_cpu_supports("avx512vpopcntdq");
    if (wide) return estimate_widely(query, codes, stride, weights, count, out);
#endif
    estimate_portably(query, codes, stride, weights, count, out);
}

uint64_t document_digest(const Xapian::Document &document) {
    const std::string value = document.get_value(slot::digest);
    uint64_t digest = 0;
    for (unsigned char byte : value) digest = (digest << 8) | byte;
    return digest;
}

}  // namespace cx

namespace {

/// Stores `value_of(i)` in `CX_SLOT_MEANING` of each of `count` items, by storage position, in the
/// writer's transaction: an item that is gone, or whose content digest is no longer `digests[i]`
/// (rewritten since it was read), is left alone. `*out_stored` counts those stored.
template <typename ValueOf>
cx_status store_meaning(cx_database *database, const uint32_t *positions, const uint64_t *digests, size_t count,
                        size_t *out_stored, char **out_error, const ValueOf &value_of) {
    *out_stored = 0;
    if (cx_status status = cx::require_writable(database, out_error)) return status;
    if (count > 0 && (positions == nullptr || digests == nullptr))
        return cx::fail(CX_ERR_INVALID_ARGUMENT, "no items", out_error);
    try {
        Xapian::WritableDatabase &writer = database->writer;
        for (size_t i = 0; i < count; ++i) {
            Xapian::Document document;
            try {
                document = writer.get_document(positions[i]);
            } catch (const Xapian::DocNotFoundError &) {
                continue;  // removed since it was read
            }
            if (cx::document_digest(document) != digests[i]) continue;  // rewritten since it was read
            document.add_value(CX_SLOT_MEANING, value_of(i));
            writer.replace_document(positions[i], document);
            cx::upkeep::rewritten(*database, positions[i]);
            ++*out_stored;
        }
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

}  // namespace

extern "C" {

cx_status cx_database_meaning_counts(cx_database *database, uint64_t *out_items, uint64_t *out_with_meaning,
                                     uint32_t *out_end, char **out_error) {
    if (cx_status status = cx::require_open(database, out_error)) return status;
    return cx::with_retries(database, out_error, [&] {
        *out_items = database->reader.get_doccount();
        *out_with_meaning = database->reader.get_value_freq(CX_SLOT_MEANING);
        *out_end = database->reader.get_lastdocid() + 1;
    });
}

cx_status cx_database_set_meaning(cx_database *database, const uint32_t *positions, const uint64_t *digests,
                                  const float *vectors, size_t count, uint32_t dimensions, size_t *out_stored,
                                  char **out_error) {
    *out_stored = 0;
    if (count > 0 && (vectors == nullptr || dimensions == 0))
        return cx::fail(CX_ERR_INVALID_ARGUMENT, "no vectors", out_error);
    return store_meaning(database, positions, digests, count, out_stored, out_error,
                         [&](size_t i) { return cx::meaning_value(vectors + i * dimensions, dimensions); });
}

cx_status cx_database_mark_unread(cx_database *database, const uint32_t *positions, const uint64_t *digests,
                                  size_t count, size_t *out_marked, char **out_error) {
    return store_meaning(database, positions, digests, count, out_marked, out_error,
                         [](size_t) { return cx::unread_meaning; });
}

cx_status cx_database_clear_meaning(cx_database *database, char **out_error) {
    if (cx_status status = cx::require_writable(database, out_error)) return status;
    try {
        Xapian::WritableDatabase &writer = database->writer;
        std::vector<Xapian::docid> ids;
        for (auto it = writer.valuestream_begin(CX_SLOT_MEANING); it != writer.valuestream_end(CX_SLOT_MEANING); ++it)
            ids.push_back(it.get_docid());
        for (Xapian::docid id : ids) {
            Xapian::Document document = writer.get_document(id);
            document.remove_value(CX_SLOT_MEANING);
            writer.replace_document(id, document);
            cx::upkeep::rewritten(*database, id);
        }
        return CX_OK;
    } catch (...) {
        return cx::status_from_current_exception(out_error);
    }
}

}  // extern "C"
