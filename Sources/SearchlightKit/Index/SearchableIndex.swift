import FoundationEssentials
import Synchronization

/// A Searchlight index: a Xapian database of ``SearchableItem``s, with Core Spotlight's
/// vocabulary.
///
/// Every write method is one transaction: all of it is committed, or none of it (even if the
/// process is killed). Only one process may write an index at a time; a second writer waits up to
/// its lock timeout and then fails with ``SearchlightError/Code/indexLocked``. Readers always see
/// a committed state.
///
/// ```swift
/// let index = try SearchableIndex(path: "/tmp/index", access: .readWrite(lockTimeout: .seconds(10)))
/// var object = BranchUniversalObject(canonicalIdentifier: "article/1")
/// object.title = "Deep linking explained"
/// try index.indexSearchableItems([SearchableItem(object: object, domainIdentifier: "com.example.blog")])
/// let results = try index.search(SearchQuery("deep link", domainIdentifier: "com.example.blog"))
/// try index.close()
/// ```
public final class SearchableIndex: Sendable {
    /// How an index is opened.
    public enum Access: Sendable, Hashable {
        /// Read-only. Any path Xapian opens works, including a stub database file listing several
        /// shards, or a `remote` line naming an `xapian-tcpsrv`.
        case readOnly
        /// Read-write, creating the index (and its parent folders) when missing. Waits up to
        /// `lockTimeout` for another writer to finish.
        case readWrite(lockTimeout: Duration)
    }

    /// The index's path.
    public let path: String
    public let isWritable: Bool
    /// The database reads go through: the index's own, or every shard's at once for a topology.
    let database: Mutex<XapianDatabase>
    /// The shards, when `path` is a topology file (``Topology``).
    let topology: Topology?

    /// Whether the index is made of shards (a topology file).
    public var isMadeOfShards: Bool { topology != nil }
    /// Whether a shard is read through a shard server (a `remote` line of its topology): such an
    /// index is searched by words alone, and its vectors of meaning are made by its writer.
    public var readsShardServers: Bool { topology?.readsShardServers ?? false }
    /// A writer's handles on each shard of its topology, in its order; empty otherwise.
    let shardWriters: Mutex<[XapianDatabase]>
    /// For a topology: a second view of its shards, which becomes the view read once its shards
    /// all hold a newer batch (``refresh(_:)``). Locked inside `database`'s lock.
    let spare = Mutex(SpareView())

    struct SpareView {
        var view: XapianDatabase?
        /// Whether its shards held different batches when last looked at.
        var mixed = false
        var opened = ContinuousClock.now

        /// Whether to open it afresh rather than reopen it: its shards held different batches, or
        /// it is ``freshness`` old. A shard server's connection reopens the database it opened,
        /// never the new copy a replica of a new generation switches to; a new connection does.
        var isStale: Bool { view == nil || mixed || ContinuousClock.now - opened > Self.freshness }

        static let freshness = Duration.seconds(5)
    }
    /// What opening for writing rebuilt into the current index format: the index, or the local
    /// shards of its topology, that were in an earlier one (``FormatUpgrade``). Empty otherwise.
    public let formatUpgrades: [FormatUpgrade]
    /// Whether searches keep what they learn of the items' fields in memory: each counted field
    /// (``SearchQuery/facets``) as a column, each number a page is sorted by as its ranks
    /// (docs/design.md, *Attributes in values*). Set for a handle that searches again and again,
    /// as ``IndexPool``'s readers do.
    public let keepsFieldsInMemory: Bool

    /// Opens the index at `path`.
    ///
    /// - Throws: ``SearchlightError/Code/indexUnavailable`` (1010) when it cannot be opened or
    ///   created, ``SearchlightError/Code/indexLocked`` when another writer holds it past the
    ///   timeout.
    ///
    /// With `keepsFieldsInMemory`, a read-only handle on one database counts each field from a
    /// column it keeps in memory (4 bytes an item for a text, 8 for a number), and sorts a page
    /// by a number over only the matches whose value can reach it, knowing the number's values at
    /// 4,097 even ranks. Both are for the revision the handle reads, shared with every handle of
    /// the process on the same index, and built the first time a field is counted or sorted by
    /// at a revision, at a few times the cost of one count or sort. A handle that searches again
    /// and again (a service's reader) gains; one that searches once does not.
    public init(path: String, access: Access, keepsFieldsInMemory: Bool = false) throws(SearchlightError) {
        self.path = path
        self.keepsFieldsInMemory = keepsFieldsInMemory
        let topology = try Topology.read(path)
        self.topology = topology
        switch access {
        case .readOnly:
            guard FileManager.default.fileExists(atPath: path) else {
                throw SearchlightError(.indexUnavailable, "There is no index at \(path)", failure: .notFound)
            }
            isWritable = false
            shardWriters = Mutex([])
            formatUpgrades = []
            do throws(SearchlightError) {
                database = Mutex(try Self.openReader(path: path, topology: topology))
            } catch {
                throw Self.naming(unreachableShardOf: topology, in: error)
            }
        case .readWrite(let lockTimeout):
            isWritable = true
            guard let topology else {
                shardWriters = Mutex([])
                var writer = try Self.openWriter(path: path, lockTimeout: lockTimeout)
                formatUpgrades = try Self.upgradeIfOlder(path: path, writer: &writer).map { [$0] } ?? []
                database = Mutex(writer)
                return
            }
            // The shards first: they create the folders that the combined reader opens.
            let (writers, upgrades) = try Self.openShardWriters(topology, lockTimeout: lockTimeout)
            shardWriters = Mutex(writers)
            formatUpgrades = upgrades
            do throws(SearchlightError) {
                database = Mutex(try Self.openReader(path: path, topology: topology))
            } catch {
                for writer in writers { try? writer.close() }
                throw Self.naming(unreachableShardOf: topology, in: error)
            }
        }
    }

