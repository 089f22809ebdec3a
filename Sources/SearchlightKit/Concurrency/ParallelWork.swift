import Dispatch
import Synchronization

/// Work on several databases at once, each on a system thread of its own (the calling thread takes
/// the first): every shard of a topology, whose remote calls block on the network, or every
/// segment of a bulk build copying its survivors, as ``CoreBudget`` gives them threads.
enum ParallelWork {
    /// Runs `body` for each of `shards` concurrently and returns its results in their order.
    ///
    /// - Throws: the error of the first shard (in their order) that failed, its message naming
    ///   the shard when `names` are given. Every shard's work has ended when this returns.
    static func run<Shard: Sendable, Result: Sendable>(
        _ shards: [Shard], names: [String]?, _ body: @escaping @Sendable (Int, Shard) throws(SearchlightError) -> Result
    ) throws(SearchlightError) -> [Result] {
        try outcomes(shards, names: names, body).map { outcome throws(SearchlightError) in try outcome.get() }
    }

    /// Runs `body` for each of `shards` concurrently and returns each shard's outcome in their
    /// order, an error's message naming its shard when `names` are given: for work whose
    /// successes matter when another shard fails (handles to close, commits that stand).
    static func outcomes<Shard: Sendable, Result: Sendable>(
        _ shards: [Shard], names: [String]?, _ body: @escaping @Sendable (Int, Shard) throws(SearchlightError) -> Result
    ) -> [Swift.Result<Result, SearchlightError>] {
        let work = { @Sendable (index: Int) in
            Swift.Result { () throws(SearchlightError) in
                try naming(names?[index]) { () throws(SearchlightError) in try body(index, shards[index]) }
            }
        }
        guard shards.count > 1 else { return shards.isEmpty ? [] : [work(0)] }
        let outcomes = Mutex([Swift.Result<Result, SearchlightError>?](repeating: nil, count: shards.count))
        let done = DispatchGroup()
        for index in shards.indices.dropFirst() {
            done.enter()
            do throws(SearchlightError) {
                try OSThread.start(name: "parallel-\(index + 1)") {
                    let outcome = work(index)
                    outcomes.withLock { $0[index] = outcome }
                    done.leave()
                }
            } catch {
                outcomes.withLock { $0[index] = .failure(error) }
                done.leave()
            }
        }
        let first = work(0)
        outcomes.withLock { $0[0] = first }
        done.wait()
        return outcomes.withLock { $0 }.map { $0! }
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
