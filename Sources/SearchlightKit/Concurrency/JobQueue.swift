/// Jobs for threads of their own: an unbounded queue that never blocks the submitter, served by
/// threads that each run `serve` until the queue is closed.
final class JobQueue<Job: Sendable>: @unchecked Sendable {
    // Every field is guarded by `condition`.
    private let condition = ThreadCondition()
    private var jobs: [Job] = []
    private var closed = false
    private var running = 0

    /// Starts `count` threads, each calling `serve` with its number and the next jobs until the
    /// queue is closed and empty. `take` chooses how many of the waiting jobs one call takes (at
    /// least one).
    ///
    /// - Throws: ``SearchlightError/Code/internalError`` when a thread cannot be started; the
    ///   queue is then closed, and the threads started stop.
    func start(
        threads count: Int, name: String, take: @escaping @Sendable ([Job]) -> Int = { _ in 1 },
        serve: @escaping @Sendable (_ thread: Int, [Job]) -> Void
    ) throws(SearchlightError) {
        for number in 0..<count {
            condition.lock()
            running += 1
            condition.unlock()
            do throws(SearchlightError) {
                try OSThread.start(name: "\(name)-\(number + 1)") { [self] in
                    while let batch = next(take) { serve(number, batch) }
                    condition.lock()
                    running -= 1
                    condition.broadcast()
                    condition.unlock()
                }
            } catch {
                condition.lock()
                running -= 1
                condition.unlock()
                close()
                throw error
            }
        }
    }

    /// Adds a job; false once the queue is closed.
    @discardableResult
    func put(_ job: Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return false }
        jobs.append(job)
        condition.signal()
        return true
    }

    /// How many jobs wait for a thread.
    var waiting: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count
    }

    /// Lets the threads finish the jobs waiting, then stop; returns once they have.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    private func next(_ take: ([Job]) -> Int) -> [Job]? {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty, !closed { condition.wait() }
        guard !jobs.isEmpty else { return nil }
        let count = min(jobs.count, max(1, take(jobs)))
        let batch = Array(jobs.prefix(count))
        jobs.removeFirst(count)
        return batch
    }
}
