import Foundation

internal import CXapian

/// Owns one `cx_database` handle: the only Swift type that calls the shim's database functions.
///
/// Not thread-safe, like Xapian's own objects: ``SearchableIndex`` only touches it inside its mutex,
/// which is what makes the `@unchecked Sendable` true.
final class XapianDatabase: @unchecked Sendable {
    private var handle: OpaquePointer?
    let path: String
    let isWritable: Bool

    /// Opens the database, or throws ``SearchlightError`` mapped from the shim's status.
    init(path: String, writable: Bool) throws(SearchlightError) {
        self.path = path
        self.isWritable = writable
        var opened: OpaquePointer?
        try Self.check(path: path) { error in
            cx_database_open(path, writable ? CX_OPEN_WRITE : CX_OPEN_READ, &opened, error)
        }
        handle = opened
    }

    deinit {
        // Only a fallback: `close()` reports failures, Xapian's destructor swallows them.
        cx_database_free(handle)
    }

    /// Closes the handle; a transaction still open is abandoned.
    func close() throws(SearchlightError) {
        guard let handle else { return }
        defer {
            cx_database_free(handle)
            self.handle = nil
        }
        try check { error in cx_database_close(handle, error) }
    }

    private func open() throws(SearchlightError) -> OpaquePointer {
        guard let handle else {
            throw SearchlightError(.indexUnavailable, "The index at \(path) has been closed")
        }
        return handle
    }

    // MARK: Transactions

