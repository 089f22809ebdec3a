import FoundationEssentials
import Synchronization

/// A Searchlight index: a Xapian database of ``SearchableItem``s, with Core Spotlight's
/// vocabulary.
///
/// Every write method is one transaction: all of it is committed, or none of it (even if the
/// process is killed). Only one process may write an index at a time; a second writer waits up to
/// its lock timeout and then fails with ``SearchlightError/Code/indexLocked``. Readers always see
/// a committed state.
///
/// ```swift
/// let index = try SearchableIndex(path: "/tmp/index", access: .readWrite(lockTimeout: .seconds(10)))
/// var object = BranchUniversalObject(canonicalIdentifier: "article/1")
/// object.title = "Deep linking explained"
/// try index.indexSearchableItems([SearchableItem(object: object, domainIdentifier: "com.example.blog")])
/// let results = try index.search(SearchQuery("deep link", domainIdentifier: "com.example.blog"))
/// try index.close()
/// ```
public final class SearchableIndex: Sendable {
    /// How an index is opened.
    public enum Access: Sendable, Hashable {
        /// Read-only. Any path Xapian opens works, including a stub database file listing several
        /// shards, or a `remote` line naming an `xapian-tcpsrv`.
        case readOnly
        /// Read-write, creating the index (and its parent folders) when missing. Waits up to
        /// `lockTimeout` for another writer to finish.
        case readWrite(lockTimeout: Duration)
    }

    /// The index's path.
    public let path: String
    public let isWritable: Bool
    /// The database reads go through: the index's own, or every shard's at once for a topology.
    let database: Mutex<XapianDatabase>
    /// The shards, when `path` is a topology file (``Topology``).
    let topology: Topology?
    /// A writer's handles on each shard of its topology, in its order; empty otherwise.
    let shardWriters: Mutex<[XapianDatabase]>
    /// What opening for writing rebuilt into the current index format: the index, or the local
    /// shards of its topology, that were in an earlier one (``FormatUpgrade``). Empty otherwise.
    public let formatUpgrades: [FormatUpgrade]

    /// Opens the index at `path`.
    ///
    /// - Throws: ``SearchlightError/Code/indexUnavailable`` (1010) when it cannot be opened or
    ///   created, ``SearchlightError/Code/indexLocked`` when another writer holds it past the
    ///   timeout.
    public init(path: String, access: Access) throws(SearchlightError) {
        self.path = path
        let topology = try Topology.read(path)
        self.topology = topology
        switch access {
        case .readOnly:
            guard FileManager.default.fileExists(atPath: path) else {
                throw SearchlightError(.indexUnavailable, "There is no index at \(path)", failure: .notFound)
            }
            isWritable = false
            shardWriters = Mutex([])
            formatUpgrades = []
            do throws(SearchlightError) {
                database = Mutex(try Self.openReader(path: path, topology: topology))
            } catch {
                throw Self.naming(unreachableShardOf: topology, in: error)
            }
        case .readWrite(let lockTimeout):
            isWritable = true
            guard let topology else {
                shardWriters = Mutex([])
                var writer = try Self.openWriter(path: path, lockTimeout: lockTimeout)
                formatUpgrades = try Self.upgradeIfOlder(path: path, writer: &writer).map { [$0] } ?? []
                database = Mutex(writer)
                return
            }
            // The shards first: they create the folders that the combined reader opens.
            let (writers, upgrades) = try Self.openShardWriters(topology, lockTimeout: lockTimeout)
            shardWriters = Mutex(writers)
            formatUpgrades = upgrades
            do throws(SearchlightError) {
                database = Mutex(try Self.openReader(path: path, topology: topology))
            } catch {
                for writer in writers { try? writer.close() }
                throw Self.naming(unreachableShardOf: topology, in: error)
            }
        }
    }

