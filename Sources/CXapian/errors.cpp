// The one place where C++ exceptions become statuses.

#include "errors.hpp"

#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <xapian.h>

namespace cx {

char *copy_bytes(const std::string &bytes) {
    char *copy = static_cast<char *>(std::malloc(bytes.size() + 1));
    if (copy == nullptr) throw std::bad_alloc();
    std::memcpy(copy, bytes.data(), bytes.size());
    copy[bytes.size()] = '\0';
    return copy;
}

cx_status fail(cx_status status, const std::string &message, char **out_error) {
    if (out_error != nullptr) {
        *out_error = static_cast<char *>(std::malloc(message.size() + 1));
        if (*out_error != nullptr) {
            std::memcpy(*out_error, message.data(), message.size());
            (*out_error)[message.size()] = '\0';
        }
    }
    return status;
}

static std::string describe(const Xapian::Error &error) {
    std::string message = error.get_msg();
    if (const char *reason = error.get_error_string()) {
        message += message.empty() ? "" : " (";
        message += reason;
        message += message.empty() ? "" : ")";
    }
    return message;
}

cx_status status_from_current_exception(char **out_error) {
    try {
        throw;
    } catch (const Xapian::DatabaseLockError &error) {
        return fail(CX_ERR_LOCKED, describe(error), out_error);
    } catch (const Xapian::DatabaseVersionError &error) {
        return fail(CX_ERR_VERSION, describe(error), out_error);
    } catch (const Xapian::DatabaseOpeningError &error) {
        return fail(CX_ERR_OPENING, describe(error), out_error);
    } catch (const Xapian::DatabaseCorruptError &error) {
        return fail(CX_ERR_CORRUPT, describe(error), out_error);
    } catch (const Xapian::DatabaseModifiedError &error) {
        return fail(CX_ERR_MODIFIED, describe(error), out_error);
    } catch (const Xapian::DatabaseError &error) {
        // A table shorter than its own structure says ("EOF reading block N") is damage, not a
        // failing disk: Xapian reports it as a plain DatabaseError with no errno.
        if (error.get_error_string() == nullptr && error.get_msg().find("EOF reading") != std::string::npos)
            return fail(CX_ERR_CORRUPT, describe(error), out_error);
        return fail(CX_ERR_IO, describe(error), out_error);
    } catch (const Xapian::QueryParserError &error) {
        return fail(CX_ERR_QUERY, describe(error), out_error);
    } catch (const Xapian::WildcardError &error) {
        return fail(CX_ERR_QUERY, describe(error), out_error);
    } catch (const Xapian::NetworkError &error) {
        return fail(CX_ERR_NETWORK, describe(error), out_error);
    } catch (const Xapian::InvalidArgumentError &error) {
        return fail(CX_ERR_INVALID_ARGUMENT, describe(error), out_error);
    } catch (const Xapian::InvalidOperationError &error) {
        return fail(CX_ERR_INVALID_ARGUMENT, describe(error), out_error);
    } catch (const Xapian::Error &error) {
        return fail(CX_ERR_UNKNOWN, error.get_type() + std::string(": ") + describe(error), out_error);
    } catch (const std::bad_alloc &) {
        return fail(CX_ERR_NO_MEMORY, "out of memory", out_error);
    } catch (const std::exception &error) {
        return fail(CX_ERR_UNKNOWN, error.what(), out_error);
    } catch (...) {
        return fail(CX_ERR_UNKNOWN, "unknown C++ exception", out_error);
    }
}

}  // namespace cx

extern "C" void cx_string_free(char *string) { std::free(string); }