    /// Runs `body` in one Xapian transaction: all of its writes are committed together, or none.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        let handle = try open()
        try check { error in cx_database_begin(handle, error) }
        let result: T
        do {
            result = try body()
        } catch {
            _ = cx_database_cancel(handle, nil)
            throw error
        }
        try check { error in cx_database_commit(handle, error) }
        return result
    }

    func reopen() throws(SearchlightError) {
        let handle = try open()
        try check { error in cx_database_reopen(handle, error) }
    }

    // MARK: Writes

    /// The outcome of storing one item.
    enum StoreOutcome: Int32 {
        case added = 0
        case replaced = 1
        case expired = 2
    }

    func replace(_ items: [StoredItem], now: Int64) throws(SearchlightError) -> [StoreOutcome] {
        let handle = try open()
        var outcomes = [Int32](repeating: 0, count: items.count)
        var arena = TextArena()
        let ranges = items.map { arena.add($0) }
        let failure = arena.withTexts { texts in
            let cItems = ranges.map { $0.item(in: texts) }
            return cItems.withUnsafeBufferPointer { buffer in
                outcomes.withUnsafeMutableBufferPointer { outcomeBuffer in
                    result { error in
                        cx_database_replace_items(
                            handle, buffer.baseAddress!, buffer.count, now, outcomeBuffer.baseAddress, error)
                    }
                }
            }
        }
        if let failure { throw failure }
        return outcomes.map { StoreOutcome(rawValue: $0) ?? .added }
    }

    enum RemovalOutcome: Int32 {
        case removed = 0
        case notFound = 1
        case refusedPublic = 2
    }

    func delete(identifiers: [String], domain: String, includePublic: Bool) throws(SearchlightError)
        -> [RemovalOutcome]
    {
        let handle = try open()
        var outcomes = [Int32](repeating: 0, count: identifiers.count)
        var arena = TextArena()
        let domainRange = arena.add(domain)
        let idRanges = identifiers.map { arena.add($0) }
        let failure = arena.withTexts { texts in
            let ids = idRanges.map { texts.text($0) }
            return ids.withUnsafeBufferPointer { buffer in
                outcomes.withUnsafeMutableBufferPointer { outcomeBuffer in
                    result { error in
                        cx_database_delete_items(
                            handle, texts.text(domainRange), buffer.baseAddress!, buffer.count, includePublic,
                            outcomeBuffer.baseAddress!, error)
                    }
                }
            }
        }
        if let failure { throw failure }
        return outcomes.map { RemovalOutcome(rawValue: $0) ?? .notFound }
    }

    func deleteDomain(_ domain: String, includePublic: Bool) throws(SearchlightError) -> Int {
        let handle = try open()
        var removed: UInt64 = 0
        try withText(domain) { text throws(SearchlightError) in
            try check { error in cx_database_delete_domain(handle, text, includePublic, &removed, error) }
        }
        return Int(removed)
    }

    func deleteExpired(now: Int64, dryRun: Bool) throws(SearchlightError) -> Int {
        let handle = try open()
        var count: UInt64 = 0
        try check { error in cx_database_delete_expired(handle, now, dryRun, &count, error) }
        return Int(count)
    }

    // MARK: Reads

    func get(domain: String, identifier: String) throws(SearchlightError) -> [UInt8]? {
        let handle = try open()
        var arena = TextArena()
        let domainRange = arena.add(domain)
        let idRange = arena.add(identifier)
        var data: UnsafeMutablePointer<CChar>?
        var length = 0
        var status = CX_OK
        var message: String?
        arena.withTexts { texts in
            var error: UnsafeMutablePointer<CChar>?
            status = cx_database_get(handle, texts.text(domainRange), texts.text(idRange), &data, &length, &error)
            message = error.map { String(cString: $0) }
            cx_string_free(error)
        }
        defer { cx_string_free(data) }
        if status == CX_ERR_NOT_FOUND { return nil }
        if status != CX_OK { throw Self.error(status, message: message ?? "", path: path) }
        return data.map { pointer in
            Array(UnsafeRawBufferPointer(start: pointer, count: length))
        } ?? []
    }

    struct Counts {
        var documents: Int
        var publicCount: Int
        var privateCount: Int
        var expiredCount: Int
    }

    func counts(now: Int64) throws(SearchlightError) -> Counts {
        let handle = try open()
        var stats = cx_stats()
        try check { error in cx_database_stats(handle, now, &stats, error) }
        return Counts(
            documents: Int(stats.documents), publicCount: Int(stats.public_count),
            privateCount: Int(stats.private_count), expiredCount: Int(stats.expired_count))
    }

    func domains() throws(SearchlightError) -> [String: Int] {
        let handle = try open()
        var lines: UnsafeMutablePointer<CChar>?
        var length = 0
        defer { cx_string_free(lines) }
        try check { error in cx_database_domains(handle, &lines, &length, error) }
        guard let lines else { return [:] }
        let text = String(decoding: UnsafeRawBufferPointer(start: lines, count: length), as: UTF8.self)
        var domains: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "\t")
            if parts.count == 2, let count = Int(parts[1]) { domains[String(parts[0])] = count }
        }
        return domains
    }

    struct RawResults {
        var total: Int
        var hits: [(data: [UInt8], percent: Int, snippet: String)]
        var suggestion: String?
    }

    func search(
        query: String, domain: String?, scope: cx_scope, now: Int64, offset: Int, limit: Int
    ) throws(SearchlightError) -> RawResults {
        let handle = try open()
        var arena = TextArena()
        let queryRange = arena.add(query)
        let domainRange = arena.add(domain ?? "")
        var results: OpaquePointer?
        var status = CX_OK
        var message: String?
        arena.withTexts { texts in
            var request = cx_search_request(
                query: texts.text(queryRange), domain: texts.text(domainRange), all_domains: domain == nil,
                scope: scope, now_ms: now, offset: UInt32(clamping: offset), limit: UInt32(clamping: limit))
            var error: UnsafeMutablePointer<CChar>?
            status = cx_search(handle, &request, &results, &error)
            message = error.map { String(cString: $0) }
            cx_string_free(error)
        }
        defer { cx_results_free(results) }
        guard status == CX_OK, let results else {
            throw Self.error(status, message: message ?? "", path: path, query: query)
        }
        var raw = RawResults(total: Int(cx_results_total(results)), hits: [], suggestion: nil)
        for index in 0..<cx_results_count(results) {
            raw.hits.append(
                (
                    data: cx_results_data(results, index).bytes,
                    percent: Int(cx_results_percent(results, index)),
                    snippet: cx_results_snippet(results, index).string
                ))
        }
        let suggestion = cx_results_suggestion(results).string
        raw.suggestion = suggestion.isEmpty ? nil : suggestion
        return raw
    }

    /// Calls `body` with each stored item's data and expiration (0 for never), in storage order.
    func forEachDocument(_ body: (_ data: [UInt8], _ expiration: Int64) throws -> Void) throws {
        let handle = try open()
        var cursor: OpaquePointer?
        try check { error in cx_cursor_open(handle, &cursor, error) }
        defer { cx_cursor_free(cursor) }
        while true {
            var data = cx_text()
            var expiration: Int64 = 0
            var done = false
            try check { error in cx_cursor_next(cursor!, &data, &expiration, &done, error) }
            if done { return }
            try body(data.bytes, expiration)
        }
    }

    // MARK: Status mapping

    /// The error of a shim call, or `nil` when it succeeded.
    private func result(_ call: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> cx_status)
        -> SearchlightError?
    {
        do throws(SearchlightError) {
            try check(call)
            return nil
        } catch {
            return error
        }
    }

    private func check(_ call: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> cx_status)
        throws(SearchlightError)
    {
        try Self.check(path: path, call)
    }

    private static func check(
        path: String, _ call: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> cx_status
    ) throws(SearchlightError) {
        var error: UnsafeMutablePointer<CChar>?
        let status = call(&error)
        defer { cx_string_free(error) }
        guard status != CX_OK else { return }
        throw Self.error(status, message: error.map { String(cString: $0) } ?? "", path: path)
    }

    /// Turns a shim status into the error a user reads: what happened, where, and what to do.
    static func error(_ status: cx_status, message: String, path: String, query: String? = nil) -> SearchlightError {
        let cause = message.isEmpty ? nil : message
        let detail = message.isEmpty ? "" : ": \(message)"
        switch status {
        case CX_ERR_LOCKED:
            return SearchlightError(
                .indexLocked,
                "The index at \(path) is locked by another writer; try again when it has finished", cause: cause)
        case CX_ERR_OPENING, CX_ERR_VERSION, CX_ERR_NETWORK:
            return SearchlightError(
                .indexUnavailable,
                "Cannot open the index at \(path)\(detail). Check the path (or --index), or create it by indexing; "
                    + "if it is damaged, move it aside and re-index your files, or index a saved `searchlight export`",
                cause: cause)
        case CX_ERR_CORRUPT:
            return SearchlightError(
                .indexUnavailable,
                "The index at \(path) is damaged\(detail). Recover by moving it aside and re-indexing your files, "
                    + "or by indexing a saved `searchlight export`",
                cause: cause)
        case CX_ERR_QUERY:
            return SearchlightError(
                .invalidQuery, "The query \(quoted(query ?? "")) cannot be parsed\(detail)", cause: cause)
        case CX_ERR_IO, CX_ERR_NO_MEMORY:
            return SearchlightError(
                .writeFailed,
                "Reading or writing the index at \(path) failed\(detail); nothing of this batch was committed "
                    + "(free some disk space and try again)",
                cause: cause)
        case CX_ERR_MODIFIED:
            return SearchlightError(
                .indexUnavailable, "The index at \(path) kept changing while being read; try again", cause: cause)
        default:
            return SearchlightError(.internalError, "Xapian failed on the index at \(path)\(detail)", cause: cause)
        }
    }
}

