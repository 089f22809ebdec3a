import Foundation
import Logging
public import SearchlightKit
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
