import Dispatch
import Glibc
import Synchronization

/// The lock every Searchlight writer of an index folder holds: an exclusive `flock` on the file
/// `writer.lock` in it, taken before Xapian's own lock and kept until the writer closes.
///
/// One lock for the whole folder designs out the generation race: no other Searchlight writer can
/// publish a generation while this one waits, so the generation it then opens is current. It also
/// lets a writer wait in the kernel rather than poll: `flock` blocks until the holder lets go or
/// exits. The file is never deleted, since another process may hold it.
final class FolderLock: Sendable {
    static let fileName = "writer.lock"

    // Guarded by `released`: set once, by whoever releases first.
    private let descriptor: Int32
    private let released = Atomic<Bool>(false)

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        release()
    }

    /// Lets go of the lock (closing its descriptor). Safe to call more than once.
    func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Glibc.close(descriptor)
    }

    /// Takes the lock of `folder`, waiting in the kernel until `deadline` for another writer.
    ///
    /// The wait blocks a thread of its own, so that the caller can give up at the deadline; a lock
    /// granted after the caller gave up is let go at once.
    ///
    /// - Throws: ``SearchlightError/Code/indexLocked`` past the deadline,
    ///   ``SearchlightError/Code/indexUnavailable`` when the lock file cannot be opened.
    static func acquire(folder: String, until deadline: ContinuousClock.Instant) throws(SearchlightError) -> FolderLock
    {
        let file = folder + "/" + fileName
        let descriptor = Glibc.open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw SearchlightError(
                .indexUnavailable, "Cannot open the lock file \(file): \(FileSystem.lastError())",
                failure: .notOpenable)
        }
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return FolderLock(descriptor: descriptor) }
        guard errno == EWOULDBLOCK else {
            let reason = FileSystem.lastError()
            Glibc.close(descriptor)
            throw SearchlightError(.indexUnavailable, "Cannot lock \(file): \(reason)", failure: .notOpenable)
        }
        let waiter = Waiter(descriptor: descriptor)
        do throws(SearchlightError) {
            try OSThread.start(name: "lock-wait") { waiter.wait() }
        } catch {
            Glibc.close(descriptor)
            throw error
        }
        switch waiter.result(until: deadline) {
        case .granted:
            return FolderLock(descriptor: descriptor)
        case .failed(let code):
            throw SearchlightError(
                .indexUnavailable, "Cannot lock \(file): \(FileSystem.describe(code: code))", failure: .notOpenable)
        case .waiting, .abandoned:
            throw SearchlightError(.indexLocked, "The index at \(folder) is locked by another writer", failure: .locked)
        }
    }

    /// A blocking `flock` on a thread of its own, and its outcome handed to the caller, or let go
    /// of when the caller has stopped waiting.
    private final class Waiter: Sendable {
        enum State: Equatable { case waiting, granted, failed(Int32), abandoned }
        private let descriptor: Int32
        private let state = Mutex(State.waiting)
        private let arrived = DispatchSemaphore(value: 0)

        init(descriptor: Int32) {
            self.descriptor = descriptor
        }

        /// Blocks until the lock is granted (retrying when a signal interrupts the wait) or fails.
        func wait() {
            var outcome = State.granted
            while flock(descriptor, LOCK_EX) != 0 {
                guard errno == EINTR else {
                    outcome = .failed(errno)
                    break
                }
            }
            let delivered = state.withLock { state in
                guard state == .waiting else { return false }
                state = outcome
                return true
            }
            if delivered { arrived.signal() } else { Glibc.close(descriptor) }
        }

        /// What happened by `deadline`: granted or failed (the caller then owns the descriptor),
        /// or still waiting, and then abandoned: the waiting thread closes the descriptor, letting
        /// go of a lock granted later.
        func result(until deadline: ContinuousClock.Instant) -> State {
            // Dispatch's timer may end a wait a moment before the deadline: waited again for the rest.
            while arrived.wait(timeout: .now() + ContinuousClock.now.duration(to: deadline).timeInterval) == .timedOut,
                ContinuousClock.now < deadline
            {}
            let outcome = state.withLock { state in
                if state == .waiting { state = .abandoned }
                return state
            }
            if case .failed = outcome { Glibc.close(descriptor) }
            return outcome
        }
    }
}
