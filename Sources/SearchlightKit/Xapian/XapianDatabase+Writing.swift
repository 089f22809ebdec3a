internal import CXapian

/// Writes through the one handle: items stored, removed and viewed.
extension XapianDatabase {
    /// The outcome of storing one item.
    enum StoreOutcome: Int32 {
        case added = 0
        case replaced = 1
        case expired = 2
        case unchanged = 3
        /// Unchanged, but read from another file than before: stored again for its source.
        case moved = 4
    }

    /// Stores `items`, replacing any item of the same identity, and gives each one's outcome.
    /// Items stored unchanged are left alone. A batch of ``pipelineStep`` × 2 items or more has
    /// its documents built on a second thread, a step ahead of this one storing them, when the
    /// budget ``CoreBudget/pipelinesWrites``.
    func replace(_ items: [StoredItem], now: Int64, budget: CoreBudget = .machine) throws(SearchlightError)
        -> [StoreOutcome]
    {
        let handle = try open()
        guard !items.isEmpty else { return [] }
        var outcomes = [StoreOutcome](repeating: .unchanged, count: items.count)
        try TextArena.withItems(items) { all throws(SearchlightError) in
            var unchanged = [UInt8](repeating: 0, count: all.count)
            try check { error in cx_database_find_unchanged(handle, all.baseAddress!, all.count, now, &unchanged, error)
            }
            let changed = all.indices.filter { unchanged[$0] != 1 }
            let stored = try changed.map { all[$0] }.withUnsafeBufferPointer { buffer throws(SearchlightError) in
                try store(
                    SharedItems(buffer), on: handle, now: now,
                    pipelined: budget.pipelinesWrites && buffer.count >= 2 * Self.pipelineStep)
            }
            for (position, index) in changed.enumerated() {
                outcomes[index] = unchanged[index] == 2 && stored[position] == .replaced ? .moved : stored[position]
            }
        }
        return outcomes
    }

    /// The document id of each item's stored version (by its domain and identifier), 0 for none,
    /// and the last document id the database has used.
    func documents(of items: [StoredItem]) throws(SearchlightError) -> (ids: [UInt32], last: UInt32) {
        let handle = try open()
        var ids = [UInt32](repeating: 0, count: items.count)
        var last: UInt32 = 0
        guard !items.isEmpty else {
            var none = cx_item()
            try check { error in cx_database_find_documents(handle, &none, 0, &ids, &last, error) }
            return (ids, last)
        }
        try TextArena.withItems(items) { all throws(SearchlightError) in
            try check { error in cx_database_find_documents(handle, all.baseAddress!, all.count, &ids, &last, error) }
        }
        return (ids, last)
    }

    /// Items whose documents one step of a pipelined write builds.
    static let pipelineStep = 256

    /// Builds and stores the documents of `items`: all at once on this thread, or, `pipelined`, a
    /// step at a time on a builder thread while this one stores the step before.
    private func store(_ items: SharedItems, on handle: OpaquePointer, now: Int64, pipelined: Bool)
        throws(SearchlightError) -> [StoreOutcome]
    {
        let step = pipelined ? Self.pipelineStep : max(1, items.buffer.count)
        let steps = stride(from: 0, to: items.buffer.count, by: step).map {
            $0..<min($0 + step, items.buffer.count)
        }
        var outcomes: [StoreOutcome] = []
        outcomes.reserveCapacity(items.buffer.count)
        func storeStep(_ documents: BuiltDocuments) throws(SearchlightError) {
            let built = try documents.result.get()
            var codes = [Int32](repeating: 0, count: documents.range.count)
            try check { error in
                cx_database_store_documents(
                    handle, built.pointer, items.buffer.baseAddress! + documents.range.lowerBound,
                    documents.range.count, now, &codes, error)
            }
            outcomes += codes.map { StoreOutcome(rawValue: $0) ?? .added }
        }
        guard pipelined else {
            for range in steps { try storeStep(BuiltDocuments(items, range, path: path)) }
            return outcomes
        }
        let handoff = WorkQueue<BuiltDocuments>(capacity: 1)
        try OSThread.start(name: "write-builder") { [path] in
            defer { handoff.finish() }
            for range in steps {
                guard handoff.put(BuiltDocuments(items, range, path: path)) else { return }
            }
        }
        defer {
            handoff.cancel()
            handoff.waitUntilFinished()
        }
        while let documents = handoff.take() { try storeStep(documents) }
        return outcomes
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
        let outcomes = try perIdentifier(identifiers, domain: domain) { domain, ids, count, outcomes, error in
            cx_database_delete_items(handle, domain, ids, count, includePublic, outcomes, error)
        }
        return outcomes.map { RemovalOutcome(rawValue: $0) ?? .notFound }
    }

    /// Records one view of each identified item visible from `domain`; true for each recorded.
    func recordViews(identifiers: [String], domain: String, now: Int64) throws(SearchlightError) -> [Bool] {
        let handle = try open()
        let outcomes = try perIdentifier(identifiers, domain: domain) { domain, ids, count, outcomes, error in
            cx_database_record_views(handle, domain, ids, count, now, outcomes, error)
        }
        return outcomes.map { $0 == 1 }
    }