func quoted(_ text: String) -> String {
    "\"" + text.replacingOccurrences(of: "\"", with: "\\\"") + "\""
}

extension cx_text {
    var bytes: [UInt8] {
        guard let data, length > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: length))
    }

    var string: String { String(decoding: bytes, as: UTF8.self) }
}

/// What the shim needs of an item, as Swift values.
struct StoredItem {
    var domain: String
    var identifier: String
    var title: String
    var description: String
    var schema: String
    var keywords: [String]
    var data: [UInt8]
    var isPublic: Bool
    var expiration: Int64
}

/// Packs many strings into one buffer so that one pointer scope covers all the `cx_text`s of a call.
struct TextArena {
    private var storage: [UInt8] = []

    struct Range {
        var start: Int
        var count: Int
    }

    struct ItemRanges {
        var domain, identifier, title, description, schema, data: Range
        var keywords: [Range]
        var isPublic: Bool
        var expiration: Int64

        func item(in texts: Texts) -> cx_item {
            cx_item(
                domain: texts.text(domain), identifier: texts.text(identifier), title: texts.text(title),
                description: texts.text(description), schema: texts.text(schema), data: texts.text(data),
                keywords: texts.keywordPointer(keywords), keyword_count: keywords.count, is_public: isPublic,
                expiration_ms: expiration)
        }
    }

    mutating func add(_ string: String) -> Range { add(bytes: Array(string.utf8)) }

    mutating func add(bytes: [UInt8]) -> Range {
        let range = Range(start: storage.count, count: bytes.count)
        storage.append(contentsOf: bytes)
        return range
    }

    mutating func add(_ item: StoredItem) -> ItemRanges {
        ItemRanges(
            domain: add(item.domain), identifier: add(item.identifier), title: add(item.title),
            description: add(item.description), schema: add(item.schema), data: add(bytes: item.data),
            keywords: item.keywords.map { add($0) }, isPublic: item.isPublic, expiration: item.expiration)
    }

    /// The texts of one call; keyword arrays are allocated here and freed when the call returns.
    final class Texts {
        let base: UnsafePointer<CChar>?
        private var keywordBuffers: [UnsafeMutableBufferPointer<cx_text>] = []

        init(base: UnsafePointer<CChar>?) { self.base = base }
        deinit { keywordBuffers.forEach { $0.deallocate() } }

        func text(_ range: Range) -> cx_text {
            cx_text(data: range.count == 0 ? nil : base.map { $0 + range.start }, length: range.count)
        }

        func keywordPointer(_ ranges: [Range]) -> UnsafePointer<cx_text>? {
            guard !ranges.isEmpty else { return nil }
            let buffer = UnsafeMutableBufferPointer<cx_text>.allocate(capacity: ranges.count)
            for (index, range) in ranges.enumerated() { buffer[index] = text(range) }
            keywordBuffers.append(buffer)
            return UnsafePointer(buffer.baseAddress)
        }
    }

    func withTexts<T, E: Error>(_ body: (Texts) throws(E) -> T) throws(E) -> T {
        let result: Result<T, E> = storage.withUnsafeBytes { raw in
            let texts = Texts(base: raw.baseAddress?.assumingMemoryBound(to: CChar.self))
            do throws(E) {
                return .success(try body(texts))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

func withText<T, E: Error>(_ string: String, _ body: (cx_text) throws(E) -> T) throws(E) -> T {
    var arena = TextArena()
    let range = arena.add(string)
    return try arena.withTexts { texts throws(E) in try body(texts.text(range)) }
}
