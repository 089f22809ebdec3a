import Foundation
import Logging
import SearchlightKit
import ServiceLifecycle

/// Closes the index after the HTTP server has stopped (services shut down in reverse order), so
/// writes in flight are committed before the process exits.
struct IndexLifecycleService: Service {
    let index: IndexPool
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        do {
            try await index.close()
            logger.info("Index closed; every write committed")
        } catch {
            logger.error("Closing the index failed: \(error)")
            throw error
        }
    }
}

/// Prunes expired items every `interval`, through the write queue, and compacts the index when the
/// prune deleted enough to matter.
struct PruneService: Service {
    let index: IndexPool
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return
                }
                do {
                    let now = SearchableIndex.currentTime()
                    let pruned = try await index.write { batch throws(SearchlightError) in
                        try batch.pruneExpiredItems(now: now)
                    }
                    PruneMetrics.record(pruned: pruned, trigger: "background")
                    logger.info("Pruned expired items", metadata: ["pruned": .stringConvertible(pruned)])
                    // Readers follow the new generation on their next search.
                    let compaction = try await index.writeAlone { writer throws(SearchlightError) in
                        try writer.compactIfWorthwhile(afterDeleting: pruned)
                    }
                    if let compaction {
                        logger.info(
                            "Compacted the index",
                            metadata: [
                                "bytesBefore": "\(compaction.bytesBefore)", "bytesAfter": "\(compaction.bytesAfter)",
                            ])
                    }
                } catch {
                    logger.error("Pruning failed: \(error)")
                }
            }
        }
    }
}

/// Gives the items without a vector of meaning theirs: the ones the service's writes add or
/// change, and those an earlier run left. A reader thread reads a batch and runs the model in the
/// background: on one core fewer than the machine has (at least one), at the scheduler's idle
/// priority, so that the searches take the cores they need first; the writer only stores the
/// vectors, between batches of requests' writes. Until then an item is found by its words.
///
/// The items are read from where the last look ended: the items a write adds come after it. A
/// look that reaches the last item and leaves items without a vector behind where it began (an
/// item a write changed) starts again from the first. When every item has its vector, a look is
/// a count.
struct MeaningService: Service {
    let index: IndexPool
    let model: MeaningModel
    let logger: Logger

    /// Items embedded at a time: about half a second of the model on one core.
    static let batch = 32

    /// Items embedded at a time by this service: ``batch`` unless a test asks for more.
    var itemsPerBatch = Self.batch

    /// Whether the model runs at the idle priority, yielding every core to searches and writes.
    /// A test whose process keeps both cores busy with other suites turns it off.
    var atIdlePriority = true

    /// The threads the model runs on.
    static let threads = CoreBudget.machine.serviceBuilders

    func run() async throws {
        // A shutdown stops the model between two steps of a layer; the vectors it made are stored.
        let stop = EmbeddingStop()
        await cancelWhenGracefulShutdown {
            await withTaskCancellationHandler {
                await completeVectors(stop: stop)
            } onCancel: {
                stop.request()
            }
        }
    }

    private func completeVectors(stop: EmbeddingStop) async {
        var next: UInt32 = 1
        var embedded = 0
        while !Task.isCancelled {
            do {
                let first = next
                let batch = try await index.read { reader throws(SearchlightError) in
                    try reader.embedItemsWithoutMeaning(
                        using: model, from: first, limit: itemsPerBatch, threads: Self.threads, stop: stop,
                        inBackground: atIdlePriority)
                }
                if batch.count > 0 {
                    embedded += try await index.write { writer throws(SearchlightError) in
                        try writer.storeMeaning(batch)
                    }
                }
                if batch.next != 0 {
                    next = batch.next
                    continue
                }
                // The look reached the last item. Items without a vector before where it began
                // are looked for from the first; else the next look begins where the items
                // written meanwhile will.
                if batch.missing > batch.count && first > 1 {
                    next = 1
                    continue
                }
                next = batch.end
                if embedded > 0 {
                    logger.info("Gave items vectors of meaning", metadata: ["items": "\(embedded)"])
                    embedded = 0
                }
                try await Task.sleep(for: .seconds(1))
            } catch is CancellationError {
                return
            } catch let error as SearchlightError
                where error.code == .meaningModelMismatch || error.code == .meaningUnavailable
            {
                // Said once; the service goes on by words (a service that returns stops them all).
                logger.error("\(error.message); searches rank by words alone")
                while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
                return
            } catch {
                logger.error("Giving items vectors of meaning failed: \(error)")
                try? await Task.sleep(for: .seconds(10))
            }
        }
    }
}

/// Indexes the watched files at start, then each batch of changes as it comes, through the writer
/// queue (bulk builds run alone there, between batches of requests' writes).
struct WatchService: Service {
    let index: IndexPool
    let watcher: FolderWatcher
    let mirror: Bool
    let logger: Logger

    func run() async throws {
        let paths = watcher.paths
        let first: FolderWatcher.Changes
        do {
            first = FolderWatcher.Changes(written: try BranchUniversalObjectReader.inputFiles(for: paths))
        } catch {
            logger.error("Cannot read the watched paths: \(error)")
            throw error
        }
        await cancelWhenGracefulShutdown {
            await apply(first, roots: mirror ? paths : nil)
            for await changes in watcher.batches() {
                await apply(changes, roots: changes.overflowed ? paths : nil)
            }
        }
        watcher.stop()
    }

    private func apply(_ changes: FolderWatcher.Changes, roots: [String]?) async {
        guard !changes.isEmpty else { return }
        let mirror = self.mirror
        let indexer = Indexer(jobs: CoreBudget.machine.serviceBuilders)
        do {
            let report = try await index.writeAlone { writer throws(SearchlightError) in
                var indexer = indexer
                indexer.now = SearchableIndex.currentTime()
                return try indexer.apply(changes, to: writer, mirror: mirror, roots: roots)
            }
            logger.info(
                "Indexed changed files",
                metadata: [
                    "files": "\(report.files.count)", "gone": "\(report.gone.count)",
                    "added": "\(report.indexing.added)", "updated": "\(report.indexing.updated)",
                    "unchanged": "\(report.indexing.unchanged)", "rejected": "\(report.indexing.rejected)",
                    "removed": "\(report.removed)", "rescanned": "\(report.rescanned)",
                ])
            for error in report.indexing.errors { logger.warning("Rejected: \(error)") }
        } catch {
            logger.error("Indexing changed files failed: \(error)")
        }
    }
}
