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
                // A batch an earlier commit left on some shards only is completed first.
                let last = try Self.completeJournaledBatch(&writers, topology)
                return try Self.shardedTransaction(writers, topology, batch: last + 1) {
                    journal throws(SearchlightError) in
                    try body(IndexTransaction(shards: writers, topology: topology, journal: journal))
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

    /// Runs `body` in one transaction on each shard, journals what it wrote (``BatchJournal``),
    /// and commits the shards concurrently, each with the number `batch`, then removes the journal.
    /// A batch that wrote nothing commits nothing.
    ///
    /// - Throws: the first error of `body` (every shard's transaction is then abandoned); when a
    ///   shard fails to commit, its error naming it: the batch stays journaled, and the next write
    ///   (or the next writer to open the topology) completes it on the shards that did not commit.
    static func shardedTransaction<T>(
        _ writers: [XapianDatabase], _ topology: Topology, batch: UInt64,
        _ body: (ShardJournal) throws(SearchlightError) -> T
    ) throws(SearchlightError) -> T {
        var begun: [XapianDatabase] = []
        let journal = ShardJournal(shards: writers.count)
        let result: T
        do throws(SearchlightError) {
            for (writer, shard) in zip(writers, topology.shards) {
                try ParallelWork.naming(shard.name) { () throws(SearchlightError) in try writer.begin() }
                begun.append(writer)
            }
            result = try body(journal)
            let writes = journal.recorded
            guard writes.contains(where: { !$0.isEmpty }) else {
                for writer in begun { writer.cancel() }
                return result
            }
            for writer in writers { try writer.setMetadata(BatchJournal.batchKey, String(batch)) }
            try BatchJournal(batch: batch, writes: writes).save(for: topology)
        } catch {
            for writer in begun { writer.cancel() }
            throw error
        }
        let outcomes = ParallelWork.outcomes(writers, names: topology.shards.map(\.name)) {
            _, writer throws(SearchlightError) in try writer.commit()
        }
        for case .failure(var error) in outcomes {
            error.message +=
                "; the batch is journaled in \(BatchJournal.path(of: topology)), and the next write to the index "
                + "completes it on every shard that did not commit it"
            throw error
        }
        BatchJournal.remove(for: topology)
        return result
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
    /// With `strict`, any rejection rejects everything: nothing is written. With `clientState`,
    /// its state is committed with the items (``ClientStateUpdate``), or, when its condition
    /// fails, nothing is.
    public func index(
        _ inputs: [DecodedInput], options: IndexingOptions, strict: Bool = false,
        clientState: ClientStateUpdate? = nil, now: Int64 = currentTime()
    ) throws(SearchlightError) -> IndexingReport {
        try performBatch { batch throws(SearchlightError) in
            try batch.index(inputs, options: options, strict: strict, clientState: clientState, now: now)
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
