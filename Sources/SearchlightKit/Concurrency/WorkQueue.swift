/// Work handed to threads of their own: the pieces a reading thread decodes for a bulk build's
/// segment builders or a transaction's documents built a step ahead of its writer (bounded, so that
/// the producer stays a few pieces ahead), or an index pool's reads and writes (unbounded, so that
/// a request never blocks the thread that submits it).
///
/// A queue ends when its producer finishes it (consumers take what is left, then stop) or when
/// either side cancels it (both stop at their next call).
final class WorkQueue<Element: Sendable>: @unchecked Sendable {
    // Every field is guarded by `condition`.
    private let condition = ThreadCondition()
    private var elements: [Element] = []
    private var head = 0
    private let capacity: Int
    private var finished = false
    private var cancelled = false
    private var serving = 0

    /// A queue holding at most `capacity` elements waiting; a producer past it waits for room.
    init(capacity: Int = .max) { self.capacity = max(1, capacity) }

    /// Waits for room, then adds an element; returns false once the queue has ended.
    @discardableResult
    func put(_ element: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while waitingCount >= capacity, !cancelled, !finished { condition.wait() }
        guard !cancelled, !finished else { return false }
        elements.append(element)
        condition.broadcast()
        return true
    }

    /// The next element, or nil once the queue has ended and nothing is left to take.
    func take() -> Element? { take { _ in 1 }?.first }

    /// The next elements, as many of those waiting as `count` chooses (at least one), or nil once
    /// the queue has ended and nothing is left to take.
    func take(_ count: ([Element].SubSequence) -> Int) -> [Element]? {
        condition.lock()
        defer { condition.unlock() }
        while waitingCount == 0, !finished, !cancelled { condition.wait() }
        guard waitingCount > 0, !cancelled else { return nil }
        let taken = min(waitingCount, max(1, count(elements[head...])))
        let batch = Array(elements[head..<head + taken])
        head += taken
        if head > 64, head * 2 > elements.count {
            elements.removeFirst(head)
            head = 0
        }
        condition.broadcast()
        return batch
    }

    /// How many elements wait to be taken.
    var waiting: Int {
        condition.lock()
        defer { condition.unlock() }
        return waitingCount
    }

    /// Called by the producer when it has put its last element.
    func finish() {
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Stops both sides: the producer at its next `put`, the consumers at their next `take`.
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }

    /// Returns once the producer has finished the queue.
    func waitUntilFinished() {
        condition.lock()
        while !finished { condition.wait() }
        condition.unlock()
    }

    /// Starts `threads` consumer threads, each calling `body` with its number and the elements it
    /// takes (as many as `count` chooses) until the queue ends.
    ///
    /// - Throws: ``SearchlightError/Code/internalError`` when a thread cannot be started; the
    ///   queue is then cancelled, and the threads started stop.
    func serve(
        threads: Int, name: String, stackSize: Int? = nil,
        taking count: @escaping @Sendable ([Element].SubSequence) -> Int = { _ in 1 },
        _ body: @escaping @Sendable (_ thread: Int, [Element]) -> Void
    ) throws(SearchlightError) {
        for number in 0..<threads {
            condition.lock()
            serving += 1
            condition.unlock()
            do throws(SearchlightError) {
                try OSThread.start(name: "\(name)-\(number + 1)", stackSize: stackSize) { [self] in
                    while let batch = take(count) { body(number, batch) }
                    condition.lock()
                    serving -= 1
                    condition.broadcast()
                    condition.unlock()
                }
            } catch {
                condition.lock()
                serving -= 1
                condition.unlock()
                cancel()
                throw error
            }
        }
    }

    /// Returns once every thread `serve` started has stopped.
    func waitUntilServed() {
        condition.lock()
        while serving > 0 { condition.wait() }
        condition.unlock()
    }

    /// Lets the consumer threads take what is waiting, then stop; returns once they have.
    func close() {
        finish()
        waitUntilServed()
    }

    private var waitingCount: Int { elements.count - head }
}
