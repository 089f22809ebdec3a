import Foundation

/// Decoded pieces handed from the reading thread to the indexing one, at most `capacity` waiting.
final class PieceQueue: @unchecked Sendable {
    // Every field is guarded by `condition`.
    private let condition = NSCondition()
    private var pieces: [DecodedInput] = []
    private let capacity: Int
    private var finished = false
    private var cancelled = false

    init(capacity: Int) { self.capacity = capacity }

    /// Waits for room, then adds a piece; returns false once the consumer has gone.
    func put(_ piece: DecodedInput) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while pieces.count >= capacity, !cancelled { condition.wait() }
        guard !cancelled else { return false }
        pieces.append(piece)
        condition.broadcast()
        return true
    }

    /// The next piece, or nil when the producer has finished and nothing is left.
    func take() -> DecodedInput? {
        condition.lock()
        defer { condition.unlock() }
        while pieces.isEmpty, !finished { condition.wait() }
        guard !pieces.isEmpty else { return nil }
        condition.broadcast()
        return pieces.removeFirst()
    }

    /// Called by the producer when it has put its last piece.
    func finish() {
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Called by the consumer when it stops taking: the producer stops at its next piece.
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    func waitUntilFinished() {
        condition.lock()
        while !finished { condition.wait() }
        condition.unlock()
    }
}
