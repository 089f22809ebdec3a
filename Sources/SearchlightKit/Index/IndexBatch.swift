public import FoundationEssentials
import Synchronization

/// A batch of writes to one domain, committed together with a client state: Core Spotlight's
/// `beginIndexBatch()` … `endIndexBatch(expectedClientState:newClientState:)`.
///
/// As in Core Spotlight, the calls between the beginning and the end are kept by the batch, and
/// ``endIndexBatch(expectedClientState:newClientState:now:)`` commits them in one transaction with
/// the new state, or, when the stored state is not the expected one, commits nothing. An app that
/// crashed reads ``SearchableIndex/fetchLastClientState(domainIdentifier:)`` and resumes after the
/// batch it names: the state read back always names exactly what is indexed.
///
/// ```swift
/// let last = try index.fetchLastClientState(domainIdentifier: "com.example.shop")
/// for page in catalogue.pages(after: last) {
///     let batch = index.beginIndexBatch(domainIdentifier: "com.example.shop")
///     batch.indexSearchableItems(page.items)
///     batch.deleteSearchableItems(withIdentifiers: page.removed)
///     try batch.endIndexBatch(expectedClientState: last, newClientState: page.token)
///     last = page.token
/// }
/// ```
public final class IndexBatch: Sendable {
    /// The domain whose items the batch writes and whose client state it commits.
    public let domainIdentifier: String
    private let index: SearchableIndex
    private let state = Mutex(State())

    private struct State {
        var writes: [Write] = []
        var ended = false
    }

    private enum Write {
        case index([SearchableItem])
        case delete([String])
    }

    init(index: SearchableIndex, domainIdentifier: String) {
        self.index = index
        self.domainIdentifier = domainIdentifier
    }

    /// Adds items to index with the batch; each must be of the batch's domain.
    public func indexSearchableItems(_ items: [SearchableItem]) {
        state.withLock { $0.writes.append(.index(items)) }
    }

    /// Adds private items of the batch's domain to remove with the batch, by identifier.
    public func deleteSearchableItems(withIdentifiers identifiers: [String]) {
        state.withLock { $0.writes.append(.delete(identifiers)) }
    }

    /// Commits the batch's writes and `newClientState` in one transaction, only if the domain's
    /// stored state is `expectedClientState` (`nil`: none stored yet).
    ///
    /// - Throws: ``SearchlightError/Code/clientStateMismatch`` when another state is stored
    ///   (nothing is committed, and the batch may be ended again with the right expectation);
    ///   ``SearchlightError/Code/invalidArgument`` for an item of another domain, a batch already
    ///   ended, or a state of no bytes or more than ``ClientStateUpdate/maximumSize``; what a write
    ///   throws (nothing is then committed).
    @discardableResult
    public func endIndexBatch(
        expectedClientState: Data?, newClientState: Data, now: Int64 = SearchableIndex.currentTime()
    ) throws(SearchlightError) -> IndexBatchReport {
        try end(
            ClientStateUpdate(
                domainIdentifier: domainIdentifier, newState: newClientState,
                condition: .expecting(expectedClientState)), now: now)
    }

    /// Commits the batch's writes and `clientState` in one transaction, whatever state is stored.
    ///
    /// - Throws: as ``endIndexBatch(expectedClientState:newClientState:now:)``, but for the
    ///   mismatch.
    @discardableResult
    public func endIndexBatch(clientState: Data, now: Int64 = SearchableIndex.currentTime()) throws(SearchlightError)
        -> IndexBatchReport
    {
        try end(ClientStateUpdate(domainIdentifier: domainIdentifier, newState: clientState), now: now)
    }

    private func end(_ update: ClientStateUpdate, now: Int64) throws(SearchlightError) -> IndexBatchReport {
        try update.validate()
        let writes = try state.withLock { state throws(SearchlightError) in
            guard !state.ended else {
                throw SearchlightError(
                    .invalidArgument, "This batch of domain \(domainIdentifier) has ended already; begin another")
            }
            return state.writes
        }
        for case .index(let items) in writes {
            if let other = items.first(where: { $0.domainIdentifier != domainIdentifier }) {
                throw SearchlightError(
                    .invalidArgument,
                    "Item \(quoted(other.uniqueIdentifier)) is of domain \(other.domainIdentifier), and a batch of "
                        + "domain \(domainIdentifier) writes only its own domain's items")
            }
        }
        let report = try index.performBatch { batch throws(SearchlightError) in
            try batch.updateClientState(update)
            var report = IndexBatchReport()
            for write in writes {
                switch write {
                case .index(let items):
                    report.indexing.merge(try batch.indexSearchableItems(items, now: now))
                case .delete(let identifiers):
                    report.removal.merge(
                        try batch.deleteSearchableItems(
                            withIdentifiers: identifiers, domainIdentifier: domainIdentifier))
                }
            }
            return report
        }
        state.withLock { $0.ended = true }
        return report
    }
}

/// What a batch ended with a client state did: its items indexed and removed.
public struct IndexBatchReport: Sendable, Hashable, Codable {
    public var indexing = IndexingReport()
    public var removal = RemovalReport()

    public init() {}
}

extension SearchableIndex {
    /// Begins a batch of writes to a domain, to be committed with a client state (Core Spotlight's
    /// `beginIndexBatch()`); see ``IndexBatch``.
    public func beginIndexBatch(domainIdentifier: String = SearchableItem.defaultDomain) -> IndexBatch {
        IndexBatch(index: self, domainIdentifier: domainIdentifier)
    }

    /// Whether the index at `path` is a topology whose last writer stopped between journaling a
    /// batch and committing it on every shard (its journal): the next writer to open it
    /// completes the batch, client state included, and readers meanwhile may wait for its shards
    /// to agree. A reader of client states opens such an index for writing, to read the state of
    /// the batch it completes.
    public static func hasUnfinishedBatch(at path: String) throws(SearchlightError) -> Bool {
        guard let topology = try Topology.read(path) else { return false }
        return FileSystem.kind(atPath: BatchJournal.path(of: topology)) != nil
    }

    /// The client state committed with the domain's last batch (Core Spotlight's
    /// `fetchLastClientState`), `nil` before its first: an app that crashed resumes after the
    /// batch it names.
    ///
    /// - Throws: ``SearchlightError/Code/invalidArgument`` for a domain that is not valid.
    public func fetchLastClientState(domainIdentifier: String = SearchableItem.defaultDomain) throws(SearchlightError)
        -> Data?
    {
        try SearchableItem.validateDomain(domainIdentifier)
        let key = ClientStateUpdate.key(for: domainIdentifier)
        let record = try read { database throws(SearchlightError) in
            // A view of shards reads the batch every shard holds, and every batch writes the state
            // to every shard.
            topology == nil ? try database.metadata(key) : try database.shardMetadata(key).first ?? ""
        }
        return ClientStateUpdate.decode(record)
    }
}