    /// Opens a writer on every shard of `topology`, concurrently, each waiting up to
    /// `lockTimeout` for another writer: a local folder as any index folder (rebuilt into the
    /// current format when it is in an earlier one), a remote shard through its `xapian-tcpsrv
    /// --writable`, whose own lock makes a second writer wait (refused in an earlier format,
    /// which only its own machine can rebuild).
    private static func openShardWriters(_ topology: Topology, lockTimeout: Duration) throws(SearchlightError)
        -> (writers: [XapianDatabase], upgrades: [FormatUpgrade])
    {
        let deadline = ContinuousClock.now.advanced(by: lockTimeout)
        let opened = ShardWork.outcomes(topology.shards, names: topology.shards.map(\.name)) {
            _, shard throws(SearchlightError) -> (XapianDatabase, FormatUpgrade?) in
            switch shard {
            case .folder(let folder):
                var writer = try openWriter(path: folder, lockTimeout: lockTimeout)
                do throws(SearchlightError) {
                    return (writer, try upgradeIfOlder(path: folder, writer: &writer))
                } catch {
                    try? writer.close()
                    throw error
                }
            case .remote:
                let writer = try openRemoteWriter(shard, lockTimeout: lockTimeout, until: deadline)
                let format = try writer.format()
                guard format == XapianDatabase.currentFormat else {
                    try? writer.close()
                    throw olderFormat(shard: shard.name, of: topology, format: format)
                }
                return (writer, nil)
            }
        }
        let writers = opened.compactMap { try? $0.get().0 }
        for case .failure(let error) in opened {
            for writer in writers { try? writer.close() }
            throw error
        }
        return (writers, opened.compactMap { try? $0.get().1 })
    }

    /// Rebuilds the index folder at `path`, whose writer is `writer`, into the current format when
    /// it is in an earlier one: a new generation, published atomically (``publishGeneration(at:replacing:write:)``),
    /// which `writer` then writes. `nil` when it is current.
    static func upgradeIfOlder(path: String, writer: inout XapianDatabase) throws(SearchlightError) -> FormatUpgrade? {
        let format = try writer.format()
        guard format != XapianDatabase.currentFormat else { return nil }
        guard FileSystem.kind(atPath: path) == .directory else {
            throw SearchlightError(
                .indexUnavailable,
                "The index at \(path) is in index format \(format), and only an index folder can be rebuilt into "
                    + "format \(XapianDatabase.currentFormat): open each of its databases for writing on its own",
                failure: .wrongFormat)
        }
        var items = 0
        let current = writer
        try publishGeneration(at: path, replacing: &writer) { folder throws(SearchlightError) in
            items = try current.upgrade(to: folder)
        }
        return FormatUpgrade(path: path, fromFormat: format, toFormat: XapianDatabase.currentFormat, items: items)
    }

    /// A shard of `topology` that is in an earlier format than this version writes.
    static func olderFormat(shard: String, of topology: Topology, format: String) -> SearchlightError {
        SearchlightError(
            .indexUnavailable,
            "Shard \(shard) of the index at \(topology.path) is in index format \(format), and this version writes "
                + "format \(XapianDatabase.currentFormat): open the shard for writing on its own machine "
                + "(searchlight compact --index ITS-FOLDER) to rebuild it", failure: .wrongFormat)
    }

    /// Opens a writer on a remote shard through its `xapian-tcpsrv --writable`, whose own lock
    /// makes a second writer wait, here until `deadline`.
    private static func openRemoteWriter(
        _ shard: Topology.Shard, lockTimeout: Duration, until deadline: ContinuousClock.Instant
    ) throws(SearchlightError) -> XapianDatabase {
        guard case .remote(let host, let port) = shard else { preconditionFailure("not a remote shard") }
        while true {
            do throws(SearchlightError) {
                return try XapianDatabase(host: host, port: port, writable: true, timeout: remoteTimeout)
            } catch SearchlightError.indexLocked where ContinuousClock.now < deadline {
                OSThread.sleep(for: .milliseconds(50))
            } catch SearchlightError.indexLocked {
                throw locked(shard.name, waited: lockTimeout)
            }
        }
    }

    /// A writer's connections to remote shards that failed: closed, and opened again before its
    /// next write, so that a long-running writer (`serve`) writes again once a shard's server is
    /// back. A shard that still cannot be reached fails that write, naming it.
    private static func reconnect(_ writers: inout [XapianDatabase], _ topology: Topology) throws(SearchlightError) {
        for (index, shard) in topology.shards.enumerated() where writers[index].isClosed {
            writers[index] = try ShardWork.naming(shard.name) { () throws(SearchlightError) in
                try openRemoteWriter(shard, lockTimeout: remoteTimeout, until: .now.advanced(by: remoteTimeout))
            }
        }
    }

    /// How long a remote shard may take to connect or to answer one call.
    static let remoteTimeout = Duration.seconds(10)

