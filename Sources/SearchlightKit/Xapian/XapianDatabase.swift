internal import CXapian
import Glibc

/// Owns one `cx_database` handle: the only Swift type that calls the shim's database functions.
/// The files of the Kit's `Xapian/` folder, this type's and what marshals for it, are the only
/// ones that import the shim (`scripts/test` checks it).
///
/// Not thread-safe, like Xapian's own objects: ``SearchableIndex`` only touches it inside its mutex,
/// which is what makes the `@unchecked Sendable` true.
final class XapianDatabase: @unchecked Sendable {
    private var handle: OpaquePointer?
    let path: String
    let isWritable: Bool
    /// The layout of the index folder when this database was opened from it.
    var layout: IndexLayout
    /// For a topology's view: the layouts of its local shards when it was opened.
    var shardLayouts: [IndexLayout] = []
    /// For a topology's view: the batch every one of its shards holds (``BatchJournal``).
    var batch: UInt64 = 0
    /// A writer's lock on its index folder, let go when the writer closes (or handed on to the
    /// writer of the next generation).
    var folderLock: FolderLock?
    /// A shard writer's vectors copy (``keepMeaningCopy(at:)``), handed on to the writer of the
    /// next generation.
    private(set) var meaningCopy: String?

    /// Opens the database, or throws ``SearchlightError`` mapped from the shim's status.
    init(path: String, writable: Bool, layout: IndexLayout = .single) throws(SearchlightError) {
        self.path = path
        self.isWritable = writable
        self.layout = layout
        var opened: OpaquePointer?
        let mode = writable ? CX_OPEN_WRITE : CX_OPEN_READ
        try Self.check(path: path) { error in cx_database_open(path, mode, &opened, error) }
        handle = opened
    }

    /// Opens the database `xapian-tcpsrv` serves at `host` and `port`, read-only, waiting up to
    /// `timeout` to connect and for each answer.
    init(host: String, port: UInt16, timeout: Duration) throws(SearchlightError) {
        path = Topology.Shard.remote(host: host, port: port).name
        isWritable = false
        layout = .single
        var opened: OpaquePointer?
        let milliseconds = UInt32(clamping: Int(timeout.seconds * 1000))
        try Self.check(path: path) { error in cx_database_open_remote(host, port, milliseconds, &opened, error) }
        handle = opened
    }

    /// Opens a read-only view of `topology`'s shards searched as one database, each shard also
    /// readable on its own at the same revision (``shardMetadata(_:)``). The view moves only when
    /// reopened; a commit that overtakes it fails a read with ``IndexFailure/modified``.
    init(view topology: Topology, timeout: Duration) throws(SearchlightError) {
        path = topology.path
        isWritable = false
        layout = .single
        let folders = topology.shards.map { shard -> String? in
            if case .folder(let folder) = shard { IndexLayout.read(folder).databasePath(in: folder) } else { nil }
        }
        let hosts = topology.shards.map { shard -> String? in
            if case .remote(let host, _) = shard { host } else { nil }
        }
        let copies = topology.shards.indices.map { topology.meaningCopies.isEmpty ? nil : topology.meaningCopies[$0] }
        var opened: OpaquePointer?
        let milliseconds = UInt32(clamping: Int(timeout.seconds * 1000))
        try Self.check(path: path) { error in
            withCStrings(folders) { folders in
                withCStrings(hosts) { hosts in
                    withCStrings(copies) { copies in
                        let shards = topology.shards.indices.map { index in
                            var port: UInt16 = 0
                            if case .remote(_, let given) = topology.shards[index] { port = given }
                            return cx_shard(
                                folder: folders[index], host: hosts[index], port: port, meaning_copy: copies[index])
                        }
                        return cx_database_open_shards(path, shards, shards.count, milliseconds, &opened, error)
                    }
                }
            }
        }
        handle = opened
    }

    /// Makes a topology's shard writer keep a copy of its vectors of meaning in the database at
    /// `path` (created once the shard has a vector), brought up to date now and after each commit:
    /// what a search service that reads the shard through a shard server ranks by meaning over
    /// (docs/operations.md, *Shards*).
    func keepMeaningCopy(at path: String) throws(SearchlightError) {
        let handle = try open()
        try check { error in cx_database_keep_meaning_copy(handle, path, error) }
        meaningCopy = path
    }

    /// The number of the batch each shard of a view holds, in the topology's order, then each of its
    /// vectors copies (``Topology/batchHolders``).
    func shardBatches() throws(SearchlightError) -> [UInt64] {
        try shardMetadata(BatchJournal.batchKey).map { UInt64($0) ?? 0 }
    }

