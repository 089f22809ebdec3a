import FoundationEssentials

/// Work handed from a producing thread to consuming ones, at most `capacity` waiting: decoded
/// pieces of a file, or the units of a bulk build.
final class BoundedQueue<Element: Sendable>: @unchecked Sendable {
    // Every field is guarded by `condition`.
    private let condition = ThreadCondition()
    private var elements: [Element] = []
    private var head = 0
    private let capacity: Int
    private var finished = false
    private var cancelled = false

    init(capacity: Int) { self.capacity = capacity }

    /// Waits for room, then adds an element; returns false once the consumers have gone.
    func put(_ element: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while elements.count - head >= capacity, !cancelled { condition.wait() }
        guard !cancelled else { return false }
        elements.append(element)
        condition.broadcast()
        return true
    }

    /// The next element, or nil when the producer has finished and nothing is left, or the queue
    /// was cancelled.
    func take() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while head == elements.count, !finished, !cancelled { condition.wait() }
        guard head < elements.count, !cancelled else { return nil }
        let element = elements[head]
        head += 1
        if head > 64, head * 2 > elements.count {
            elements.removeFirst(head)
            head = 0
        }
        condition.broadcast()
        return element
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

    func waitUntilFinished() {
        condition.lock()
        while !finished { condition.wait() }
        condition.unlock()
    }
}