    /// Opens one shard of a topology for reading: its folder as any index, or its server.
    static func openShardReader(_ shard: Topology.Shard, timeout: Duration = remoteTimeout)
        throws(SearchlightError) -> XapianDatabase
    {
        switch shard {
        case .folder(let folder): try openReader(path: folder)
        case .remote(let host, let port): try XapianDatabase(host: host, port: port, writable: false, timeout: timeout)
        }
    }

    /// `error`, when a remote part of `topology` could not be reached, naming the first remote
    /// shard that does not answer now: Xapian's message does not say which.
    static func naming(unreachableShardOf topology: Topology?, in error: SearchlightError) -> SearchlightError {
        guard error.failure == .network, let topology else { return error }
        for shard in topology.shards {
            guard case .remote = shard else { continue }
            do throws(SearchlightError) {
                try openShardReader(shard, timeout: .seconds(2)).close()
            } catch {
                var named = error
                named.message =
                    "Cannot reach shard \(shard.name) of the index at \(topology.path): \(error.cause ?? error.message)"
                return named
            }
        }
        return error
    }

    /// Opens the index at `path` for reading; for a topology, noting the layouts of its local
    /// shards, since Xapian's reopening does not read a shard's own stub again: a shard that moves
    /// to a new generation (compacted on its own) or a replica's other copy is opened afresh.
    static func openReader(path: String, topology: Topology?) throws(SearchlightError) -> XapianDatabase {
        let layouts = folderLayouts(topology)
        if let topology { try checkFormats(topology) }
        let database = try openReader(path: path)
        database.shardLayouts = layouts
        return database
    }

    /// Refuses a topology whose shards are in different index formats, naming the first shard
    /// whose format differs from the first shard's: its terms would be searched as another
    /// format's. The shards are asked concurrently.
    private static func checkFormats(_ topology: Topology) throws(SearchlightError) {
        let names = topology.shards.map(\.name)
        let formats = try ShardWork.run(topology.shards, names: names) { _, shard throws(SearchlightError) in
            let reader = try openShardReader(shard)
            defer { try? reader.close() }
            return try reader.format()
        }
        guard let first = formats.first, let other = formats.firstIndex(where: { $0 != first }) else { return }
        throw SearchlightError(
            .indexUnavailable,
            "The shards of the index at \(topology.path) are in different index formats: shard \(names[other]) "
                + "is in format \(formats[other]), shard \(names[0]) in format \(first); open the index for "
                + "writing (searchlight compact --index \(topology.path)) to rebuild the older shards",
            failure: .wrongFormat)
    }

    /// The layouts of a topology's local shards now.
    static func folderLayouts(_ topology: Topology?) -> [IndexLayout] {
        topology?.shards.compactMap { shard in
            if case .folder(let folder) = shard { IndexLayout.read(folder) } else { nil }
        } ?? []
    }

    /// Opens the current generation (or the first layout's database) for reading. A generation
    /// replaced between reading the stub and opening its files is gone: the current one is
    /// opened instead.
    static func openReader(path: String) throws(SearchlightError) -> XapianDatabase {
        var attempts = 0
        while true {
            let layout = IndexLayout.read(path)
            do throws(SearchlightError) {
                return try XapianDatabase(path: layout.databasePath(in: path), writable: false, layout: layout)
            } catch  where attempts < 5 && IndexLayout.read(path) != layout {
                attempts += 1
            }
        }
    }

    /// Opens the writer, waiting for another writer up to `lockTimeout` in the kernel, on the
    /// index folder's lock (``FolderLock``), then takes Xapian's lock on the current generation
    /// (``LockWait``).
    ///
    /// While it holds the folder's lock no other Searchlight writer can publish a generation, so
    /// the one it opens stays current. Xapian's lock is checked all the same: a writer that does
    /// not take the folder's lock (`xapian-compact`, a stub file of the user's) may hold it; a
    /// generation replaced meanwhile by such a writer is let go and the current one opened. Once
    /// it holds both, the writer removes what a killed compaction or build left behind.
    static func openWriter(path: String, lockTimeout: Duration) throws(SearchlightError) -> XapianDatabase {
        let deadline = ContinuousClock.now.advanced(by: lockTimeout)
        if case .replica = IndexLayout.read(path) { throw replicaIsReadOnly(path) }
        let folderLock = try lockFolder(path, until: deadline, lockTimeout: lockTimeout)
        while true {
            let layout = IndexLayout.read(path)
            let writer: XapianDatabase
            do throws(SearchlightError) {
                writer = try LockWait.open(path: layout.databasePath(in: path), layout: layout, until: deadline)
            } catch SearchlightError.indexLocked {
                throw locked(path, waited: lockTimeout)
            } catch  where IndexLayout.read(path) != layout {
                continue
            }
            let current = IndexLayout.read(path)
            guard current == layout || (layout == .none && current == .single) else {
                try? writer.close()
                continue
            }
            IndexLayout.removeStale(at: path, keeping: current.kept)
            writer.layout = current
            writer.folderLock = folderLock
            return writer
        }
    }

