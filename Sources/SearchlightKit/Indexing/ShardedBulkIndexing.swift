import Dispatch
import FoundationEssentials
import Synchronization

extension WriteCosts {
    /// Bytes of input an item takes, for estimating a run's items before reading it: the
    /// benchmarks' 50,000 items are 39 MB of JSON Lines, the sample corpus's 275 items 170 KB.
    static let inputBytesPerItem = 800

    /// Whether a run of `inputBytes` into a topology whose shards hold up to `documents` costs
    /// less written by bulk builders, each shard merged into its next generation, than through one
    /// transaction per shard.
    static func shardsMerge(inputBytes: Int, documents: Int) -> Bool {
        let items = Double(inputBytes / inputBytesPerItem)
        return items / writerRate > (Double(documents) + items) / compactionRate
    }
}

/// The items of one piece of input that go to one shard, with their places in the run.
private struct ShardPiece: Sendable {
    var items: [StoredItem]
    var sequences: [UInt64]
}

/// Where a run's items go in a topology written by bulk builders, and at which document ids.
///
/// Each item is stored at a new id: a stored item's new version on the shard that holds it, at
/// that shard's next id, as a bulk build of one index stores it after the others; a new item at
/// the lowest id any shard gives next, so that new items are numbered in the order they are read,
/// as in one index (``IndexTransaction``). Every id is past its shard's last, so that each shard
/// merges with its build keeping every id.
private struct ShardPlacement {
    /// Each shard's next document id.
    var next: [UInt64]
    /// The shard of each new identity of the run, for its later occurrences.
    var given: [String: Int] = [:]

    init(lastIDs: [UInt32]) {
        next = lastIDs.map { UInt64($0) + 1 }
    }

    /// The shard of each of `items` (-1 for an expired item no shard holds), each given its id.
    /// `found[s][i]` is the id of item `i` on shard `s`, or 0.
    mutating func place(_ items: inout [StoredItem], found: [[UInt32]], now: Int64, index: String)
        throws(SearchlightError) -> [Int]
    {
        let count = UInt64(next.count)
        var shards = [Int](repeating: -1, count: items.count)
        for position in items.indices {
            let item = items[position]
            let identity = item.domain + "\u{1F}" + item.identifier
            let shard: Int
            if let holder = found.firstIndex(where: { $0[position] != 0 }) {
                shard = holder
            } else if let earlier = given[identity] {
                shard = earlier
            } else if item.expiration != 0 && item.expiration <= now {
                continue
            } else {
                // Shard s gives its next id d the topology's id (d - 1) × k + s + 1.
                shard = next.indices.min { (next[$0] - 1) * count + UInt64($0) < (next[$1] - 1) * count + UInt64($1) }!
                given[identity] = shard
            }
            guard next[shard] <= UInt64(UInt32.max) else {
                throw SearchlightError(.indexUnavailable, "The index at \(index) has used every document id")
            }
            items[position].documentID = UInt32(next[shard])
            next[shard] += 1
            shards[position] = shard
        }
        return shards
    }
}

/// What a shard's builder has done.
private struct ShardBuildState: Sendable {
    var report = IndexingReport()
    var failure: SearchlightError?
}

