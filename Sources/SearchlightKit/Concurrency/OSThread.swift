import Glibc

/// Threads of the system's own, for Xapian work that blocks: never Swift's cooperative pool.
enum OSThread {
    /// Starts a detached thread named `name` (at most the 15 bytes Linux keeps) that runs `body`.
    ///
    /// - Throws: ``SearchlightError/Code/internalError`` (out of memory) when the system has no
    ///   thread to give.
    static func start(name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void)
        throws(SearchlightError)
    {
        let status = spawn(Body(name: String(name.prefix(15)), run: body), stackSize: stackSize)
        guard status == 0 else {
            throw SearchlightError(
                .internalError, "Cannot start a thread: \(FileSystem.describe(code: status))", failure: .outOfMemory)
        }
    }

    /// Sleeps the calling thread.
    static func sleep(for duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
    }

    /// Creates the detached thread that runs `body`; returns `pthread_create`'s status.
    private static func spawn(_ body: Body, stackSize: Int?) -> Int32 {
        let context = Unmanaged.passRetained(body).toOpaque()
        let attributes = UnsafeMutablePointer<pthread_attr_t>.allocate(capacity: 1)
        defer { attributes.deallocate() }
        pthread_attr_init(attributes)
        defer { pthread_attr_destroy(attributes) }
        if let stackSize { pthread_attr_setstacksize(attributes, stackSize) }
        var thread = pthread_t()
        let status = pthread_create(&thread, attributes, threadEntry, context)
        if status == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<Body>.fromOpaque(context).release()
        }
        return status
    }

    /// What a new thread runs, and the name it goes by.
    fileprivate final class Body {
        let name: String
        let run: @Sendable () -> Void
        init(name: String, run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }
    }

    /// Names the calling thread, as `ps -L` and debuggers show it. (Glibc's `pthread_setname_np`
    /// is not visible to Swift; writing `comm` is what it does.)
    fileprivate static func setName(_ name: String) {
        let file = open("/proc/thread-self/comm", O_WRONLY)
        guard file >= 0 else { return }
        _ = name.withCString { write(file, $0, strlen($0)) }
        close(file)
    }
}

private func threadEntry(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    let body = Unmanaged<OSThread.Body>.fromOpaque(context!).takeRetainedValue()
    OSThread.setName(body.name)
    body.run()
    return nil
}

/// A mutex and a condition variable, for queues whose consumers are threads of their own.
final class ThreadCondition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
    /// Waits for a signal; the mutex must be held, and is held again on return.
    func wait() { pthread_cond_wait(condition, mutex) }
    func signal() { pthread_cond_signal(condition) }
    func broadcast() { pthread_cond_broadcast(condition) }
}
