import FoundationEssentials
import Synchronization

/// The writer's rates on this project's machine (2 cores), in documents per second, by which a
/// bulk build chooses how to write its result. Measured on 50,000 items (118 MB) re-indexed with
/// 60 % of them changed: the whole run took 25.3 s deleting the 30,000 superseded documents from
/// the merged database (17 s of deletes; the index then 194 MB), 17.3 s copying the 20,000
/// survivors into two segments instead (11 s of copying; 119 MB). With 10 % changed, deleting is
/// the cheaper: 4.5 s.
enum WriteCosts {
    /// Adding to or deleting from a large database through one transaction.
    static let writerRate = 1_500.0
    /// Copying documents while compacting (a 50,000-item index compacts in 0.6 s).
    static let compactionRate = 40_000.0
    /// Deleting from a merged database before it is published (unsynced).
    static let deleteRate = 1_700.0
    /// Copying a stored document into a segment, per segment builder: Xapian reads each term's
    /// positions on its own.
    static let copyRate = 950.0

    /// Whether writing the build into the current generation costs less than merging.
    static func applies(_ plan: BulkBuild.Plan, jobs: Int) -> Bool {
        Double(plan.stored + plan.superseded) / writerRate < mergeCost(plan, jobs: jobs)
    }

    /// Whether a merge should copy the surviving documents into the segments rather than delete
    /// the superseded ones from the merged database.
    static func copiesSurvivors(_ plan: BulkBuild.Plan, jobs: Int) -> Bool {
        copyCost(plan, jobs: jobs) < Double(plan.superseded) / deleteRate
    }

    private static func copyCost(_ plan: BulkBuild.Plan, jobs: Int) -> Double {
        Double(plan.baseDocuments - plan.superseded) / (copyRate * Double(jobs))
    }

    private static func mergeCost(_ plan: BulkBuild.Plan, jobs: Int) -> Double {
        Double(plan.baseDocuments + plan.stored) / compactionRate
            + min(Double(plan.superseded) / deleteRate, copyCost(plan, jobs: jobs))
    }
}

/// What the reading thread hands a segment builder: one file, or one piece of a JSON Lines file.
private struct Unit: Sendable {
    /// Its place in the run, for putting rejections back in order.
    var order: Int
    /// Its input's place in the run: the high half of its items' sequences.
    var file: Int
    var input: DecodedInput
}

/// What the segment builders have done, together.
private struct BuildState: Sendable {
    var reports: [(order: Int, report: IndexingReport)] = []
    var failure: SearchlightError?
}