    /// Calls a shim function that takes a domain and identifiers and gives one outcome each.
    private func perIdentifier(
        _ identifiers: [String], domain: String,
        _ call: (
            cx_text, UnsafePointer<cx_text>, Int, UnsafeMutablePointer<Int32>,
            UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
        ) -> cx_status
    ) throws(SearchlightError) -> [Int32] {
        var outcomes = [Int32](repeating: 0, count: identifiers.count)
        guard !identifiers.isEmpty else { return outcomes }
        var arena = TextArena()
        let domainRange = arena.add(domain)
        let idRanges = identifiers.map { arena.add($0) }
        try arena.withTexts { texts throws(SearchlightError) in
            let ids = idRanges.map { texts.text($0) }
            try ids.withUnsafeBufferPointer { buffer throws(SearchlightError) in
                try outcomes.withUnsafeMutableBufferPointer { outcomeBuffer throws(SearchlightError) in
                    try check { error in
                        call(
                            texts.text(domainRange), buffer.baseAddress!, buffer.count, outcomeBuffer.baseAddress!,
                            error)
                    }
                }
            }
        }
        return outcomes
    }

    /// Deletes the items read from the file `source`, but those `keeping` names (domain,
    /// identifier); returns how many were deleted.
    func deleteSource(_ source: String, keeping: [(domain: String, identifier: String)]) throws(SearchlightError)
        -> Int
    {
        let handle = try open()
        var arena = TextArena()
        let sourceRange = arena.add(source)
        let kept = keeping.map { (arena.add($0.domain), arena.add($0.identifier)) }
        var removed: UInt64 = 0
        try arena.withTexts { texts throws(SearchlightError) in
            let domains = kept.map { texts.text($0.0) }
            let identifiers = kept.map { texts.text($0.1) }
            try check { error in
                cx_database_delete_source(
                    handle, texts.text(sourceRange), domains, identifiers, kept.count, &removed, error)
            }
        }
        return Int(removed)
    }

    func deleteDomain(_ domain: String, includePublic: Bool) throws(SearchlightError) -> Int {
        let handle = try open()
        var removed: UInt64 = 0
        try withText(domain) { text throws(SearchlightError) in
            try check { error in cx_database_delete_domain(handle, text, includePublic, &removed, error) }
        }
        return Int(removed)
    }

    /// For each line digest, the stored, unexpired item read from that line: its Xapian document
    /// id, 0 for none.
    func findLines(_ digests: [UInt64], now: Int64) throws(SearchlightError) -> [UInt32] {
        let handle = try open()
        guard !digests.isEmpty else { return [] }
        var known = [UInt32](repeating: 0, count: digests.count)
        try digests.withUnsafeBufferPointer { buffer throws(SearchlightError) in
            try known.withUnsafeMutableBufferPointer { knownBuffer throws(SearchlightError) in
                try check { error in
                    cx_database_find_lines(
                        handle, buffer.baseAddress!, buffer.count, now, knownBuffer.baseAddress!, error)
                }
            }
        }
        return known
    }

    func deleteExpired(now: Int64, dryRun: Bool) throws(SearchlightError) -> Int {
        let handle = try open()
        var count: UInt64 = 0
        try check { error in cx_database_delete_expired(handle, now, dryRun, &count, error) }
        return Int(count)
    }

}

/// The C items of one write, shared with its builder thread, which reads them while the writer
/// waits for it: the `@unchecked Sendable` holds because neither side writes them.
private struct SharedItems: @unchecked Sendable {
    let buffer: UnsafeBufferPointer<cx_item>
    init(_ buffer: UnsafeBufferPointer<cx_item>) { self.buffer = buffer }
}

/// The documents of one step of a write, built by `cx_documents_build` (on the builder thread,
/// when pipelined), freed once the last copy is gone, stored or not.
private struct BuiltDocuments: @unchecked Sendable {
    /// Owns built documents.
    final class Pointer {
        let pointer: OpaquePointer
        init(_ pointer: OpaquePointer) { self.pointer = pointer }
        deinit { cx_documents_free(pointer) }
    }

    let range: Range<Int>
    /// The built documents, or why they could not be built.
    let result: Result<Pointer, SearchlightError>

    init(_ items: SharedItems, _ range: Range<Int>, path: String) {
        self.range = range
        var built: OpaquePointer?
        result = Result { () throws(SearchlightError) in
            try XapianDatabase.check(path: path) { error in
                cx_documents_build(items.buffer.baseAddress! + range.lowerBound, range.count, &built, error)
            }
            return Pointer(built!)
        }
    }
}

extension XapianDatabase {
    /// Adds each item's attributes to the document stored for it (an upgraded index's items;
    /// `cx_database_add_attributes`).
    func addAttributes(_ items: [StoredItem]) throws(SearchlightError) {
        guard !items.isEmpty else { return }
        let handle = try open()
        try TextArena.withItems(items) { buffer throws(SearchlightError) in
            try check { error in cx_database_add_attributes(handle, buffer.baseAddress, buffer.count, error) }
        }
    }
}
