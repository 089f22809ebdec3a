internal import CXapian

/// Owns one `cx_bulk`: segment databases written in parallel, then merged into a new generation or
/// written into the current one (see `CXapian.h`).
///
/// Each segment is used by one thread at a time, which is what makes the `@unchecked Sendable`
/// true; ``keep(documents:sequences:)`` may be called from any thread.
final class BulkBuild: @unchecked Sendable {
    private let handle: OpaquePointer
    /// The index the build is for, which errors name.
    let indexPath: String

    /// What the build comes to once resolved.
    struct Plan {
        /// The run's winning occurrences, held by the segments.
        var stored: Int
        /// The current generation's documents the run replaces, expires or overtakes.
        var superseded: Int
        var baseDocuments: Int
        var addedThenUpdated: Int
        var unchangedThenUpdated: Int

        var changesNothing: Bool { stored == 0 && superseded == 0 }
    }

    /// Starts a build of `segments` segments in `folder` over `base`, the current database of the
    /// index at `indexPath` (`nil`: none).
    init(base: String?, folder: String, segments: Int, memoryBudget: Int, indexPath: String) throws(SearchlightError) {
        self.indexPath = indexPath
        var opened: OpaquePointer?
        try XapianDatabase.check(path: indexPath) { error in
            cx_bulk_open(base, folder, UInt32(segments), UInt64(memoryBudget), &opened, error)
        }
        handle = opened!
    }

    deinit { cx_bulk_free(handle) }

    /// Chooses the index's common words from the current generation's words and `items`, the run's
    /// first piece, when it has none and holds fewer than 500 items (`cx_bulk_choose_common_words`):
    /// before any segment stores, so that the same inputs always make the same index.
    func chooseCommonWords(from items: [StoredItem]) throws(SearchlightError) {
        try TextArena.withItems(items) { buffer throws(SearchlightError) in
            try XapianDatabase.check(path: indexPath) { error in
                cx_bulk_choose_common_words(handle, buffer.baseAddress, buffer.count, error)
            }
        }
    }

    /// Stores items in one segment; their sequences are their places in the run.
    func add(_ items: [StoredItem], sequences: [UInt64], segment: Int, now: Int64) throws(SearchlightError)
        -> [XapianDatabase.StoreOutcome]
    {
        guard !items.isEmpty else { return [] }
        var outcomes = [Int32](repeating: 0, count: items.count)
        try TextArena.withItems(items) { buffer throws(SearchlightError) in
            try sequences.withUnsafeBufferPointer { sequenceBuffer throws(SearchlightError) in
                try outcomes.withUnsafeMutableBufferPointer { outcomeBuffer throws(SearchlightError) in
                    try XapianDatabase.check(path: indexPath) { error in
                        cx_bulk_add(
                            handle, UInt32(segment), buffer.baseAddress!, sequenceBuffer.baseAddress!, buffer.count,
                            now,
                            outcomeBuffer.baseAddress, error)
                    }
                }
            }
        }
        return outcomes.map { XapianDatabase.StoreOutcome(rawValue: $0) ?? .added }
    }

    /// Records lines recognized as stored unchanged: the current generation's documents they
    /// name, and their places in the run.
    func keep(documents: [UInt32], sequences: [UInt64]) throws(SearchlightError) {
        guard !documents.isEmpty else { return }
        try documents.withUnsafeBufferPointer { documentBuffer throws(SearchlightError) in
            try sequences.withUnsafeBufferPointer { sequenceBuffer throws(SearchlightError) in
                try XapianDatabase.check(path: indexPath) { error in
                    cx_bulk_keep(
                        handle, documentBuffer.baseAddress!, sequenceBuffer.baseAddress!, documents.count, error)
                }
            }
        }
    }

    /// Ends the adding: the latest occurrence of each identity wins.
    func resolve() throws(SearchlightError) -> Plan {
        var plan = cx_bulk_plan()
        try XapianDatabase.check(path: indexPath) { error in cx_bulk_resolve(handle, &plan, error) }
        return Plan(
            stored: Int(plan.stored), superseded: Int(plan.superseded), baseDocuments: Int(plan.base_documents),
            addedThenUpdated: Int(plan.added_then_updated), unchangedThenUpdated: Int(plan.unchanged_then_updated))
    }

    /// Writes the resolved build into the current generation, inside the caller's transaction.
    func apply(to database: XapianDatabase) throws(SearchlightError) {
        let target = try database.open()
        try database.check { error in cx_bulk_apply(handle, target, error) }
    }

    /// Copies the current generation's documents the build does not supersede into `segment` (its
    /// share of them), for a merge of the segments alone. One thread a segment at a time.
    func copySurvivors(into segment: Int) throws(SearchlightError) {
        try XapianDatabase.check(path: indexPath) { error in cx_bulk_copy_survivors(handle, UInt32(segment), error) }
    }

    /// Writes the resolved build as a new database in `destination`: the segments and the current
    /// generation, or, once ``copySurvivors(into:)`` ran for every segment, the segments alone.
    /// `keepingIDs`: every document keeps its id, the items' being those they were added at
    /// (``StoredItem/documentID``), as a topology's shard needs.
    func merge(to destination: String, survivorsCopied: Bool, keepingIDs: Bool = false) throws(SearchlightError) {
        try XapianDatabase.check(path: indexPath) { error in
            cx_bulk_merge(handle, destination, survivorsCopied, keepingIDs, error)
        }
    }
}