    /// The current time in epoch milliseconds.
    public static func currentTime() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded())
    }

    /// The number of the generation the index's folder names as current: it grows by one with each
    /// bulk build that merges and each compaction. `nil` for an index in the first layout (one
    /// database, never rebuilt), a replica, or a topology.
    public var generation: Int? { topology == nil ? IndexLayout.read(path).generation : nil }

    /// Closes the index. Reports Xapian's failures, which its destructor would swallow.
    public func close() throws(SearchlightError) {
        var failure: SearchlightError?
        shardWriters.withLock { writers in
            for writer in writers {
                do throws(SearchlightError) { try writer.close() } catch { failure = failure ?? error }
            }
        }
        try database.withLock { database throws(SearchlightError) in try database.close() }
        spare.withLock { spare in try? spare.view?.close() }
        if let failure { throw failure }
    }

    /// Runs a read at the latest committed revision. A reader follows a new generation by
    /// opening it from the path; if the generation it had open goes away under it, it opens the
    /// current one and reads again.
    func read<T: Sendable>(_ body: (XapianDatabase) throws(SearchlightError) -> T) throws(SearchlightError)
        -> T
    {
        do throws(SearchlightError) {
            return try database.withLock { database throws(SearchlightError) in
                guard !database.isWritable else { return try body(database) }
                do throws(SearchlightError) {
                    try refresh(&database)
                    return try body(database)
                } catch  where isSuperseded(database) {
                    try refresh(&database)
                    return try body(database)
                } catch  where error.failure == .network && topology != nil {
                    // A shard's connection is gone for good; its server may be back (restarted).
                    database = try Self.openReader(path: path, topology: topology)
                    return try body(database)
                } catch  where Self.isMovedOn(error) && topology != nil {
                    // The shards moved on by more than a commit while the spare view found them
                    // holding different batches, or a shard machine's replica switched to a new
                    // copy under the view: a view of one batch is waited for, opened afresh
                    // `movingPause` apart for up to `remoteTimeout`, as a replica may switch again meanwhile or
                    // apply the changesets it is catching up with one after another.
                    let deadline = ContinuousClock.now.advanced(by: Self.remoteTimeout)
                    while true {
                        do throws(SearchlightError) {
                            database = try Self.openReader(path: path, topology: topology)
                            return try body(database)
                        } catch  where Self.isMovedOn(error) && ContinuousClock.now < deadline {
                            OSThread.sleep(for: Self.movingPause)
                        }
                    }
                }
            }
        } catch {
            throw Self.naming(unreachableShardOf: topology, in: error)
        }
    }

    /// Whether a topology's read failed because its shards moved on under its view (a batch more
    /// than a commit ahead, or a replica switched to a new copy).
    static func isMovedOn(_ error: SearchlightError) -> Bool {
        error.failure == .modified || error.failure == .notOpenable
    }

    /// Brings a reader to the latest commit: the current generation, opened from the path when the
    /// stub has changed, else its own database reopened. A topology's view moves only to a batch
    /// that every shard holds (``moveView(_:_:)``).
    func refresh(_ database: inout XapianDatabase) throws(SearchlightError) {
        guard !database.isWritable else { return }
        if let topology { return moveView(&database, topology) }
        if isSuperseded(database) {
            database = try Self.openReader(path: path, topology: topology)
        } else {
            try database.reopen()
        }
    }

    /// Moves a topology's view to the shards' latest batch when every shard holds it. The spare
    /// view is brought to each shard's latest revision (opened afresh when ``SpareView/isStale``
    /// or a local shard has a new generation); when its shards all report one batch other than
    /// the view's, the two change places. The view read never mixes batches.
    ///
    /// A spare view that cannot be brought up leaves the view as it is, answering from the batch
    /// it has for as long as its shards can give it: a shard machine's replica switching to a
    /// whole new copy removes the copy its server had open ("Failed to open glass revision file"),
    /// and a shard server restarting refuses connections for a moment. The spare view is opened
    /// afresh on the next search. A shard gone for good fails the view's own reads
    /// (``read(_:)``), which open a view afresh, waiting up to ``remoteTimeout``.
    private func moveView(_ view: inout XapianDatabase, _ topology: Topology) {
        spare.withLock { spare in
            do throws(SearchlightError) {
                if let candidate = spare.view, !spare.isStale, !isSuperseded(candidate) {
                    try candidate.reopen()
                } else {
                    try? spare.view?.close()
                    spare.view = nil
                    spare.view = try Self.openView(topology, waiting: nil)
                    spare.opened = .now
                }
                guard let candidate = spare.view else { return }
                let batches = try candidate.shardBatches()
                spare.mixed = Set(batches).count > 1
                guard !spare.mixed, batches[0] != view.batch || isSuperseded(view) else { return }
                candidate.batch = batches[0]
                spare.view = view
                view = candidate
            } catch {
                try? spare.view?.close()
                spare.view = nil
            }
        }
    }

    /// Whether a reader's database is no longer the current one: the index's stub names another
    /// generation, or, for a topology, one of its local shards' does.
    private func isSuperseded(_ database: XapianDatabase) -> Bool {
        guard topology == nil else { return Self.folderLayouts(topology) != database.shardLayouts }
        return IndexLayout.read(path) != database.layout
    }
}
