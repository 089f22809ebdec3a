import FoundationEssentials
import Synchronization

// Opening an index: a folder, a replica, a topology of local and remote shards; the writer's
// locks and the format checks.

extension SearchableIndex {
    /// Opens a writer on every local shard of `topology`, concurrently, each waiting up to
    /// `lockTimeout` for another writer, as any index folder (rebuilt into the current format when
    /// it is in an earlier one); then completes a batch that a journal holds
    /// (``completeJournaledBatch(_:_:)``).
    ///
    /// - Throws: ``SearchlightError/Code/readOnly`` for a topology with a remote shard: a topology
    ///   is written on the writer's machine, as local folders that shard machines follow with
    ///   `xapian-replicate`.
    static func openShardWriters(_ topology: Topology, lockTimeout: Duration) throws(SearchlightError)
        -> (writers: [XapianDatabase], upgrades: [FormatUpgrade])
    {
        if let remote = topology.shards.first(where: { if case .remote = $0 { true } else { false } }) {
            throw SearchlightError(
                .readOnly,
                "The index at \(topology.path) has a remote shard (\(remote.name)), which is read-only: write to the "
                    + "writer's topology of local shard folders (auto FOLDER), which the shard machines follow "
                    + "with xapian-replicate (docs/operations.md, Shards)")
        }
        let opened = ParallelWork.outcomes(topology.shards, names: topology.shards.map(\.name)) {
            _, shard throws(SearchlightError) -> (XapianDatabase, FormatUpgrade?) in
            guard case .folder(let folder) = shard else { preconditionFailure("a remote shard") }
            // What is stale goes once a journaled batch is complete: it may publish a generation
            // that looks stale until then.
            var writer = try openWriter(path: folder, lockTimeout: lockTimeout, removingStale: false)
            do throws(SearchlightError) {
                // Rebuilding replaces the writer with the new generation's.
                let upgrade = try upgradeIfOlder(path: folder, writer: &writer)
                return (writer, upgrade)
            } catch {
                try? writer.close()
                throw error
            }
        }
        var writers = opened.compactMap { try? $0.get().0 }
        for case .failure(let error) in opened {
            for writer in writers { try? writer.close() }
            throw error
        }
        do throws(SearchlightError) {
            try completeJournaledBatch(&writers, topology)
        } catch {
            for writer in writers { try? writer.close() }
            throw error
        }
        for case (.folder(let folder), let writer) in zip(topology.shards, writers) {
            IndexLayout.removeStale(at: folder, keeping: writer.layout.kept)
        }
        do throws(SearchlightError) {
            for case (.folder(let folder), let writer) in zip(topology.shards, writers) {
                try writer.keepMeaningCopy(at: Topology.meaningCopy(ofShard: folder))
            }
        } catch {
            for writer in writers { try? writer.close() }
            throw error
        }
        return (writers, opened.compactMap { try? $0.get().1 })
    }

    /// Opens a writer with `open`, trying again every 50 ms until `deadline` while Xapian's lock
    /// is held. Local writers wait for each other in the kernel on the folder's lock
    /// (``FolderLock``), so Xapian's is free at once unless a process that does not take the
    /// folder's lock holds it (`xapian-compact`, a writer of a stub file of the user's), which gives
    /// no way to wait but asking again.
    ///
    /// - Throws: ``SearchlightError/Code/indexLocked`` past the deadline, or whatever opening
    ///   fails with.
    static func retryingWhileLocked(
        until deadline: ContinuousClock.Instant, _ open: () throws(SearchlightError) -> XapianDatabase
    ) throws(SearchlightError) -> XapianDatabase {
        while true {
            do throws(SearchlightError) {
                return try open()
            } catch SearchlightError.indexLocked where ContinuousClock.now < deadline {
                OSThread.sleep(for: .milliseconds(50))
            }
        }
    }

    /// How long a remote shard may take to connect or to answer one call.
    static let remoteTimeout = Duration.seconds(10)
    /// How long a topology's read waits before it opens a view again while its shards disagree or
    /// move on under it (``openView(_:waiting:)``, ``read(_:)``).
    static let movingPause = Duration.milliseconds(20)