    /// Each shard's record under `key`, for a view of shards.
    func shardMetadata(_ key: String) throws(SearchlightError) -> [String] {
        let handle = try open()
        var values: UnsafeMutablePointer<CChar>?
        try withText(key) { key throws(SearchlightError) in
            try check { error in cx_database_shard_metadata(handle, key, &values, error) }
        }
        defer { cx_string_free(values) }
        let text = values.map { String(cString: $0) } ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    deinit {
        // Only a fallback: `close()` reports failures, Xapian's destructor swallows them.
        cx_database_free(handle)
    }

    /// Whether ``close()`` was called.
    var isClosed: Bool { handle == nil }

    /// Closes the handle; a transaction still open is abandoned.
    func close() throws(SearchlightError) {
        guard let handle else { return }
        defer {
            cx_database_free(handle)
            self.handle = nil
            folderLock?.release()
            folderLock = nil
        }
        try check { error in cx_database_close(handle, error) }
    }

    func open() throws(SearchlightError) -> OpaquePointer {
        guard let handle else {
            throw SearchlightError(.indexUnavailable, "The index at \(path) has been closed", failure: .closed)
        }
        return handle
    }

    // MARK: Transactions

    /// Runs `body` in one Xapian transaction: all of its writes are committed together, or none.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try begin()
        let result: T
        do {
            result = try body()
        } catch {
            cancel()
            throw error
        }
        try commit()
        return result
    }

    func begin() throws(SearchlightError) {
        let handle = try open()
        try check { error in cx_database_begin(handle, error) }
    }

    func commit() throws(SearchlightError) {
        let handle = try open()
        try check { error in cx_database_commit(handle, error) }
    }

    /// Abandons the transaction that is open, if any.
    func cancel() {
        guard let handle else { return }
        _ = cx_database_cancel(handle, nil)
    }

    /// Writes a compacted copy of the last commit into the new folder `destination`.
    func compact(to destination: String) throws(SearchlightError) {
        let handle = try open()
        try check { error in cx_database_compact(handle, destination, error) }
    }

    /// The index format this version writes.
    static let currentFormat = String(cString: cx_current_format())

    /// The index format the database records (``currentFormat`` when it is empty).
    func format() throws(SearchlightError) -> String {
        let handle = try open()
        var text: UnsafeMutablePointer<CChar>?
        try check { error in cx_database_format(handle, &text, error) }
        defer { cx_string_free(text) }
        return text.map { String(cString: $0) } ?? ""
    }

    func reopen() throws(SearchlightError) {
        let handle = try open()
        try check { error in cx_database_reopen(handle, error) }
    }

    // MARK: Reads

    /// The stored data of the item (domain, identifier) and the path of the file it was read from,
    /// or `nil` when there is none.
    func get(domain: String, identifier: String) throws(SearchlightError) -> (data: [UInt8], source: String?)? {
        let handle = try open()
        var arena = TextArena()
        let domainRange = arena.add(domain)
        let idRange = arena.add(identifier)
        var data: UnsafeMutablePointer<CChar>?
        var length = 0
        var source: UnsafeMutablePointer<CChar>?
        defer {
            cx_string_free(data)
            cx_string_free(source)
        }
        var status = CX_OK
        var message = ""
        arena.withTexts { texts in
            var error: UnsafeMutablePointer<CChar>?
            status = cx_database_get(
                handle, texts.text(domainRange), texts.text(idRange), &data, &length, &source, &error)
            message = error.map { String(cString: $0) } ?? ""
            cx_string_free(error)
        }
        if status == CX_ERR_NOT_FOUND { return nil }
        if status != CX_OK { throw SearchlightError(status: status, message: message, path: path) }
        return (
            data.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? [],
            source.map { String(cString: $0) }
        )
    }

    struct Counts {
        var documents: Int
        var publicCount: Int
        var privateCount: Int
        var expiredCount: Int

        init(_ stats: cx_stats) {
            documents = Int(stats.documents)
            publicCount = Int(stats.public_count)
            privateCount = Int(stats.private_count)
            expiredCount = Int(stats.expired_count)
        }
    }

    func counts(now: Int64) throws(SearchlightError) -> Counts {
        let handle = try open()
        var stats = cx_stats()
        try check { error in cx_database_stats(handle, now, &stats, error) }
        return Counts(stats)
    }

