// libraries.hpp — what the encoder uses of oneDNN and libcrypto.
//
// They are loaded when a model is first loaded (`libraries`), and libcrypto when a file is first
// hashed (`crypto`), not when the program starts: oneDNN's library is 40 MB and takes about 1 ms to
// load, and libcrypto about half that, which every command would pay (`searchlight --version`, a
// search by words) for a model most never use.

#ifndef CENCODER_LIBRARIES_HPP
#define CENCODER_LIBRARIES_HPP

#include <oneapi/dnnl/dnnl.h>
#include <openssl/evp.h>

#include <string>

namespace encoder {

struct Libraries {
    // oneDNN: the matrix products of the dense layers (dense.cpp).
    decltype(&dnnl_engine_create) engine_create = nullptr;
    decltype(&dnnl_stream_create) stream_create = nullptr;
    decltype(&dnnl_stream_destroy) stream_destroy = nullptr;
    decltype(&dnnl_memory_desc_init_by_tag) memory_desc_init = nullptr;
    decltype(&dnnl_memory_desc_get_size) memory_desc_size = nullptr;
    decltype(&dnnl_memory_create) memory_create = nullptr;
    decltype(&dnnl_memory_destroy) memory_destroy = nullptr;
    decltype(&dnnl_matmul_desc_init) matmul_desc_init = nullptr;
    decltype(&dnnl_primitive_attr_create) attr_create = nullptr;
    decltype(&dnnl_primitive_attr_destroy) attr_destroy = nullptr;
    decltype(&dnnl_primitive_attr_set_scratchpad_mode) attr_scratchpad_mode = nullptr;
    decltype(&dnnl_primitive_desc_create) primitive_desc_create = nullptr;
    decltype(&dnnl_primitive_desc_destroy) primitive_desc_destroy = nullptr;
    decltype(&dnnl_primitive_desc_query_md) primitive_desc_query_md = nullptr;
    decltype(&dnnl_primitive_create) primitive_create = nullptr;
    decltype(&dnnl_primitive_destroy) primitive_destroy = nullptr;
    decltype(&dnnl_primitive_execute) primitive_execute = nullptr;
    /// OpenMP's, which oneDNN runs on: set to one thread on each thread that calls oneDNN (see
    /// encoder.cpp's opening comment).
    void (*omp_threads)(int) = nullptr;
    /// oneDNN's CPU engine, made once.
    dnnl_engine_t engine = nullptr;
    /// Why the libraries cannot be used, naming the Debian package to install; empty when they can.
    std::string error;
};

/// libcrypto: SHA-256, to check the model's files. Loaded apart, for a process that finds the
/// files in the record of verified files does not hash them.
struct Crypto {
    decltype(&EVP_Digest) digest = nullptr;
    decltype(&EVP_sha256) sha256 = nullptr;
    /// Why libcrypto cannot be used, naming the Debian package to install; empty when it can.
    std::string error;
};

/// The libraries, loaded on the first call.
const Libraries &libraries();

/// libcrypto, loaded on the first call.
const Crypto &crypto();

}  // namespace encoder

#endif
