import Foundation
import Logging
public import SearchlightKit
import ServiceLifecycle
import Synchronization

/// The index as the service uses it: one writer that commits queued writes in small batches, and a
/// pool of readers that search concurrently at the latest commit.
public final class IndexService: Sendable {
    let writer: SearchableIndex
    private let readers: [SearchableIndex]
    private let nextReader = Atomic<Int>(0)
    let queue: WriteQueue

    /// Opens the index at `path` for writing (creating it when missing) and `readers` read-only
    /// handles on it.
    public init(path: String, readers: Int = 4, lockTimeout: Duration = .seconds(10)) throws(SearchlightError) {
        writer = try SearchableIndex(path: path, access: .readWrite(lockTimeout: lockTimeout))
        var pool: [SearchableIndex] = []
        for _ in 0..<max(1, readers) { pool.append(try SearchableIndex(path: path, access: .readOnly)) }
        self.readers = pool
        queue = WriteQueue(index: writer)
    }

    /// A reader for one request, in turn.
    var reader: SearchableIndex {
        readers[nextReader.wrappingAdd(1, ordering: .relaxed).oldValue % readers.count]
    }

    /// Runs `operation` in the next batch, and returns once that batch is committed.
    func write<T: Sendable>(_ operation: @escaping @Sendable (IndexTransaction) throws(SearchlightError) -> T)
        async throws(SearchlightError) -> T
    {
        try await queue.submit(operation)
    }

    /// Runs `operation` on the writer alone, between batches: for work that makes its own
    /// transactions or generations, such as a bulk build.
    func writeAlone<T: Sendable>(_ operation: @escaping @Sendable (SearchableIndex) throws(SearchlightError) -> T)
        async throws(SearchlightError) -> T
    {
        try await queue.submit(alone: operation)
    }

    /// Waits for queued writes, then closes every handle.
    func close() async throws(SearchlightError) {
        await queue.waitUntilIdle()
        try writer.close()
        for reader in readers { try reader.close() }
    }
}

/// Queued writes, committed together: every write waiting when a batch starts joins it, so
/// concurrent requests share one commit. If any write in a batch fails, the batch is abandoned and
/// its writes are retried one by one, so that one bad request never fails the others.
actor WriteQueue {
    private struct Pending {
        var run: @Sendable (IndexTransaction) throws(SearchlightError) -> any Sendable
        var continuation: CheckedContinuation<any Sendable, any Error>
        /// A write that runs on the index alone, outside any batch.
        var alone: (@Sendable (SearchableIndex) throws(SearchlightError) -> any Sendable)? = nil
    }

    private let index: SearchableIndex
    private var pending: [Pending] = []
    private var draining = false
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    /// How many batches have been committed, and how many writes they held (for the logs and tests).
    private(set) var batches = 0
    private(set) var writes = 0

    init(index: SearchableIndex) { self.index = index }

    func submit<T: Sendable>(_ operation: @escaping @Sendable (IndexTransaction) throws(SearchlightError) -> T)
        async throws(SearchlightError) -> T
    {
        try await enqueue { continuation in
            Pending(run: { batch throws(SearchlightError) in try operation(batch) }, continuation: continuation)
        }
    }

    func submit<T: Sendable>(alone operation: @escaping @Sendable (SearchableIndex) throws(SearchlightError) -> T)
        async throws(SearchlightError) -> T
    {
        try await enqueue { continuation in
            Pending(
                run: { _ throws(SearchlightError) in () }, continuation: continuation,
                alone: { index throws(SearchlightError) in try operation(index) })
        }
    }

    private func enqueue<T: Sendable>(
        _ make: (CheckedContinuation<any Sendable, any Error>) -> Pending
    ) async throws(SearchlightError) -> T {
        do {
            let result = try await withCheckedThrowingContinuation { continuation in
                pending.append(make(continuation))
                if !draining {
                    draining = true
                    Task { await self.drain() }
                }
            }
            return result as! T
        } catch let error as SearchlightError {
            throw error
        } catch {
            throw SearchlightError(.internalError, "\(error)")
        }
    }

    func waitUntilIdle() async {
        guard draining || !pending.isEmpty else { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    private func drain() async {
        while !pending.isEmpty {
            if let alone = pending[0].alone {
                let write = pending.removeFirst()
                do {
                    write.continuation.resume(returning: try alone(index))
                } catch {
                    write.continuation.resume(throwing: error)
                }
                await Task.yield()
                continue
            }
            // Every write waiting joins the batch, up to the first that runs alone.
            let count = pending.firstIndex { $0.alone != nil } ?? pending.count
            let batch = Array(pending.prefix(count))
            pending.removeFirst(count)
            run(batch)
            // Let requests that arrived meanwhile join the next batch.
            await Task.yield()
        }
        draining = false
        for waiter in idleWaiters { waiter.resume() }
        idleWaiters.removeAll()
    }

    private func run(_ batch: [Pending]) {
        batches += 1
        writes += batch.count
        do {
            let results = try index.performBatch { transaction throws(SearchlightError) in
                var results: [any Sendable] = []
                for write in batch { results.append(try write.run(transaction)) }
                return ResultList(values: results)
            }
            for (write, result) in zip(batch, results.values) { write.continuation.resume(returning: result) }
        } catch {
            if batch.count == 1 {
                batch[0].continuation.resume(throwing: error)
                return
            }
            for write in batch {
                do {
                    let result = try index.performBatch { transaction throws(SearchlightError) in
                        ResultList(values: [try write.run(transaction)])
                    }
                    write.continuation.resume(returning: result.values[0])
                } catch {
                    write.continuation.resume(throwing: error)
                }
            }
        }
    }

    private struct ResultList: @unchecked Sendable {
        // Each element is Sendable; the array of existentials is only moved, never shared.
        var values: [any Sendable]
    }
}

/// Closes the index after the HTTP server has stopped (services shut down in reverse order), so
/// writes in flight are committed before the process exits.
struct IndexLifecycleService: Service {
    let index: IndexService
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        await index.queue.waitUntilIdle()
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
    let index: IndexService
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
                    logger.info("Pruned expired items", metadata: ["pruned": "\(pruned)"])
                    // Readers follow the new generation on their next search.
                    if let compaction = try index.writer.compactIfWorthwhile(afterDeleting: pruned) {
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
