import CoreMetrics
import FoundationEssentials
import Synchronization

/// One writer and a pool of readers over one index, for a service, in the manner of GRDB's
/// `DatabasePool`.
///
/// Reads run concurrently on reader threads, each holding a read-only handle that follows new
/// generations. Writes run on the writer's thread: every write waiting when a batch starts joins
/// it, so concurrent writers share one commit, and a write that fails is retried alone so that it
/// fails alone. Xapian work never runs on Swift's cooperative thread pool, and opening waits for
/// another writer's lock without polling.
///
/// ```swift
/// let pool = try IndexPool(path: "/srv/index")
/// let results = try await pool.read { index in try index.search(SearchQuery("lamp")) }
/// let report = try await pool.write { batch in try batch.indexSearchableItems(items, now: now) }
/// try await pool.close()
/// ```
public final class IndexPool: Sendable {
    public let path: String
    private let writer: SearchableIndex?
    private let readers: [SearchableIndex]
    private let readJobs = WorkQueue<ReadJob>()
    private let writeJobs = WorkQueue<WriteJob>()
    private let counts = WriteCounts()
    private let callers: CallerGate

    private typealias ReadJob = @Sendable (SearchableIndex) -> Void

    private struct WriteJob: Sendable {
        /// Runs inside a batch's transaction; `nil` for a write that runs alone.
        var inBatch: (@Sendable (IndexTransaction) throws(SearchlightError) -> any Sendable)?
        /// Runs on the writer alone.
        var alone: (@Sendable (SearchableIndex) throws(SearchlightError) -> any Sendable)?
        var finish: @Sendable (Result<any Sendable, SearchlightError>) -> Void
    }

    /// Opens the index at `path` for writing (creating it when missing), waiting up to
    /// `lockTimeout` for another writer, and `readers` read-only handles on it, each served by a
    /// thread of its own (by default ``CoreBudget/readers``).
    ///
    /// - Throws: ``SearchlightError/Code/indexLocked`` past the timeout,
    ///   ``SearchlightError/Code/indexUnavailable`` when it cannot be opened or created.
    public convenience init(
        path: String, readers: Int = CoreBudget.machine.readers, lockTimeout: Duration = .seconds(10)
    )
        throws(SearchlightError)
    {
        try self.init(
            path: path, writer: try SearchableIndex(path: path, access: .readWrite(lockTimeout: lockTimeout)),
            readers: readers)
    }

    /// Opens `readers` read-only handles on the index at `path` and no writer: every write fails
    /// with ``SearchlightError/Code/readOnly``. For a replica, which only `xapian-replicate` writes,
    /// or an index on read-only storage.
    ///
    /// - Throws: ``SearchlightError/Code/indexUnavailable`` when there is no index at `path`.
    public convenience init(readingOnly path: String, readers: Int = CoreBudget.machine.readers)
        throws(SearchlightError)
    {
        try self.init(path: path, writer: nil, readers: readers)
    }

    private init(path: String, writer: SearchableIndex?, readers: Int) throws(SearchlightError) {
        self.path = path
        self.writer = writer
        callers = CallerGate(limit: max(1, readers / 2))
        var pool: [SearchableIndex] = []
        do throws(SearchlightError) {
            for _ in 0..<max(1, readers) {
                pool.append(try SearchableIndex(path: path, access: .readOnly, keepsFieldsInMemory: true))
            }
            self.readers = pool
            try readJobs.serve(threads: pool.count, name: "index-reader") { [pool] thread, jobs in
                for job in jobs { job(pool[thread]) }
            }
            if let writer {
                // A batch is the writes waiting in a row; work that runs alone goes by itself.
                let batch: @Sendable (ArraySlice<WriteJob>) -> Int = { $0.prefix { $0.inBatch != nil }.count }
                try writeJobs.serve(threads: 1, name: "index-writer", taking: batch) { [counts] _, jobs in
                    Self.run(jobs, on: writer, counts: counts)
                }
            }
        } catch {
            readJobs.close()
            writeJobs.close()
            try? writer?.close()
            for reader in pool { try? reader.close() }
            throw error
        }
    }

    /// Runs `body` with a reader, at the latest commit, on a reader thread.
    ///
    /// With a `caller` (a service's client: its token, or its address), that caller has at most
    /// half the readers at once, and its further reads wait for its own to finish: one caller's
    /// heavy queries never hold every reader.
    public func read<T: Sendable>(
        as caller: String? = nil, _ body: @escaping @Sendable (SearchableIndex) throws(SearchlightError) -> T
    ) async throws(SearchlightError) -> T {
        guard let caller else { return try await readOnPool(body) }
        await callers.enter(caller)
        defer { callers.leave(caller) }
        return try await readOnPool(body)
    }

