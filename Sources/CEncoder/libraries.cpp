#include "libraries.hpp"

#include <dlfcn.h>

namespace encoder {

namespace {

template <typename Function>
void find(void *library, const char *name, Function &out, std::string &error) {
    out = reinterpret_cast<Function>(library ? dlsym(library, name) : nullptr);
    if (!out && error.empty()) error = std::string("no ") + name + " in it";
}

/// `library` opened by its name, or `error` saying why not.
void *open(const char *name, std::string &error) {
    void *library = dlopen(name, RTLD_LAZY | RTLD_LOCAL);
    if (!library) error = dlerror();
    return library;
}

Libraries load() {
    Libraries loaded;
    // The name Debian's libdnnl2 installs.
    std::string dnnl_error;
    void *dnnl = open("libdnnl.so.2", dnnl_error);
    find(dnnl, "dnnl_engine_create", loaded.engine_create, dnnl_error);
    find(dnnl, "dnnl_stream_create", loaded.stream_create, dnnl_error);
    find(dnnl, "dnnl_stream_destroy", loaded.stream_destroy, dnnl_error);
    find(dnnl, "dnnl_memory_desc_init_by_tag", loaded.memory_desc_init, dnnl_error);
    find(dnnl, "dnnl_memory_desc_get_size", loaded.memory_desc_size, dnnl_error);
    find(dnnl, "dnnl_memory_create", loaded.memory_create, dnnl_error);
    find(dnnl, "dnnl_memory_destroy", loaded.memory_destroy, dnnl_error);
    find(dnnl, "dnnl_matmul_desc_init", loaded.matmul_desc_init, dnnl_error);
    find(dnnl, "dnnl_primitive_attr_create", loaded.attr_create, dnnl_error);
    find(dnnl, "dnnl_primitive_attr_destroy", loaded.attr_destroy, dnnl_error);
    find(dnnl, "dnnl_primitive_attr_set_scratchpad_mode", loaded.attr_scratchpad_mode, dnnl_error);
    find(dnnl, "dnnl_primitive_desc_create", loaded.primitive_desc_create, dnnl_error);
    find(dnnl, "dnnl_primitive_desc_destroy", loaded.primitive_desc_destroy, dnnl_error);
    find(dnnl, "dnnl_primitive_desc_query_md", loaded.primitive_desc_query_md, dnnl_error);
    find(dnnl, "dnnl_primitive_create", loaded.primitive_create, dnnl_error);
    find(dnnl, "dnnl_primitive_destroy", loaded.primitive_destroy, dnnl_error);
    find(dnnl, "dnnl_primitive_execute", loaded.primitive_execute, dnnl_error);
    // libdnnl2 depends on libgomp1, which a lookup through oneDNN's handle reaches.
    find(dnnl, "omp_set_num_threads", loaded.omp_threads, dnnl_error);
    if (!dnnl_error.empty())
        loaded.error = "oneDNN (libdnnl.so.2, Debian's libdnnl2) cannot be loaded: " + dnnl_error;
    else if (loaded.engine_create(&loaded.engine, dnnl_cpu, 0) != dnnl_success)
        loaded.error = "oneDNN (Debian's libdnnl2) has no engine for this processor";
    return loaded;
}

Crypto load_crypto() {
    Crypto loaded;
    // The name Debian's libssl3 installs.
    std::string error;
    void *crypto = open("libcrypto.so.3", error);
    find(crypto, "EVP_Digest", loaded.digest, error);
    find(crypto, "EVP_sha256", loaded.sha256, error);
    if (!error.empty())
        loaded.error = "OpenSSL's libcrypto (libcrypto.so.3, Debian's libssl3) cannot be loaded: " + error;
    return loaded;
}

}  // namespace

const Libraries &libraries() {
    static const Libraries loaded = load();
    return loaded;
}

const Crypto &crypto() {
    static const Crypto loaded = load_crypto();
    return loaded;
}

}  // namespace encoder
