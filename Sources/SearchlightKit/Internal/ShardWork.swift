import Dispatch
import Synchronization

/// Work on every shard of an index at once: one system thread a shard (the calling thread takes
/// the first), since a remote shard's calls block on the network.
enum ShardWork {
    /// Runs `body` for each of `shards` concurrently and returns its results in their order.
    ///
    /// - Throws: the error of the first shard (in their order) that failed, its message naming
    ///   the shard when `names` are given. Every shard's work has ended when this returns.
    static func run<Shard: Sendable, Result: Sendable>(
        _ shards: [Shard], names: [String]?, _ body: @escaping @Sendable (Int, Shard) throws(SearchlightError) -> Result
    ) throws(SearchlightError) -> [Result] {
        guard shards.count > 1 else {
            return [try naming(names?.first) { () throws(SearchlightError) in try body(0, shards[0]) }]
        }
        let outcomes = Mutex([Swift.Result<Result, SearchlightError>?](repeating: nil, count: shards.count))
        let done = DispatchGroup()
        let work = { @Sendable (index: Int) in
            let outcome = Swift.Result { () throws(SearchlightError) in
                try naming(names?[index]) { () throws(SearchlightError) in try body(index, shards[index]) }
            }
            outcomes.withLock { $0[index] = outcome }
        }
        for index in shards.indices.dropFirst() {
            done.enter()
            do throws(SearchlightError) {
                try OSThread.start(name: "shard-\(index + 1)") {
                    work(index)
                    done.leave()
                }
            } catch {
                outcomes.withLock { $0[index] = .failure(error) }
                done.leave()
            }
        }
        work(0)
        done.wait()
        return try outcomes.withLock { $0 }.map { outcome throws(SearchlightError) in try outcome!.get() }
    }

    /// Runs `body`, naming the shard `name` in the message of the error it throws.
    static func naming<Result>(_ name: String?, _ body: () throws(SearchlightError) -> Result)
        throws(SearchlightError) -> Result
    {
        do {
            return try body()
        } catch {
            guard let name, !error.message.contains(name) else { throw error }
            var named = error
            named.message = "Shard \(name): " + error.message
            throw named
        }
    }
}
