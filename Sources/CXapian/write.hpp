// What write.cpp offers the other files of the shim.
#pragma once

#include "database.hpp"

namespace cx {

/// `CX_ERR_INVALID_ARGUMENT` for a NULL, closed or read-only handle, else `CX_OK`.
cx_status require_writable(cx_database *database, char **out_error);

}  // namespace cx