    /// Opens one shard of a topology for reading: its folder as any index, or its server.
    static func openShardReader(_ shard: Topology.Shard, timeout: Duration = remoteTimeout)
        throws(SearchlightError) -> XapianDatabase
    {
        switch shard {
        case .folder(let folder): try openReader(path: folder)
        case .remote(let host, let port): try XapianDatabase(host: host, port: port, timeout: timeout)
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

    /// Opens the index at `path` for reading; a topology as a view of its shards that all hold
    /// one batch (``openView(_:waiting:)``), after checking their formats.
    static func openReader(path: String, topology: Topology?) throws(SearchlightError) -> XapianDatabase {
        guard let topology else { return try openReader(path: path) }
        try checkFormats(topology)
        return try openView(topology, waiting: remoteTimeout)
    }

    /// Opens a view of `topology`'s shards (``XapianDatabase/init(view:timeout:)``) whose shards
    /// all hold one batch (``BatchJournal``), trying again every ``movingPause`` for up to `waiting` while
    /// they hold different ones (a batch being committed, a replica catching up), while a shard
    /// cannot be opened (a replica switching to a whole new copy), or while one moves on as it is
    /// asked (a replica taking the next batches). With `waiting` nil, returns the first view
    /// opened, whatever its shards hold, for the caller to check.
    ///
    /// - Throws: ``SearchlightError/Code/indexUnavailable`` naming each shard's batch when they
    ///   still differ after `waiting`, or the last failure to open one.
    static func openView(_ topology: Topology, waiting: Duration?) throws(SearchlightError) -> XapianDatabase {
        guard let waiting else {
            let layouts = folderLayouts(topology)
            let view = try XapianDatabase(view: topology, timeout: remoteTimeout)
            view.shardLayouts = layouts
            return view
        }
        let deadline = ContinuousClock.now.advanced(by: waiting)
        while true {
            let layouts = folderLayouts(topology)
            let view: XapianDatabase
            let batches: [UInt64]
            do throws(SearchlightError) {
                view = try XapianDatabase(view: topology, timeout: remoteTimeout)
                view.shardLayouts = layouts
                do throws(SearchlightError) { batches = try view.shardBatches() } catch {
                    try? view.close()
                    throw error
                }
            } catch  where isMovedOn(error) && ContinuousClock.now < deadline {
                OSThread.sleep(for: movingPause)
                continue
            }
            if Set(batches).count == 1 {
                view.batch = batches[0]
                return view
            }
            try? view.close()
            guard ContinuousClock.now < deadline else {
                let listed = zip(topology.batchHolders, batches).map { "\($0) at batch \($1)" }
                throw SearchlightError(
                    .indexUnavailable,
                    "The shards of the index at \(topology.path) held different batches for \(waiting.secondsText) "
                        + "(\(listed.joined(separator: ", "))): a shard that is behind is a replica whose "
                        + "xapian-replicate is not running or cannot reach the writer", failure: .network)
            }
            OSThread.sleep(for: movingPause)
        }
    }

    /// Refuses a topology whose shards are in different index formats, naming the first shard
    /// whose format differs from the first shard's: its terms would be searched as another
    /// format's. The shards are asked concurrently.
    static func checkFormats(_ topology: Topology) throws(SearchlightError) {
        let names = topology.shards.map(\.name)
        let formats = try ParallelWork.run(topology.shards, names: names) { _, shard throws(SearchlightError) in
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
            failure: .earlierFormat)
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
    /// (``retryingWhileLocked(until:_:)``).
    ///
    /// While it holds the folder's lock no other Searchlight writer can publish a generation, so
    /// the one it opens stays current. Xapian's lock is checked all the same: a writer that does
    /// not take the folder's lock (`xapian-compact`, a stub file of the user's) may hold it; a
    /// generation replaced meanwhile by such a writer is let go and the current one opened. Once
    /// it holds both, the writer removes what a killed compaction or build left behind, unless
    /// `removingStale` is false (a topology's writer does so once a journaled batch is complete).
    static func openWriter(path: String, lockTimeout: Duration, removingStale: Bool = true) throws(SearchlightError)
        -> XapianDatabase
    {
        let deadline = ContinuousClock.now.advanced(by: lockTimeout)
        if case .replica = IndexLayout.read(path) { throw replicaIsReadOnly(path) }
        let folderLock = try lockFolder(path, until: deadline, lockTimeout: lockTimeout)
        while true {
            let layout = IndexLayout.read(path)
            let writer: XapianDatabase
            do throws(SearchlightError) {
                writer = try retryingWhileLocked(until: deadline) { () throws(SearchlightError) in
                    try XapianDatabase(path: layout.databasePath(in: path), writable: true, layout: layout)
                }
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
            if removingStale { IndexLayout.removeStale(at: path, keeping: current.kept) }
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
    static func lockFolder(_ path: String, until deadline: ContinuousClock.Instant, lockTimeout: Duration)
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

    static func locked(_ path: String, waited: Duration) -> SearchlightError {
        SearchlightError(
            .indexLocked, "The index at \(path) is locked by another writer (waited \(waited.secondsText))",
            failure: .locked)
    }
}
