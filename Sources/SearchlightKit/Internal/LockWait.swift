import Foundation
import Synchronization

/// Waits for a database's write lock without polling: Xapian waits in the kernel
/// (`DB_RETRY_LOCK`, an `F_OFD_SETLKW` lock) on a thread of its own, and the caller waits for
/// that thread until its deadline. An open that gets the lock after the caller gave up closes at
/// once, releasing it.
enum LockWait {
    /// Opens `path` for writing, waiting until `deadline` for another writer to finish.
    ///
    /// - Throws: ``SearchlightError/Code/indexLocked`` past the deadline, or whatever opening fails
    ///   with.
    static func open(path: String, layout: IndexLayout, until deadline: ContinuousClock.Instant)
        throws(SearchlightError) -> XapianDatabase
    {
        // Waiting in the kernel (`waitInKernel`) hung once in a fresh-clone run of
        // GenerationTests.waitingWriter, a writer that waited through a compaction; until that is
        // understood, waiting polls, as it did before.
        while true {
            do throws(SearchlightError) {
                return try XapianDatabase(path: path, writable: true, layout: layout)
            } catch SearchlightError.indexLocked where ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
    }

    /// Waits in the kernel on a thread of its own until `deadline` (see the type's summary).
    static func waitInKernel(path: String, layout: IndexLayout, until deadline: ContinuousClock.Instant)
        throws(SearchlightError) -> XapianDatabase
    {
        do throws(SearchlightError) {
            return try XapianDatabase(path: path, writable: true, layout: layout)
        } catch SearchlightError.indexLocked where ContinuousClock.now < deadline {
            // Held by another writer: wait for it below.
        }
        let handoff = Handoff()
        let waiter = Thread {
            let result: Result<XapianDatabase, SearchlightError>
            do throws(SearchlightError) {
                result = .success(try XapianDatabase(path: path, writable: true, layout: layout, waiting: true))
            } catch {
                result = .failure(error)
            }
            handoff.deliver(result)
        }
        waiter.start()
        let remaining = ContinuousClock.now.duration(to: deadline)
        let seconds = Double(remaining.components.seconds) + Double(remaining.components.attoseconds) / 1e18
        _ = handoff.arrived.wait(timeout: .now() + max(0, seconds))
        guard let result = handoff.take() else {
            throw SearchlightError(.indexLocked, "The index at \(path) is locked by another writer", failure: .locked)
        }
        return try result.get()
    }

    /// The waiting thread's result, handed to the caller, or closed when the caller has gone.
    private final class Handoff: Sendable {
        private let state = Mutex<(result: Result<XapianDatabase, SearchlightError>?, abandoned: Bool)>((nil, false))
        let arrived = DispatchSemaphore(value: 0)

        func deliver(_ result: Result<XapianDatabase, SearchlightError>) {
            let keep = state.withLock { state in
                guard !state.abandoned else { return false }
                state.result = result
                return true
            }
            if keep {
                arrived.signal()
            } else if case .success(let database) = result {
                try? database.close()
            }
        }

        /// The result if it has arrived; otherwise the caller gives up, and a later result is closed.
        func take() -> Result<XapianDatabase, SearchlightError>? {
            state.withLock { state in
                if state.result == nil { state.abandoned = true }
                return state.result
            }
        }
    }
}
