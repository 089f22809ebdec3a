import Foundation

/// Runs work that blocks on a thread of its own and hands back its result.
///
/// Not a task: with two cores Swift's cooperative pool has two threads, and the tests that run
/// beside one may hold both for seconds; a blocked task would then starve the test that waits for it.
public final class OnThread<Value: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    // Written once by the thread, before `done` is signalled; read after.
    private var result: Result<Value, any Error>?

    public init(_ body: @escaping @Sendable () throws -> Value) {
        Thread { [self] in
            result = Result { try body() }
            done.signal()
        }.start()
    }

    /// Waits for the work to end; returns its value or rethrows its error.
    public func value() throws -> Value {
        done.wait()
        done.signal()
        return try result!.get()
    }
}
