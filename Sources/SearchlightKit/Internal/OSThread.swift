#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Threads of the system's own, for Xapian work that blocks: never Swift's cooperative pool.
enum OSThread {
    /// Starts a detached thread named `name` (at most the 15 bytes Linux keeps) that runs `body`.
    ///
    /// - Throws: ``SearchlightError/Code/internalError`` (out of memory) when the system has no
    ///   thread to give.
    static func start(name: String, _ body: @escaping @Sendable () -> Void) throws(SearchlightError) {
        let status = spawn(Body(name: String(name.prefix(15)), run: body))
        guard status == 0 else {
            throw SearchlightError(
                .internalError, "Cannot start a thread: \(String(cString: strerror(status)))", failure: .outOfMemory)
        }
    }

    /// Creates the detached thread that runs `body`; returns `pthread_create`'s status.
    private static func spawn(_ body: Body) -> Int32 {
        let context = Unmanaged.passRetained(body).toOpaque()
        #if canImport(Glibc)
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, threadEntry, context)
        if status == 0 { pthread_detach(thread) }
        #else
        var thread: pthread_t?
        let status = pthread_create(&thread, nil, threadEntry, context)
        if status == 0, let thread { pthread_detach(thread) }
        #endif
        if status != 0 { Unmanaged<Body>.fromOpaque(context).release() }
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
        #if canImport(Glibc)
        let file = open("/proc/thread-self/comm", O_WRONLY)
        guard file >= 0 else { return }
        _ = name.withCString { write(file, $0, strlen($0)) }
        close(file)
        #else
        pthread_setname_np(name)
        #endif
    }
}

#if canImport(Glibc)
private func threadEntry(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    let body = Unmanaged<OSThread.Body>.fromOpaque(context!).takeRetainedValue()
    OSThread.setName(body.name)
    body.run()
    return nil
}
#else
private func threadEntry(_ context: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
    let body = Unmanaged<OSThread.Body>.fromOpaque(context).takeRetainedValue()
    OSThread.setName(body.name)
    body.run()
    return nil
}
#endif
