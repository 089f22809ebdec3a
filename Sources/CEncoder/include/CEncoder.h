// CEncoder.h — a C API over a BERT sentence encoder (all-MiniLM-L6-v2's shape) for Searchlight.
//
// The encoder turns token ids (the Kit's WordPiece tokenizer makes them) into unit vectors of
// meaning: BERT's forward pass, three of its four dense layers over oneDNN's int8 matrix products
// (or its float ones, the reference), attention over its float product, the last hidden states averaged
// over each text's tokens and normalized, as sentence-transformers pools this model. It reads
// its weights where the caller maps them (a safetensors file, checked against its SHA-256 first)
// and copies only what it lays out anew. C++ stays inside: no exception crosses these functions;
// each failure is a status with a `malloc`-ed message the caller frees with `ce_string_free`.
//
// oneDNN and libcrypto are loaded with the first model (`ce_encoder_create`), not with the
// program. Threads may use one encoder at once: each call works in scratch space of its own.

#ifndef CENCODER_H
#define CENCODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if !__has_feature(nullability)
#define _Nonnull
#define _Nullable
#endif

#ifdef __cplusplus
extern "C" {
#endif

#pragma clang assume_nonnull begin

typedef enum ce_status : int32_t {
    CE_OK = 0,
    /// A weight is missing or has the wrong shape, or an argument is out of range.
    CE_ERR_INVALID_ARGUMENT = 1,
    /// Memory ran out.
    CE_ERR_NO_MEMORY = 2,
    /// Any other failure.
    CE_ERR_INTERNAL = 3,
    /// A stop was asked for (`ce_stop_request`) while the call ran: it wrote nothing.
    CE_STOPPED = 4,
} ce_status;

/// The model's shape.
typedef struct ce_shape {
    int32_t layers;        // 6
    int32_t hidden;        // 384
    int32_t heads;         // 12
    int32_t intermediate;  // 1536
    int32_t vocabulary;    // 30522
    int32_t positions;     // 512
    float layer_norm_epsilon;  // 1e-12
} ce_shape;

/// Finds a weight by its name in the model's file (`encoder.layer.0.attention.self.query.weight`):
/// its float32 values, row-major, and how many there are; NULL when the file has none by that name.
typedef const float *_Nullable (*ce_weight_lookup)(void *_Nullable context, const char *name, size_t *count);

typedef struct ce_encoder ce_encoder;

/// How an encoder's dense layers multiply.
typedef enum ce_precision : int32_t {
    /// 8-bit integers (oneDNN's products; the weights quantized when the encoder is made) for every
    /// dense layer but attention's query, key and value, whose inputs and weights are rounded to
    /// bf16 and summed in float (bf16 products with AVX512_BF16): what Searchlight runs, the same
    /// on every processor but for the order of float sums.
    CE_PRECISION_INT8 = 0,
    /// 32-bit floats (oneDNN's float products): the reference the int8 products are tested against.
    CE_PRECISION_FLOAT = 1,
} ce_precision;

/// Makes an encoder of `shape` from the weights `lookup` finds, its dense layers multiplying at
/// `precision`. With int8, `quantized` (`quantized_size` bytes), when not NULL, is the model's int8
/// form as an encoder of the same model gave it (`ce_encoder_quantized`), read in place rather than
/// quantized again; one made for another shape, bound or processor (one that multiplies bf16
/// keeps the query, key and value weights in it) is left unread, and the weights quantized. The weights and the int8 form it reads in
/// place must outlive the encoder.
ce_status ce_encoder_create(
    ce_shape shape, ce_precision precision, ce_weight_lookup lookup, void *_Nullable context,
    const void *_Nullable quantized, size_t quantized_size, ce_encoder *_Nullable *_Nonnull out,
    char *_Nullable *_Nullable out_error);

void ce_encoder_free(ce_encoder *_Nullable encoder);

/// The int8 form of the model the encoder quantized when it was made, `*size` bytes, owned by the
/// encoder: for the caller to keep (in a file, say) and give the next encoders of the model. NULL
/// (and 0) when the encoder read the caller's, or multiplies in float.
const void *_Nullable ce_encoder_quantized(const ce_encoder *encoder, size_t *size);

/// The length of the encoder's vectors.
int32_t ce_encoder_dimensions(const ce_encoder *encoder);

/// What asks encodings to stop: any thread may ask (one that waits for a signal, say), and a
/// call given it stops between two steps of one of the model's layers, a fraction of a second later.
typedef struct ce_stop ce_stop;

ce_stop *ce_stop_create(void);

void ce_stop_free(ce_stop *_Nullable stop);

/// Asks the calls given `stop`, running or to come, to stop.
void ce_stop_request(ce_stop *stop);

/// Whether a stop was asked for.
bool ce_stop_requested(const ce_stop *stop);

/// Encodes `count` texts, given as their token ids one after another (`ids`, each text's ids
/// starting with [CLS] and ending with [SEP], `lengths[i]` of them, at most the model's positions),
/// into `count` unit vectors of `ce_encoder_dimensions` floats each, written to `out`, on at most
/// `threads` threads (the caller's among them; 0 for one a core). When `idle`, the texts are
/// encoded on threads of their own at the scheduler's idle priority (Linux's `SCHED_IDLE`: they run
/// only on cores no other thread wants), the caller waiting: for work in the background that
/// yields to a service's searches. With `stop`, returns `CE_STOPPED` as soon as a stop is asked
/// for, the vectors unwritten.
ce_status ce_encode(
    ce_encoder *encoder, const int32_t *ids, const int32_t *lengths, size_t count, size_t threads, bool idle,
    const ce_stop *_Nullable stop, float *out, char *_Nullable *_Nullable out_error);

/// The SHA-256 digest of `length` bytes (OpenSSL's libcrypto, loaded on first use: when it cannot
/// be, `CE_ERR_INVALID_ARGUMENT` and a message saying which package holds it).
ce_status ce_sha256(
    const void *_Nullable bytes, size_t length, uint8_t out[_Nonnull 32], char *_Nullable *_Nullable out_error);

/// Frees a message returned by a failing call.
void ce_string_free(char *_Nullable string);

#pragma clang assume_nonnull end

#ifdef __cplusplus
}
#endif

#endif
