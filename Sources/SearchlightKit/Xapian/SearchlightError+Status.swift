internal import CXapian

extension SearchlightError {
    /// The error a shim status stands for: its code, the facts (the index's path, Xapian's own
    /// message as the cause) and which ``IndexFailure``. Front ends add what a user can do.
    init(status: cx_status, message: String, path: String) {
        let cause = message.isEmpty ? nil : message
        let detail = message.isEmpty ? "" : ": \(message)"
        let (code, text, failure): (Code, String, IndexFailure)
        switch status {
        case CX_ERR_LOCKED:
            (code, text, failure) = (.indexLocked, "The index at \(path) is locked by another writer", .locked)
        case CX_ERR_OPENING:
            (code, text, failure) = (.indexUnavailable, "Cannot open the index at \(path)\(detail)", .notOpenable)
        case CX_ERR_NETWORK:
            (code, text, failure) = (.indexUnavailable, "Cannot reach the index at \(path)\(detail)", .network)
        case CX_ERR_VERSION:
            (code, text, failure) = (.indexUnavailable, "Cannot use the index at \(path)\(detail)", .wrongFormat)
        case CX_ERR_EARLIER_FORMAT:
            (code, text, failure) = (
                .indexUnavailable, "Cannot search the index at \(path) yet\(detail)", .earlierFormat
            )
        case CX_ERR_CORRUPT:
            (code, text, failure) = (.indexUnavailable, "The index at \(path) is damaged\(detail)", .corrupt)
        case CX_ERR_MODIFIED:
            (code, text, failure) = (
                .indexUnavailable, "The index at \(path) kept changing while being read", .modified
            )
        case CX_ERR_IO:
            (code, text, failure) = (
                .writeFailed,
                "Reading or writing the index at \(path) failed\(detail); nothing of this batch was committed", .io
            )
        case CX_ERR_NO_MEMORY:
            (code, text, failure) = (
                .writeFailed, "Memory ran out while using the index at \(path); nothing of this batch was committed",
                .outOfMemory
            )
        case CX_ERR_QUERY:
            (code, text, failure) = (.invalidQuery, "Xapian cannot read the query\(detail)", .other)
        default:
            (code, text, failure) = (.internalError, "Xapian failed on the index at \(path)\(detail)", .other)
        }
        self.init(code, text, cause: cause, failure: failure)
    }
}