extension Indexer {
    /// Streams the inputs to ``jobs`` segment builders, then writes their result: a new generation
    /// merged by compaction, or one transaction on the current one. Holds the writer's lock, and
    /// its handle, throughout.
    func indexInBulk(
        _ inputs: [Input], into index: SearchableIndex, report: inout IndexingReport, progress: (Progress) -> Void
    ) throws(SearchlightError) {
        let path = index.path
        try index.database.withLock { database throws(SearchlightError) in
            // The writer's lock is held to the end: the state checked here is the one replaced.
            try clientState?.check(in: IndexTransaction(database: database))
            let next = (database.layout.generation ?? 0) + 1
            let folder = path + "/" + IndexLayout.buildFolderName(next)
            try? FileManager.default.removeItem(atPath: folder)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            } catch {
                throw SearchlightError(
                    .writeFailed, "Cannot create the folder \(folder) for a bulk build: \(FileSystem.describe(error))",
                    failure: .io)
            }
            let build = try BulkBuild(
                base: database.path, folder: folder, segments: jobs, memoryBudget: memoryBudget, indexPath: path)
            let options = try self.options.with(indexOf: database)
            let filter = LineFilter(
                snapshot: try XapianDatabase(path: database.path, writable: false), options: options, now: now)

            let state = Mutex(BuildState())
            let processed = Atomic<Int>(0)
            // Unit k goes to segment k mod jobs, whichever builder is free first: the same inputs
            // always make the same segments, so the items get the same document ids, equal scores
            // come in the same order, and the index is the same, byte for byte, run after run.
            let queues = (0..<jobs).map { _ in WorkQueue<Unit>(capacity: 2) }
            let cancelAll: @Sendable () -> Void = { for queue in queues { queue.cancel() } }
            for (segment, queue) in queues.enumerated() {
                do throws(SearchlightError) {
                    try queue.serve(threads: 1, name: "bulk-build-\(segment + 1)", stackSize: 4 << 20) {
                        [self] _, units in
                        for unit in units {
                            do throws(SearchlightError) {
                                var unitReport = IndexingReport()
                                try store(unit, segment: segment, in: build, options: options, report: &unitReport)
                                processed.add(unitReport.indexed + unitReport.rejected, ordering: .relaxed)
                                state.withLock { $0.reports.append((unit.order, unitReport)) }
                            } catch {
                                state.withLock { $0.failure = $0.failure ?? error }
                                cancelAll()
                            }
                        }
                    }
                } catch {
                    state.withLock { $0.failure = $0.failure ?? error }
                    cancelAll()
                    break
                }
            }

            var order = 0
            readInPieces(
                inputs, filter: filter, progress: progress, items: { processed.load(ordering: .relaxed) },
                stopped: { queues.contains(where: \.isCancelled) }
            ) { piece, file in
                defer { order += 1 }
                if order == 0 {
                    // The first piece chooses the common words of an index that has none, before any
                    // builder stores.
                    do throws(SearchlightError) {
                        var scratch = IndexingReport()
                        try build.chooseCommonWords(
                            from: try options.prepare(piece, now: now, report: &scratch).map(\.item))
                    } catch {
                        state.withLock { $0.failure = $0.failure ?? error }
                        cancelAll()
                        return false
                    }
                }
                return queues[order % jobs].put(Unit(order: order, file: file, input: piece))
            }
            for queue in queues { queue.close() }

            let (reports, failure) = state.withLock { ($0.reports, $0.failure) }
            if let failure { throw failure }
            for entry in reports.sorted(by: { $0.order < $1.order }) { report.merge(entry.report) }
            progress(
                Progress(phase: .merging, files: inputs.count, filesRead: inputs.count, items: report.indexed))

            let plan = try build.resolve()
            report.added -= plan.addedThenUpdated
            report.unchanged -= plan.unchangedThenUpdated
            report.updated += plan.addedThenUpdated + plan.unchangedThenUpdated
            if strict, report.rejected > 0 { return }
            if plan.changesNothing && clientState == nil { return }
            if plan.changesNothing || WriteCosts.applies(plan, jobs: jobs) {
                do {
                    try database.transaction {
                        if !plan.changesNothing { try build.apply(to: database) }
                        _ = try clientState?.write.perform(on: database)
                    }
                } catch let error as SearchlightError {
                    throw error
                } catch {
                    throw SearchlightError(.internalError, "\(error)")
                }
            } else {
                let copying = WriteCosts.copiesSurvivors(plan, jobs: jobs)
                try index.publishGeneration(replacing: &database) { destination throws(SearchlightError) in
                    if copying {
                        // Every segment builder copies its share at once, on threads of its own.
                        _ = try ParallelWork.run(Array(0..<jobs), names: nil) { segment, _ throws(SearchlightError) in
                            try build.copySurvivors(into: segment)
                        }
                    }
                    try build.merge(to: destination, survivorsCopied: copying)
                } prepare: { [clientState] built throws(SearchlightError) in
                    guard let clientState else { return }
                    try built.begin()
                    do throws(SearchlightError) {
                        _ = try clientState.write.perform(on: built)
                    } catch {
                        built.cancel()
                        throw error
                    }
                    try built.commit()
                }
            }
        }
    }

    /// Reads the inputs in pieces of about 500 items, handing each to `emit` with its input's
    /// place in the run (`emit` returns false to stop), and reports the reading after each piece
    /// and each input, with the `items` done so far. `stopped` is asked after each input.
    func readInPieces(
        _ inputs: [Input], filter: LineFilter?, progress: (Progress) -> Void, items: () -> Int,
        stopped: () -> Bool, emit: (DecodedInput, Int) -> Bool
    ) {
        read: for (file, input) in inputs.enumerated() {
            switch input {
            case .file(let name):
                BranchUniversalObjectReader.read(path: name, piece: 500, filter: filter) { piece in
                    guard emit(piece, file) else { return false }
                    progress(Progress(phase: .reading, files: inputs.count, filesRead: file, items: items()))
                    return true
                }
            case .data:
                guard emit(input.read(), file) else { break read }
            }
            if stopped() { break }
            progress(Progress(phase: .reading, files: inputs.count, filesRead: file + 1, items: items()))
        }
    }

    /// Stores one unit's items in a segment, and records its recognized lines.
    private func store(
        _ unit: Unit, segment: Int, in build: BulkBuild, options: IndexingOptions, report: inout IndexingReport
    ) throws(SearchlightError) {
        let high = UInt64(unit.file) << 32
        let known = unit.input.knownLines
        if !known.isEmpty {
            try build.keep(documents: known.map(\.document), sequences: known.map { high | UInt64($0.item) })
            report.unchanged += known.count
        }
        let prepared = try options.prepare(unit.input, now: now, report: &report)
        let outcomes = try build.add(
            prepared.map(\.item), sequences: prepared.map { high | UInt64($0.position) }, segment: segment, now: now)
        report.count(outcomes)
    }
}
