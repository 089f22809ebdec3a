import FoundationEssentials
import Synchronization

// Pruning expired items, compacting, and publishing a new generation.

extension SearchableIndex {
    /// Deletes every expired item, in every domain, in one transaction; with `dryRun`, only counts.
    /// When the items deleted are enough to matter, the index is then compacted
    /// (``compactIfWorthwhile(afterDeleting:)``): deleting rewrites Xapian's posting chunks, and
    /// would otherwise leave the index larger than before.
    @discardableResult
    public func pruneExpiredItems(now: Int64 = currentTime(), dryRun: Bool = false) throws(SearchlightError) -> Int {
        if dryRun {
            return try read { database throws(SearchlightError) in try database.deleteExpired(now: now, dryRun: true) }
        }
        let pruned = try performBatch { batch throws(SearchlightError) in try batch.pruneExpiredItems(now: now) }
        try compactIfWorthwhile(afterDeleting: pruned)
        return pruned
    }

    /// The share of an index's items whose deletion makes compacting worth its time: 1 %.
    public static let compactionThreshold = 0.01

    /// Compacts after `deleted` items were removed, when they were at least
    /// ``compactionThreshold`` of the items there were, and the index is a folder (a stub file
    /// listing shards is left alone).
    ///
    /// - Returns: the compaction's report, or `nil` when it was not worth it.
    @discardableResult
    public func compactIfWorthwhile(afterDeleting deleted: Int) throws(SearchlightError) -> CompactionReport? {
        guard deleted > 0, FileSystem.kind(atPath: path) == .directory else { return nil }
        let remaining = try read { database throws(SearchlightError) in try database.counts(now: 0).documents }
        guard Double(deleted) >= Self.compactionThreshold * Double(remaining + deleted) else { return nil }
        return try compact()
    }

    /// Compacts after `rewritten` of the index's `items` were written anew (given vectors of
    /// meaning), when they were at least ``compactionThreshold`` of them and the index is a folder.
    @discardableResult
    func compactIfWorthwhile(afterRewriting rewritten: Int, of items: Int) throws(SearchlightError)
        -> CompactionReport?
    {
        guard rewritten > 0, Double(rewritten) >= Self.compactionThreshold * Double(items),
            FileSystem.kind(atPath: path) == .directory
        else { return nil }
        return try compact()
    }

    /// Rewrites the index compactly as a new generation, reclaiming the space of deleted and
    /// replaced items, and publishes it atomically: readers see the old generation or the new
    /// one, and are never interrupted (those that have the old one open read on from its open
    /// files; it is deleted at once). An index in the first layout moves to generations here.
    ///
    /// A compaction killed at any moment leaves the old generation current and whole; the next
    /// writer removes the partial one.
    ///
    /// - Throws: ``SearchlightError/Code/writeFailed`` (the disk is full, say; the old generation
    ///   stays current), ``SearchlightError/Code/invalidArgument`` for an index that is not a folder
    ///   (a stub file listing shards) or was opened read-only.
    @discardableResult
    public func compact() throws(SearchlightError) -> CompactionReport {
        guard isWritable else {
            throw SearchlightError(.invalidArgument, "The index at \(path) was opened read-only")
        }
        guard FileSystem.kind(atPath: path) == .directory else {
            throw SearchlightError(.invalidArgument, "Only an index folder can be compacted, not \(path)")
        }
        let before = IndexLayout.size(at: path)
        try database.withLock { database throws(SearchlightError) in
            let current = database
            try publishGeneration(replacing: &database) { folder throws(SearchlightError) in
                try current.compact(to: folder)
            }
        }
        return CompactionReport(bytesBefore: before, bytesAfter: IndexLayout.size(at: path))
    }

    /// Writes the next generation with `write` (into a folder that does not exist yet), syncs it,
    /// locks it, commits to it what `prepare` writes (a batch's client state), publishes it
    /// atomically, and makes it the writer's database; the old generation
    /// and anything else stale is then removed. Called with the writer's lock held.
    ///
    /// A failure (the disk is full, say) leaves the old generation current and removes the
    /// partial one; a process killed at any moment leaves the old generation or the new one.
    func publishGeneration(
        replacing database: inout XapianDatabase, write: (String) throws(SearchlightError) -> Void,
        prepare: (XapianDatabase) throws(SearchlightError) -> Void = { _ in }
    ) throws(SearchlightError) {
        try Self.publishGeneration(at: path, replacing: &database, write: write, prepare: prepare)
    }

    /// ``publishGeneration(replacing:write:prepare:)`` for the index folder at `path`.
    static func publishGeneration(
        at path: String, replacing database: inout XapianDatabase, write: (String) throws(SearchlightError) -> Void,
        prepare: (XapianDatabase) throws(SearchlightError) -> Void = { _ in }
    ) throws(SearchlightError) {
        let next = (database.layout.generation ?? 0) + 1
        let writer = try buildGeneration(next, at: path, write: write)
        do throws(SearchlightError) {
            try prepare(writer)
            try publish(writer, next, at: path, replacing: &database)
        } catch {
            try? writer.close()
            try? FileManager.default.removeItem(atPath: path + "/" + IndexLayout.folderName(next))
            throw error
        }
    }

    /// Writes generation `generation` of the index folder at `path` with `write` (into a folder
    /// that does not exist yet), syncs it, and returns its writer, unpublished. A failure removes
    /// the partial generation.
    static func buildGeneration(
        _ generation: Int, at path: String, write: (String) throws(SearchlightError) -> Void
    ) throws(SearchlightError) -> XapianDatabase {
        let folder = path + "/" + IndexLayout.folderName(generation)
        try? FileManager.default.removeItem(atPath: folder)
        do throws(SearchlightError) {
            try write(folder)
            IndexLayout.syncFiles(in: folder)
            return try lockGeneration(generation, at: path)
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
    }

    /// The writer of generation `generation` of the index folder at `path`, written but not yet
    /// published: locked before anyone can find it, so no other writer gets in between this
    /// one's two locks. Its lock may be busy for a moment: a process spawned while the generation
    /// was open for its merge holds a copy of the lock until it runs its program.
    static func lockGeneration(_ generation: Int, at path: String) throws(SearchlightError) -> XapianDatabase {
        try retryingWhileLocked(until: .now.advanced(by: .seconds(10))) { () throws(SearchlightError) in
            try XapianDatabase(
                path: path + "/" + IndexLayout.folderName(generation), writable: true, layout: .generation(generation))
        }
    }

    /// Makes `built`, the writer of a generation written whole and synced, the current one of the
    /// index folder at `path` and the writer in place of `writer`, which is closed; then removes
    /// what is stale. A failure to publish leaves `writer` current and `built` as it was.
    static func publish(
        _ built: XapianDatabase, _ generation: Int, at path: String, replacing writer: inout XapianDatabase
    ) throws(SearchlightError) {
        try IndexLayout.publish(generation, at: path, from: writer.layout)
        built.folderLock = writer.folderLock
        writer.folderLock = nil
        let copy = writer.meaningCopy
        try? writer.close()
        writer = built
        // The copy compares the new generation's items with those it holds, and writes the changes.
        if let copy { try built.keepMeaningCopy(at: copy) }
        IndexLayout.removeStale(at: path, keeping: [generation])
    }
}
