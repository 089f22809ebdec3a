// Calls of the shim that its test suites share.

import CXapian

/// Calls the shim, returning its status and taking ownership of its error message.
func call(_ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> cx_status) -> (
    status: cx_status, message: String?
) {
    var error: UnsafeMutablePointer<CChar>?
    let status = body(&error)
    defer { cx_string_free(error) }
    return (status, error.map { String(cString: $0) })
}

/// Opens the database at `path`: the handle (nil on failure), the status and the message.
func open(_ path: String, _ mode: cx_open_mode) -> (OpaquePointer?, cx_status, String?) {
    var database: OpaquePointer?
    let (status, message) = call { cx_database_open(path, mode, &database, $0) }
    return (database, status, message)
}

/// Stores one item through the C API with borrowed strings.
func store(
    _ database: OpaquePointer, id: String, title: String, public isPublic: Bool = false, data json: String? = nil,
    documentID: UInt32 = 0
) -> cx_status {
    let domain = Array("app".utf8CString)
    let idBytes = Array(id.utf8CString)
    let titleBytes = Array(title.utf8CString)
    let data = Array((json ?? "{\"id\":\"\(id)\"}").utf8CString)
    return domain.withUnsafeBufferPointer { domainBuffer in
        idBytes.withUnsafeBufferPointer { idBuffer in
            titleBytes.withUnsafeBufferPointer { titleBuffer in
                data.withUnsafeBufferPointer { dataBuffer in
                    func text(_ buffer: UnsafeBufferPointer<CChar>) -> cx_text {
                        cx_text(data: buffer.baseAddress, length: buffer.count - 1)
                    }
                    var item = cx_item(
                        domain: text(domainBuffer), identifier: text(idBuffer), title: text(titleBuffer),
                        description: cx_text(), schema: cx_text(), data: text(dataBuffer), keywords: nil,
                        keyword_count: 0, is_public: isPublic, expiration_ms: 0, line_digest: 0, views: -1,
                        source: cx_text(), values: nil, value_count: 0, moved: 0,
                        document_id: documentID)
                    var documents: OpaquePointer?
                    let built = call { cx_documents_build(&item, 1, &documents, $0) }.status
                    defer { cx_documents_free(documents) }
                    guard built == CX_OK else { return built }
                    return call { cx_database_store_documents(database, documents!, &item, 1, 0, nil, $0) }.status
                }
            }
        }
    }
}

/// Deletes item `id` of domain `app`, public or not, in `writer`'s transaction.
func deleteItem(_ writer: OpaquePointer, id: String) -> cx_status {
    let domain = Array("app".utf8CString), identifier = Array(id.utf8CString)
    var outcome: Int32 = 0
    return domain.withUnsafeBufferPointer { domainBytes in
        identifier.withUnsafeBufferPointer { idBytes in
            var text = cx_text(data: idBytes.baseAddress, length: idBytes.count - 1)
            let domainText = cx_text(data: domainBytes.baseAddress, length: domainBytes.count - 1)
            return call { cx_database_delete_items(writer, domainText, &text, 1, true, &outcome, $0) }.status
        }
    }
}

/// The page of `results`, read in one call.
func page(_ results: OpaquePointer) -> UnsafeBufferPointer<cx_result> {
    var count = 0
    return UnsafeBufferPointer(start: cx_results_page(results, &count), count: count)
}

/// A `cx_text`'s bytes as a string.
func string(_ text: cx_text) -> String {
    String(decoding: UnsafeRawBufferPointer(start: text.data, count: text.length), as: UTF8.self)
}

/// Calls `body` with `string` as a `cx_text`.
func withText<Result>(_ string: String, _ body: (cx_text) -> Result) -> Result {
    Array(string.utf8).withUnsafeBufferPointer { raw in
        raw.withMemoryRebound(to: CChar.self) { body(cx_text(data: $0.baseAddress, length: $0.count)) }
    }
}
