import Synchronization

/// Lets each caller have at most `limit` reads in the reader pool at once; a caller's further
/// reads wait, in order, for one of its own to finish. One caller's heavy queries then hold at
/// most `limit` readers, and every other caller's searches find the rest free.
final class CallerGate: Sendable {
    private struct Entry {
        var running = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let limit: Int
    private let entries = Mutex<[String: Entry]>([:])

    init(limit: Int) { self.limit = max(1, limit) }

    /// Returns once `caller` may start a read.
    func enter(_ caller: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = entries.withLock { entries in
                var entry = entries[caller, default: Entry()]
                defer { entries[caller] = entry }
                guard entry.running < limit else {
                    entry.waiting.append(continuation)
                    return false
                }
                entry.running += 1
                return true
            }
            if admitted { continuation.resume() }
        }
    }

    /// Ends one of `caller`'s reads, starting its next waiting one.
    func leave(_ caller: String) {
        let next = entries.withLock { entries -> CheckedContinuation<Void, Never>? in
            guard var entry = entries[caller] else { return nil }
            if !entry.waiting.isEmpty {
                let next = entry.waiting.removeFirst()
                entries[caller] = entry
                return next
            }
            entry.running -= 1
            entries[caller] = entry.running == 0 ? nil : entry
            return nil
        }
        next?.resume()
    }
}