    /// One domain's counts: stored, live public and private, and expired.
    func counts(domain: String, now: Int64) throws(SearchlightError) -> Counts {
        let handle = try open()
        var stats = cx_stats()
        try withText(domain) { text throws(SearchlightError) in
            try check { error in cx_database_domain_stats(handle, text, now, &stats, error) }
        }
        return Counts(stats)
    }

    /// Every domain with its number of stored items.
    func domains() throws(SearchlightError) -> [String: Int] {
        let handle = try open()
        return Dictionary(uniqueKeysWithValues: try names { error, list in cx_database_domains(handle, &list, error) })
    }

    /// The files items were read from that begin with `prefix`, with their numbers of items, in
    /// byte order.
    func sources(prefix: String) throws(SearchlightError) -> [(name: String, items: Int)] {
        let handle = try open()
        return try withText(prefix) { text throws(SearchlightError) in
            try names { error, list in cx_database_sources(handle, text, &list, error) }
        }
    }

    /// The entries of the name list a shim call gives.
    private func names(
        _ call: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, inout OpaquePointer?) -> cx_status
    ) throws(SearchlightError) -> [(name: String, items: Int)] {
        var list: OpaquePointer?
        defer { cx_name_list_free(list) }
        try check { error in call(error, &list) }
        guard let list else { return [] }
        return (0..<cx_name_list_count(list)).map { index in
            let entry = cx_name_list_entry(list, index)
            return (entry.name.string, Int(entry.documents))
        }
    }

    /// One stored item as a cursor reads it.
    struct StoredDocument {
        var data: [UInt8]
        /// Its expiration in epoch ms, 0 for never.
        var expiration: Int64
        var views: Int64
        /// The file it was read from.
        var source: String?
        /// Its storage position: it stays the item's when the item is replaced.
        var position: UInt32
        /// Its content digest: what storing its vector of meaning checks (``setMeaning(_:)``).
        var digest: UInt64
    }

    /// Calls `body` with each stored item's data, expiration (0 for never) and recorded views, in
    /// storage order.
    func forEachDocument(
        _ body: (_ data: [UInt8], _ expiration: Int64, _ views: Int64, _ source: String?) throws -> Void
    ) throws {
        try forEachDocument(from: 1) { document in
            try body(document.data, document.expiration, document.views, document.source)
            return true
        }
    }

    /// Calls `body` with each stored item from the one at storage position `first` on (only those
    /// without a vector of meaning, when `withoutMeaning`), until it returns false. A position
    /// stays an item's when the item is replaced, so that a later call can go on from where one
    /// stopped, after writes.
    func forEachDocument(
        from first: UInt32, withoutMeaning: Bool = false, _ body: (StoredDocument) throws -> Bool
    ) throws {
        let handle = try open()
        var cursor: OpaquePointer?
        try check { error in cx_cursor_open(handle, first, withoutMeaning, &cursor, error) }
        defer { cx_cursor_free(cursor) }
        while true {
            var data = cx_text()
            var expiration: Int64 = 0
            var views: Int64 = 0
            var source = cx_text()
            var done = false
            try check { error in cx_cursor_next(cursor!, &data, &expiration, &views, &source, &done, error) }
            if done { return }
            let document = StoredDocument(
                data: data.bytes, expiration: expiration, views: views,
                source: source.length == 0 ? nil : source.string, position: cx_cursor_position(cursor),
                digest: cx_cursor_digest(cursor))
            guard try body(document) else { return }
        }
    }

    // MARK: Statuses

    func check(_ call: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> cx_status)
        throws(SearchlightError)
    {
        try Self.check(path: path, call)
    }

    /// Calls the shim and throws its failure as a ``SearchlightError`` naming `path`.
    static func check(
        path: String, _ call: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> cx_status
    ) throws(SearchlightError) {
        var error: UnsafeMutablePointer<CChar>?
        let status = call(&error)
        defer { cx_string_free(error) }
        guard status != CX_OK else { return }
        throw SearchlightError(status: status, message: error.map { String(cString: $0) } ?? "", path: path)
    }
}

extension SearchQuery.Scope {
    var cScope: cx_scope {
        switch self {
        case .all: CX_SCOPE_ALL
        case .public: CX_SCOPE_PUBLIC
        case .private: CX_SCOPE_PRIVATE
        }
    }
}

/// Runs `body` with C copies of `strings` (NULL for nil), valid during the call.
private func withCStrings<T>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> T) -> T {
    let copies = strings.map { $0.map { strdup($0) } ?? nil }
    defer { for copy in copies { free(copy) } }
    return body(copies.map { $0.map { UnsafePointer($0) } })
}
