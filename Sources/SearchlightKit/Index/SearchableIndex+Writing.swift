import FoundationEssentials
import Synchronization

// The write API: every method one transaction, over one index or every shard of a topology.

extension SearchableIndex {
    /// Runs several writes as one transaction: all of them are committed together, or none.
    ///
    /// ```swift
    /// let (report, removal) = try index.performBatch { batch in
    ///     (try batch.indexSearchableItems(fresh), try batch.deleteSearchableItems(withIdentifiers: stale))
    /// }
    /// ```
    ///
    /// - Throws: the first error of `body` (the transaction is then abandoned), or
    ///   ``SearchlightError/Code/writeFailed`` when the commit fails.
    public func performBatch<T: Sendable>(_ body: (IndexTransaction) throws(SearchlightError) -> T)
        throws(SearchlightError) -> T
    {
        guard isWritable else {
            throw SearchlightError(.invalidArgument, "The index at \(path) was opened read-only")
        }
        if let topology {
            return try shardWriters.withLock { writers throws(SearchlightError) in
                var retried = false
                while true {
                    try Self.reconnect(&writers, topology)
                    var committing = false
                    do throws(SearchlightError) {
                        let current = writers
                        return try Self.shardedTransaction(current, topology, committing: &committing) {
                            () throws(SearchlightError) in
                            try body(IndexTransaction(shards: current, topology: topology))
                        }
                    } catch  where error.failure == .network {
                        // Which connection broke is not said: every remote one is opened afresh.
                        for (writer, shard) in zip(writers, topology.shards) {
                            if case .remote = shard { try? writer.close() }
                        }
                        // A connection its server closed (xapian-tcpsrv closes one idle for 60 s)
                        // fails before anything is committed: the batch runs once more, on new ones.
                        guard !committing, !retried else { throw error }
                        retried = true
                    }
                }
            }
        }
        return try database.withLock { database throws(SearchlightError) in
            do {
                return try database.transaction { try body(IndexTransaction(database: database)) }
            } catch let error as SearchlightError {
                throw error
            } catch {
                throw SearchlightError(.internalError, "\(error)")
            }
        }
    }

    /// Runs `body` in one transaction on each shard, then commits the shards concurrently, each on
    /// its own: a shard has all of the batch's writes to it, or none. When some shard's commit
    /// fails, the others' stand, and the error names the shards that did not commit; the same
    /// batch run again converges, since upserts replace and unchanged items are skipped.
    static func shardedTransaction<T>(
        _ writers: [XapianDatabase], _ topology: Topology, committing: inout Bool,
        _ body: () throws(SearchlightError) -> T
    ) throws(SearchlightError) -> T {
        var begun: [XapianDatabase] = []
        let result: T
        do throws(SearchlightError) {
            for (writer, shard) in zip(writers, topology.shards) {
                try ParallelWork.naming(shard.name) { () throws(SearchlightError) in try writer.begin() }
                begun.append(writer)
            }
            result = try body()
        } catch {
            for writer in begun { writer.cancel() }
            throw error
        }
        committing = true
        let outcomes = ParallelWork.outcomes(writers, names: topology.shards.map(\.name)) {
            _, writer throws(SearchlightError) in try writer.commit()
        }
        let failed = outcomes.indices.filter { if case .failure = outcomes[$0] { true } else { false } }
        guard let first = failed.first, case .failure(var error) = outcomes[first] else { return result }
        if failed.count < writers.count {
            let committed = outcomes.indices.filter { !failed.contains($0) }.map { topology.shards[$0].name }
            error.message +=
                "; nothing of this batch was committed there, and the other shards (\(committed.joined(separator: ", "))) "
                + "committed theirs: run the same command again to complete it"
        }
        throw error
    }

    /// Indexes items (Core Spotlight's `indexSearchableItems`): one transaction, upserting by
    /// (domain, identifier). An item already expired at `now` is not stored and removes any stored
    /// version.
    @discardableResult
    public func indexSearchableItems(_ items: [SearchableItem], now: Int64 = currentTime()) throws(SearchlightError)
        -> IndexingReport
    {
        try performBatch { batch throws(SearchlightError) in try batch.indexSearchableItems(items, now: now) }
    }

    /// Indexes decoded input files in one transaction: each file's accepted items are all stored
    /// or none; rejected items and files are reported, never stored, and never stop the others.
    /// With `strict`, any rejection rejects everything: nothing is written.
    public func index(
        _ inputs: [DecodedInput], options: IndexingOptions, strict: Bool = false, now: Int64 = currentTime()
    ) throws(SearchlightError) -> IndexingReport {
        try performBatch { batch throws(SearchlightError) in
            try batch.index(inputs, options: options, strict: strict, now: now)
        }
    }

    /// Removes items of a domain by identifier (Core Spotlight's
    /// `deleteSearchableItems(withIdentifiers:)`). Public items are refused with code 1014 unless
    /// `includePublic` is set; unknown identifiers are reported, not errors (removal is idempotent).
    ///
    /// - Throws: ``SearchlightError/Code/removalWithoutIdentifier`` (1013) when `identifiers` is empty.
    public func deleteSearchableItems(
        withIdentifiers identifiers: [String], domainIdentifier: String = SearchableItem.defaultDomain,
        includePublic: Bool = false
    ) throws(SearchlightError) -> RemovalReport {
        try performBatch { batch throws(SearchlightError) in
            try batch.deleteSearchableItems(
                withIdentifiers: identifiers, domainIdentifier: domainIdentifier, includePublic: includePublic)
        }
    }

    /// Records one view of each identified item (the Branch SDK's view events): the domain's own
    /// item, or a public item of any domain, that has not expired at `now`. Views are a ranking
    /// hint (README, *Ranking*); they survive re-indexing the item and go with it when it is
    /// removed. Unknown or invisible items are reported, not created. A Branch link names the item
    /// its data names.
    ///
    /// - Throws: ``SearchlightError/Code/invalidArgument`` when `identifiers` is empty.
    public func recordViews(
        withIdentifiers identifiers: [String], domainIdentifier: String = SearchableItem.defaultDomain,
        now: Int64 = currentTime()
    ) throws(SearchlightError) -> ViewReport {
        try performBatch { batch throws(SearchlightError) in
            try batch.recordViews(withIdentifiers: identifiers, domainIdentifier: domainIdentifier, now: now)
        }
    }

    /// Removes every private item of the domains, and of the domains below them on dot-separated
    /// components (Core Spotlight's `deleteSearchableItems(withDomainIdentifiers:)`): `com.example`
    /// covers `com.example.shop`. Public items stay unless `includePublic` is set.
    ///
    /// - Returns: the number of items removed.
    @discardableResult
    public func deleteSearchableItems(withDomainIdentifiers domains: [String], includePublic: Bool = false)
        throws(SearchlightError) -> Int
    {
        try performBatch { batch throws(SearchlightError) in
            try batch.deleteSearchableItems(withDomainIdentifiers: domains, includePublic: includePublic)
        }
    }
}