extension Indexer {
    /// Indexes the inputs into a topology's shards with a bulk build each: the reading thread
    /// decodes and places the items, one builder a shard writes its items into a segment (at most
    /// ``jobs`` of them at once), and each
    /// shard the run changes merges with its segment into its next generation, keeping every
    /// document id. The batch then goes whole or not at all, as any batch of a topology
    /// (``BatchJournal``): the generations are built, synced and stamped with the batch's number,
    /// the journal names them, and only then are they published, the other shards committing the
    /// number alone. Holds every shard's writer throughout.
    func indexInBulk(
        _ inputs: [Input], acrossShardsOf index: SearchableIndex, topology: Topology, report: inout IndexingReport,
        progress: (Progress) -> Void
    ) throws(SearchlightError) {
        try index.shardWriters.withLock { writers throws(SearchlightError) in
            let batch = try SearchableIndex.completeJournaledBatch(&writers, topology) + 1
            // The writers' lock is held to the end: the state checked here is the one replaced.
            try clientState?.check(
                in: IndexTransaction(shards: writers, topology: topology, journal: ShardJournal(shards: writers.count)))
            let folders = topology.shards.map { shard -> String in
                guard case .folder(let folder) = shard else { preconditionFailure("a remote shard") }
                return folder
            }
            let names = topology.shards.map(\.name)
            let options = try self.options.with(indexOf: writers[0])
            let lastIDs = try writers.map { writer throws(SearchlightError) in try writer.documents(of: []).last }
            let nextGenerations = writers.map { ($0.layout.generation ?? 0) + 1 }
            let buildFolders = zip(folders, nextGenerations).map { $0 + "/" + IndexLayout.buildFolderName($1) }
            defer { for folder in buildFolders { try? FileManager.default.removeItem(atPath: folder) } }
            var builds: [BulkBuild] = []
            for (shard, folder) in buildFolders.enumerated() {
                try? FileManager.default.removeItem(atPath: folder)
                do {
                    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
                } catch {
                    throw SearchlightError(
                        .writeFailed,
                        "Cannot create the folder \(folder) for a bulk build: \(FileSystem.describe(error))",
                        failure: .io)
                }
                builds.append(
                    try BulkBuild(
                        base: writers[shard].path, folder: folder, segments: 1,
                        memoryBudget: memoryBudget / writers.count, indexPath: folders[shard]))
            }

            let states = Mutex([ShardBuildState](repeating: ShardBuildState(), count: writers.count))
            let processed = Atomic<Int>(0)
            let queues = writers.map { _ in WorkQueue<ShardPiece>(capacity: 2) }
            // At most ``jobs`` builders write at once, as many as a local build runs (a service
            // leaves a core to its searches).
            let turns = DispatchSemaphore(value: jobs)
            let cancelAll: @Sendable () -> Void = { for queue in queues { queue.cancel() } }
            for (shard, queue) in queues.enumerated() {
                let (build, now) = (builds[shard], self.now)
                do throws(SearchlightError) {
                    try queue.serve(threads: 1, name: "shard-build-\(shard + 1)", stackSize: 4 << 20) { _, pieces in
                        for piece in pieces {
                            do throws(SearchlightError) {
                                turns.wait()
                                defer { turns.signal() }
                                let outcomes = try build.add(
                                    piece.items, sequences: piece.sequences, segment: 0, now: now)
                                states.withLock { $0[shard].report.count(outcomes) }
                                processed.add(outcomes.count, ordering: .relaxed)
                            } catch {
                                states.withLock { $0[shard].failure = $0[shard].failure ?? error }
                                cancelAll()
                            }
                        }
                    }
                } catch {
                    cancelAll()
                    for queue in queues { queue.close() }
                    throw error
                }
            }

            let shardWriters = writers
            var placement = ShardPlacement(lastIDs: lastIDs)
            var reading = IndexingReport()
            var failure: SearchlightError?
            let send = { (piece: DecodedInput, file: Int) -> Bool in
                do throws(SearchlightError) {
                    let items = try options.prepare(piece, now: now, report: &reading)
                    guard !items.isEmpty else { return true }
                    var stored = items.map(\.item)
                    let found = try shardWriters.map { writer throws(SearchlightError) in
                        try writer.documents(of: stored).ids
                    }
                    let shards = try placement.place(&stored, found: found, now: now, index: topology.path)
                    var pieces = shardWriters.map { _ in ShardPiece(items: [], sequences: []) }
                    for (position, shard) in shards.enumerated() {
                        guard shard >= 0 else {
                            reading.count([.expired])
                            continue
                        }
                        pieces[shard].items.append(stored[position])
                        pieces[shard].sequences.append(UInt64(file) << 32 | UInt64(items[position].position))
                    }
                    for (shard, piece) in pieces.enumerated() where !piece.items.isEmpty {
                        guard queues[shard].put(piece) else { return false }
                    }
                    return true
                } catch {
                    failure = error
                    return false
                }
            }
            readInPieces(
                inputs, filter: nil, progress: progress, items: { processed.load(ordering: .relaxed) },
                stopped: { failure != nil || queues.contains(where: \.isCancelled) }, emit: send)
            if failure != nil { cancelAll() }
            for queue in queues { queue.close() }
            if let failure { throw failure }
            for state in states.withLock({ $0 }) {
                if let failure = state.failure { throw failure }
                reading.merge(state.report)
            }
            progress(Progress(phase: .merging, files: inputs.count, filesRead: inputs.count, items: reading.indexed))

            let plans = try ParallelWork.run(builds, names: names) { _, build throws(SearchlightError) in
                try build.resolve()
            }
            for plan in plans {
                reading.added -= plan.addedThenUpdated
                reading.unchanged -= plan.unchangedThenUpdated
                reading.updated += plan.addedThenUpdated + plan.unchangedThenUpdated
            }
            report.merge(reading)
            if strict, report.rejected > 0 { return }
            if plans.allSatisfy(\.changesNothing) {
                guard let clientState else { return }
                // Only the state changes: an ordinary batch of one write on every shard.
                try SearchableIndex.shardedTransaction(writers, topology, batch: batch) {
                    journal throws(SearchlightError) in
                    _ = try IndexTransaction(shards: writers, topology: topology, journal: journal).onEveryShard(
                        clientState.write)
                }
                return
            }
            // What every shard commits beside its items: the batch's number, done by each commit,
            // and the client state, journaled for the shards that the run does not merge.
            let stateWrites = clientState.map { [$0.write] } ?? []

            // Each shard the run changes: its next generation, whole, synced, holding the batch.
            let merging = plans.map { !$0.changesNothing }
            let built = ParallelWork.outcomes(builds, names: names) {
                shard, build throws(SearchlightError) -> XapianDatabase? in
                guard merging[shard] else { return nil }
                let writer = try SearchableIndex.buildGeneration(nextGenerations[shard], at: folders[shard]) {
                    folder throws(SearchlightError) in
                    try build.merge(to: folder, survivorsCopied: false, keepingIDs: true)
                }
                do throws(SearchlightError) {
                    // Committed with Xapian's sync, as every writer of a generation commits.
                    try writer.begin()
                    try writer.setMetadata(BatchJournal.batchKey, String(batch))
                    for write in stateWrites { _ = try write.perform(on: writer) }
                    try writer.commit()
                    return writer
                } catch {
                    try? writer.close()
                    try? FileManager.default.removeItem(
                        atPath: folders[shard] + "/" + IndexLayout.folderName(nextGenerations[shard]))
                    throw error
                }
            }
            let generations = built.map { try? $0.get() }
            let abandon = {
                for (shard, generation) in generations.enumerated() {
                    guard let generation else { continue }
                    try? generation.close()
                    try? FileManager.default.removeItem(
                        atPath: folders[shard] + "/" + IndexLayout.folderName(nextGenerations[shard]))
                }
            }
            for case .failure(let error) in built {
                abandon()
                throw error
            }

            // Journaled, then published: the batch is on every shard or, after a crash, completed
            // from the journal by the next writer.
            var unpublished = Set(writers.indices.filter { generations[$0] != nil })
            var begun: [Int] = []
            do throws(SearchlightError) {
                for shard in writers.indices where !merging[shard] {
                    try ParallelWork.naming(names[shard]) { () throws(SearchlightError) in
                        try writers[shard].begin()
                        begun.append(shard)
                        try writers[shard].setMetadata(BatchJournal.batchKey, String(batch))
                        for write in stateWrites { _ = try write.perform(on: writers[shard]) }
                    }
                }
                try BatchJournal(
                    batch: batch, writes: writers.indices.map { merging[$0] ? [] : stateWrites },
                    generations: writers.indices.map { merging[$0] ? nextGenerations[$0] : nil }
                ).save(for: topology)
            } catch {
                for shard in begun { writers[shard].cancel() }
                abandon()
                throw error
            }
            for shard in writers.indices {
                do throws(SearchlightError) {
                    try ParallelWork.naming(names[shard]) { () throws(SearchlightError) in
                        if let generation = generations[shard] {
                            try SearchableIndex.publish(
                                generation, nextGenerations[shard], at: folders[shard], replacing: &writers[shard])
                            unpublished.remove(shard)
                        } else {
                            try writers[shard].commit()
                        }
                    }
                } catch {
                    // The generations not yet published stay for the next writer to publish.
                    for other in unpublished { try? generations[other]?.close() }
                    var error = error
                    error.message +=
                        "; the batch is journaled in \(BatchJournal.path(of: topology)), and the next write to the "
                        + "index completes it on every shard that did not take it"
                    throw error
                }
            }
            BatchJournal.remove(for: topology)
        }
    }
}

extension SearchableIndex {
    /// An upper bound of the documents a topology's shards hold (each shard's last document id).
    func shardDocumentBound() throws(SearchlightError) -> Int {
        try shardWriters.withLock { writers throws(SearchlightError) in
            var total = 0
            for writer in writers { total += Int(try writer.documents(of: []).last) }
            return total
        }
    }
}
