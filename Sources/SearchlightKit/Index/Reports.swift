/// What an indexing call did: the counts and every rejection, with its place and reason.
public struct IndexingReport: Sendable, Hashable, Codable {
    /// Items in the index after the call: added, updated and unchanged.
    public var indexed = 0
    /// Items that were new.
    public var added = 0
    /// Items that replaced a stored version of the same identity.
    public var updated = 0
    /// Items identical to the stored version (same indexed content and expiration): not rewritten.
    public var unchanged = 0
    /// Items already expired: not stored, and any stored version removed.
    public var expired = 0
    /// Items whose expiration was clamped to the maximum lifetime.
    public var clamped = 0
    /// Items (or whole files) rejected.
    public var rejected = 0
    public var errors: [SearchlightError] = []

    public init() {}

    /// Adds another report's counts and errors to this one.
    public mutating func merge(_ other: IndexingReport) {
        indexed += other.indexed
        added += other.added
        updated += other.updated
        unchanged += other.unchanged
        expired += other.expired
        clamped += other.clamped
        rejected += other.rejected
        errors += other.errors
    }
}

extension SearchlightError: Hashable {
    public static func == (lhs: SearchlightError, rhs: SearchlightError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.path == rhs.path && lhs.item == rhs.item
            && lhs.line == rhs.line && lhs.column == rhs.column
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(path)
        hasher.combine(item)
        hasher.combine(line)
    }
}

/// What a compaction did to the index's size on disk.
public struct CompactionReport: Sendable, Hashable, Codable {
    public var bytesBefore: Int
    public var bytesAfter: Int

    public init(bytesBefore: Int, bytesAfter: Int) {
        self.bytesBefore = bytesBefore
        self.bytesAfter = bytesAfter
    }
}

/// What a removal call did.
public struct RemovalReport: Sendable, Hashable, Codable {
    /// A removal refused for one identifier.
    public struct Refusal: Sendable, Hashable, Codable {
        public var id: String
        public var code: SearchlightError.Code
        public var message: String
    }

    public var removed = 0
    /// Identifiers with no item in the domain (removal is idempotent: not an error).
    public var notFound: [String] = []
    /// Identifiers whose removal was refused (public content, code 1014).
    public var refused: [Refusal] = []

    public init() {}

    public mutating func merge(_ other: RemovalReport) {
        removed += other.removed
        notFound += other.notFound
        refused += other.refused
    }
}

/// What recording views did: how many were recorded, and the identifiers with no item the
/// caller can see (unknown, another domain's private item, or expired). Nothing is created for
/// those.
public struct ViewReport: Sendable, Hashable, Codable {
    public var recorded = 0
    public var notFound: [String] = []

    public init() {}
}

/// Counts over the whole index.
public struct IndexStatistics: Sendable, Hashable, Codable {
    /// The index's path; `nil` in a single domain's statistics.
    public var path: String?
    public var documents: Int
    public var `public`: Int
    public var `private`: Int
    /// Items expired but not yet pruned (never returned by searches).
    public var expired: Int
    public var domains: [String: Int]
    /// The index's size on disk (its local shards' for a topology); `nil` in a single domain's
    /// statistics.
    public var sizeBytes: Int?
    /// Each shard's, in the topology's order, for an index made of shards.
    public var shards: [ShardStatistics]?
    /// The index's default language (``SearchableIndex/defaultLanguage()``); `nil` in a single
    /// domain's statistics.
    public var language: String?
}

/// Counts for one shard of an index made of shards.
public struct ShardStatistics: Sendable, Hashable, Codable {
    /// Its folder, or `host:port` for one served by `xapian-tcpsrv`.
    public var shard: String
    public var documents: Int
    public var `public`: Int
    public var `private`: Int
    public var expired: Int
    /// The number of the last batch it committed (``SearchableIndex/performBatch(_:)``): a shard
    /// machine's replica whose number is below the writer's shards' is behind.
    public var batch: UInt64
    /// Its size on disk; `nil` for a remote shard.
    public var sizeBytes: Int?
}

/// An index (or a topology's shard) rebuilt into the current index format when it was opened for
/// writing: its items' terms laid out anew, as a new generation published atomically.
public struct FormatUpgrade: Sendable, Hashable, Codable {
    /// The index folder, or the shard's folder.
    public var path: String
    /// The format it was in, and the one it is in now.
    public var fromFormat: String
    public var toFormat: String
    /// The items rebuilt.
    public var items: Int

    public init(path: String, fromFormat: String, toFormat: String, items: Int) {
        self.path = path
        self.fromFormat = fromFormat
        self.toFormat = toFormat
        self.items = items
    }

    /// "Upgraded the index at … from format 5 to format 7 (70 items)".
    public var summary: String {
        "Upgraded the index at \(path) from format \(fromFormat) to format \(toFormat) (\(items) "
            + (items == 1 ? "item)" : "items)")
    }
}