    /// A replica is written by `xapian-replicate` alone: a write of Searchlight's would be lost at
    /// the next full copy, or make the primary's next changeset fail to apply.
    static func replicaIsReadOnly(_ path: String) -> SearchlightError {
        SearchlightError(
            .readOnly,
            "The index at \(path) is a replica kept by xapian-replicate, which alone writes it; "
                + "write to its primary instead")
    }

    /// Takes the index folder's writer lock, creating the folder (and its parents) when missing.
    /// A path that is a file, a stub of the user's, has no folder of its own to lock: its writer
    /// relies on Xapian's lock alone.
    private static func lockFolder(_ path: String, until deadline: ContinuousClock.Instant, lockTimeout: Duration)
        throws(SearchlightError) -> FolderLock?
    {
        if let kind = FileSystem.kind(atPath: path), kind != .directory { return nil }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw SearchlightError(
                .indexUnavailable, "Cannot create the folder \(path) for the index: \(FileSystem.describe(error))",
                failure: .notOpenable)
        }
        do throws(SearchlightError) {
            return try FolderLock.acquire(folder: path, until: deadline)
        } catch SearchlightError.indexLocked {
            throw locked(path, waited: lockTimeout)
        }
    }

    private static func locked(_ path: String, waited: Duration) -> SearchlightError {
        SearchlightError(
            .indexLocked, "The index at \(path) is locked by another writer (waited \(waited.secondsText))",
            failure: .locked)
    }

    /// The current time in epoch milliseconds.
    public static func currentTime() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded())
    }

    /// The number of the generation the index's folder names as current: it grows by one with each
    /// bulk build that merges and each compaction. `nil` for an index in the first layout (one
    /// database, never rebuilt), a replica, or a topology.
    public var generation: Int? { topology == nil ? IndexLayout.read(path).generation : nil }

    /// Closes the index. Reports Xapian's failures, which its destructor would swallow.
    public func close() throws(SearchlightError) {
        var failure: SearchlightError?
        shardWriters.withLock { writers in
            for writer in writers {
                do throws(SearchlightError) { try writer.close() } catch { failure = failure ?? error }
            }
        }
        try database.withLock { database throws(SearchlightError) in try database.close() }
        if let failure { throw failure }
    }

    // MARK: - Writing

    /// Runs several writes as one transaction: all of them are committed together, or none.
    ///
    /// ```swift
    /// let (report, removal) = try index.performBatch { batch in
    ///     (try batch.indexSearchableItems(fresh), try batch.deleteSearchableItems(withIdentifiers: stale))
    /// }
    /// ```
    ///
    /// - Throws: the first error of `body` (the transaction is then abandoned), or
    ///   ``SearchlightError/Code/writeFailed`` when the commit fails.
    public func performBatch<T: Sendable>(_ body: (IndexTransaction) throws(SearchlightError) -> T)
        throws(SearchlightError) -> T
    {
        guard isWritable else {
            throw SearchlightError(.invalidArgument, "The index at \(path) was opened read-only")
        }
        if let topology {
            return try shardWriters.withLock { writers throws(SearchlightError) in
                var retried = false
                while true {
                    try Self.reconnect(&writers, topology)
                    var committing = false
                    do throws(SearchlightError) {
                        let current = writers
                        return try Self.shardedTransaction(current, topology, committing: &committing) {
                            () throws(SearchlightError) in
                            try body(IndexTransaction(shards: current, topology: topology))
                        }
                    } catch  where error.failure == .network {
                        // Which connection broke is not said: every remote one is opened afresh.
                        for (writer, shard) in zip(writers, topology.shards) {
                            if case .remote = shard { try? writer.close() }
                        }
                        // A connection its server closed (xapian-tcpsrv closes one idle for 60 s)
                        // fails before anything is committed: the batch runs once more, on new ones.
                        guard !committing, !retried else { throw error }
                        retried = true
                    }
                }
            }
        }
        return try database.withLock { database throws(SearchlightError) in
            do {
                return try database.transaction { try body(IndexTransaction(database: database)) }
            } catch let error as SearchlightError {
                throw error
            } catch {
                throw SearchlightError(.internalError, "\(error)")
            }
        }
    }

    /// Runs `body` in one transaction on each shard, then commits the shards concurrently, each on
    /// its own: a shard has all of the batch's writes to it, or none. When some shard's commit
    /// fails, the others' stand, and the error names the shards that did not commit; the same
    /// batch run again converges, since upserts replace and unchanged items are skipped.
    private static func shardedTransaction<T>(
        _ writers: [XapianDatabase], _ topology: Topology, committing: inout Bool,
        _ body: () throws(SearchlightError) -> T
    ) throws(SearchlightError) -> T {
        var begun: [XapianDatabase] = []
        let result: T
        do throws(SearchlightError) {
            for (writer, shard) in zip(writers, topology.shards) {
                try ShardWork.naming(shard.name) { () throws(SearchlightError) in try writer.begin() }
                begun.append(writer)
            }
            result = try body()
        } catch {
            for writer in begun { writer.cancel() }
            throw error
        }
        committing = true
        let outcomes = ShardWork.outcomes(writers, names: topology.shards.map(\.name)) {
            _, writer throws(SearchlightError) in try writer.commit()
        }
        let failed = outcomes.indices.filter { if case .failure = outcomes[$0] { true } else { false } }
        guard let first = failed.first, case .failure(var error) = outcomes[first] else { return result }
        if failed.count < writers.count {
            let committed = outcomes.indices.filter { !failed.contains($0) }.map { topology.shards[$0].name }
            error.message +=
                "; nothing of this batch was committed there, and the other shards (\(committed.joined(separator: ", "))) "
                + "committed theirs: run the same command again to complete it"
        }
        throw error
    }

    /// Indexes items (Core Spotlight's `indexSearchableItems`): one transaction, upserting by
    /// (domain, identifier). An item already expired at `now` is not stored and removes any stored
    /// version.
    @discardableResult
    public func indexSearchableItems(_ items: [SearchableItem], now: Int64 = currentTime()) throws(SearchlightError)
        -> IndexingReport
    {
        try performBatch { batch throws(SearchlightError) in try batch.indexSearchableItems(items, now: now) }
    }

    /// Indexes decoded input files in one transaction: each file's accepted items are all stored
    /// or none; rejected items and files are reported, never stored, and never stop the others.
    /// With `strict`, any rejection rejects everything: nothing is written.
    public func index(
        _ inputs: [DecodedInput], options: IndexingOptions, strict: Bool = false, now: Int64 = currentTime()
    ) throws(SearchlightError) -> IndexingReport {
        try performBatch { batch throws(SearchlightError) in
            try batch.index(inputs, options: options, strict: strict, now: now)
        }
    }

    /// Removes items of a domain by identifier (Core Spotlight's
    /// `deleteSearchableItems(withIdentifiers:)`). Public items are refused with code 1014 unless
    /// `includePublic` is set; unknown identifiers are reported, not errors (removal is idempotent).
    ///
    /// - Throws: ``SearchlightError/Code/removalWithoutIdentifier`` (1013) when `identifiers` is empty.
    public func deleteSearchableItems(
        withIdentifiers identifiers: [String], domainIdentifier: String = SearchableItem.defaultDomain,
        includePublic: Bool = false
    ) throws(SearchlightError) -> RemovalReport {
        try performBatch { batch throws(SearchlightError) in
            try batch.deleteSearchableItems(
                withIdentifiers: identifiers, domainIdentifier: domainIdentifier, includePublic: includePublic)
        }
    }

    /// Records one view of each identified item (the Branch SDK's view events): the domain's own
    /// item, or a public item of any domain, that has not expired at `now`. Views are a ranking
    /// hint (README, *Ranking*); they survive re-indexing the item and go with it when it is
    /// removed. Unknown or invisible items are reported, not created. A Branch link names the item
    /// its data names.
    ///
    /// - Throws: ``SearchlightError/Code/invalidArgument`` when `identifiers` is empty.
    public func recordViews(
        withIdentifiers identifiers: [String], domainIdentifier: String = SearchableItem.defaultDomain,
        now: Int64 = currentTime()
    ) throws(SearchlightError) -> ViewReport {
        try performBatch { batch throws(SearchlightError) in
            try batch.recordViews(withIdentifiers: identifiers, domainIdentifier: domainIdentifier, now: now)
        }
    }

    /// Removes every private item of the domains, and of the domains below them on dot-separated
    /// components (Core Spotlight's `deleteSearchableItems(withDomainIdentifiers:)`): `com.example`
    /// covers `com.example.shop`. Public items stay unless `includePublic` is set.
    ///
    /// - Returns: the number of items removed.
    @discardableResult
    public func deleteSearchableItems(withDomainIdentifiers domains: [String], includePublic: Bool = false)
        throws(SearchlightError) -> Int
    {
        try performBatch { batch throws(SearchlightError) in
            try batch.deleteSearchableItems(withDomainIdentifiers: domains, includePublic: includePublic)
        }
    }

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

    /// Runs a read at the latest committed revision. A reader follows a new generation by
    /// opening it from the path; if the generation it had open goes away under it, it opens the
    /// current one and reads again.
    func read<T: Sendable>(_ body: (XapianDatabase) throws(SearchlightError) -> T) throws(SearchlightError)
        -> T
    {
        do throws(SearchlightError) {
            return try database.withLock { database throws(SearchlightError) in
                guard !database.isWritable else { return try body(database) }
                do throws(SearchlightError) {
                    try refresh(&database)
                    return try body(database)
                } catch  where isSuperseded(database) {
                    try refresh(&database)
                    return try body(database)
                } catch  where error.failure == .network && topology != nil {
                    // A shard's connection is gone for good; its server may be back (restarted).
                    database = try Self.openReader(path: path, topology: topology)
                    return try body(database)
                }
            }
        } catch {
            throw Self.naming(unreachableShardOf: topology, in: error)
        }
    }

    /// Brings a reader to the latest commit: the current generation, opened from the path when the
    /// stub has changed, else its own database reopened.
    func refresh(_ database: inout XapianDatabase) throws(SearchlightError) {
        guard !database.isWritable else { return }
        if isSuperseded(database) {
            database = try Self.openReader(path: path, topology: topology)
        } else {
            try database.reopen()
        }
    }

    /// Whether a reader's database is no longer the current one: the index's stub names another
    /// generation, or, for a topology, one of its local shards' does.
    private func isSuperseded(_ database: XapianDatabase) -> Bool {
        IndexLayout.read(path) != database.layout || Self.folderLayouts(topology) != database.shardLayouts
    }

    // MARK: - Compaction

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
    /// locks it, publishes it atomically, and makes it the writer's database; the old generation
    /// and anything else stale is then removed. Called with the writer's lock held.
    ///
    /// A failure (the disk is full, say) leaves the old generation current and removes the
    /// partial one; a process killed at any moment leaves the old generation or the new one.
    func publishGeneration(
        replacing database: inout XapianDatabase, write: (String) throws(SearchlightError) -> Void
    ) throws(SearchlightError) {
        try Self.publishGeneration(at: path, replacing: &database, write: write)
    }

    /// ``publishGeneration(replacing:write:)`` for the index folder at `path`.
    static func publishGeneration(
        at path: String, replacing database: inout XapianDatabase, write: (String) throws(SearchlightError) -> Void
    ) throws(SearchlightError) {
        let current = database.layout
        let next = (current.generation ?? 0) + 1
        let folder = path + "/" + IndexLayout.folderName(next)
        try? FileManager.default.removeItem(atPath: folder)
        let writer: XapianDatabase
        do throws(SearchlightError) {
            try write(folder)
            IndexLayout.syncFiles(in: folder)
            // Lock the new generation before anyone can find it, so no other writer gets in
            // between this one's two locks. Its lock may be busy for a moment: a process this one
            // spawned while the generation was open for the merge holds a copy of the lock until
            // it runs its program.
            writer = try LockWait.open(
                path: folder, layout: .generation(next), until: .now.advanced(by: .seconds(10)))
            do throws(SearchlightError) {
                try IndexLayout.publish(next, at: path, from: current)
            } catch {
                try? writer.close()
                throw error
            }
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
        writer.folderLock = database.folderLock
        database.folderLock = nil
        try? database.close()
        database = writer
        IndexLayout.removeStale(at: path, keeping: [next])
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }

    /// The duration in seconds, as a `TimeInterval` (0 when negative).
    var timeInterval: Double { max(0, seconds) }

    var secondsText: String { seconds == seconds.rounded() ? "\(Int(seconds))s" : "\(seconds)s" }
}
