// What errors.cpp offers the other files of the shim.
#pragma once

#include <string>

#include "CXapian.h"

namespace cx {

/// Maps the exception being handled to a status, storing its message in `*out_error`.
/// Call only from inside a `catch` block.
cx_status status_from_current_exception(char **out_error);

/// Stores a copy of `message` in `*out_error` (when not NULL) and returns `status`.
cx_status fail(cx_status status, const std::string &message, char **out_error);

/// A `malloc`-ed copy of `bytes`, NUL-terminated; throws std::bad_alloc.
char *copy_bytes(const std::string &bytes);

inline std::string str(cx_text text) {
    return text.data == nullptr ? std::string() : std::string(text.data, text.length);
}

}  // namespace cx