    private func readOnPool<T: Sendable>(_ body: @escaping @Sendable (SearchableIndex) throws(SearchlightError) -> T)
        async throws(SearchlightError) -> T
    {
        try await Self.awaiting { finish in
            readJobs.put { index in
                do throws(SearchlightError) {
                    finish(.success(try body(index)))
                } catch {
                    finish(.failure(error))
                }
            }
        }
    }

    /// Runs `operation` in the next batch of writes, and returns once that batch is committed.
    public func write<T: Sendable>(_ operation: @escaping @Sendable (IndexTransaction) throws(SearchlightError) -> T)
        async throws(SearchlightError) -> T
    {
        guard writer != nil else { throw readOnlyError }
        return try await Self.awaiting { finish in
            writeJobs.put(
                WriteJob(
                    inBatch: { batch throws(SearchlightError) in try operation(batch) }, alone: nil, finish: finish))
        }
    }

    /// Runs `operation` on the writer alone, between batches: for work that makes its own
    /// transactions or generations, such as a bulk build (``Indexer``) or a compaction.
    public func writeAlone<T: Sendable>(
        _ operation: @escaping @Sendable (SearchableIndex) throws(SearchlightError) -> T
    ) async throws(SearchlightError) -> T {
        guard writer != nil else { throw readOnlyError }
        return try await Self.awaiting { finish in
            writeJobs.put(
                WriteJob(
                    inBatch: nil, alone: { index throws(SearchlightError) in try operation(index) }, finish: finish))
        }
    }

    private var readOnlyError: SearchlightError {
        SearchlightError(.readOnly, "The index at \(path) is open read-only here; write to its primary instead")
    }

    /// How many batches have been committed, and how many writes they held.
    public var writeCounts: (batches: Int, writes: Int) { counts.value.withLock { $0 } }

    /// How many writes (and bulk builds or compactions) wait for the writer.
    public var queuedWrites: Int { writeJobs.waiting }

    /// Each batch's commit, from its first write to its commit, in the application's metrics
    /// (swift-metrics; a Prometheus histogram under `serve`).
    private static let commitDuration = Timer(
        label: "searchlight_commit_duration_seconds", preferredDisplayUnit: .seconds)

    /// Finishes the writes and reads waiting, then closes every handle.
    public func close() async throws(SearchlightError) {
        let (writeJobs, readJobs, writer, readers) = (self.writeJobs, self.readJobs, self.writer, self.readers)
        let _: Bool = try await Self.awaiting {
            (finish: @escaping @Sendable (Result<Bool, SearchlightError>) -> Void) in
            do throws(SearchlightError) {
                try OSThread.start(name: "index-closing") {
                    writeJobs.close()
                    readJobs.close()
                    do throws(SearchlightError) {
                        try writer?.close()
                        for reader in readers { try reader.close() }
                        finish(.success(true))
                    } catch {
                        finish(.failure(error))
                    }
                }
            } catch {
                finish(.failure(error))
            }
        }
    }

    /// Runs one batch: its writes in one transaction, or, when one fails, each alone.
    private static func run(_ jobs: [WriteJob], on writer: SearchableIndex, counts: WriteCounts) {
        if jobs.count == 1, let alone = jobs[0].alone {
            do throws(SearchlightError) {
                jobs[0].finish(.success(try alone(writer)))
            } catch {
                jobs[0].finish(.failure(error))
            }
            return
        }
        counts.value.withLock {
            $0.batches += 1
            $0.writes += jobs.count
        }
        do throws(SearchlightError) {
            let started = ContinuousClock.now
            let results = try writer.performBatch { transaction throws(SearchlightError) in
                var results: [any Sendable] = []
                for job in jobs { results.append(try job.inBatch!(transaction)) }
                return Results(values: results)
            }
            commitDuration.recordSeconds((ContinuousClock.now - started).seconds)
            for (job, result) in zip(jobs, results.values) { job.finish(.success(result)) }
        } catch {
            guard jobs.count > 1 else { return jobs[0].finish(.failure(error)) }
            for job in jobs {
                do throws(SearchlightError) {
                    let result = try writer.performBatch { transaction throws(SearchlightError) in
                        Results(values: [try job.inBatch!(transaction)])
                    }
                    job.finish(.success(result.values[0]))
                } catch {
                    job.finish(.failure(error))
                }
            }
        }
    }

    private final class WriteCounts: Sendable {
        let value = Mutex<(batches: Int, writes: Int)>((0, 0))
    }

    private struct Results: @unchecked Sendable {
        // Each element is Sendable; the array of existentials is only moved, never shared.
        var values: [any Sendable]
    }

    /// Suspends until `start`'s job calls `finish`.
    private static func awaiting<T: Sendable, R: Sendable>(
        _ start: (@escaping @Sendable (Result<R, SearchlightError>) -> Void) -> Void
    ) async throws(SearchlightError) -> T {
        let result: Result<R, SearchlightError> = await withCheckedContinuation { continuation in
            start { continuation.resume(returning: $0) }
        }
        return try result.map { $0 as! T }.get()
    }
}
