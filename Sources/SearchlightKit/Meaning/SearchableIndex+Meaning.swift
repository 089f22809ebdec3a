import FoundationEssentials
import Synchronization

/// Vectors of meaning made for items of an index, to be stored in a write
/// (``IndexTransaction/storeMeaning(_:)``).
public struct MeaningBatch: Sendable {
    let meanings: [XapianDatabase.Meaning]
    /// How many items it holds a vector for.
    public var count: Int { meanings.count }
    /// The storage position the next batch starts from; 0 when this one reached the last item.
    public let next: UInt32
    /// How many items of the revision read had no vector, this batch's among them.
    public let missing: Int
    /// The storage position after the revision's last item: the items written later are at or
    /// after it.
    public let end: UInt32
}

extension IndexTransaction {
    /// Stores vectors made by
    /// ``SearchableIndex/embedItemsWithoutMeaning(using:from:limit:threads:stop:inBackground:)``, and
    /// records the model that made them; an item in a language the model does not read is marked
    /// as needing none. A vector of an item changed or removed since it was read is not stored.
    /// Returns how many items were given their meaning, a vector or the mark.
    public func storeMeaning(_ batch: MeaningBatch) throws(SearchlightError) -> Int {
        let stored = try storeMeaningCounted(batch)
        return stored.vectors + stored.unread
    }

    /// ``storeMeaning(_:)``, with how many items got a vector and how many the mark.
    func storeMeaningCounted(_ batch: MeaningBatch) throws(SearchlightError) -> (vectors: Int, unread: Int) {
        guard !batch.meanings.isEmpty else { return (0, 0) }
        if topology != nil { return try storeMeaningOnShards(batch) }
        let recorded = try database.meaningModel()
        try SearchableIndex.requireModel(recorded: recorded)
        if recorded == nil { try database.setMeaningModel(MeaningModel.name) }
        return try database.setMeaning(batch.meanings)
    }

    /// ``storeMeaningCounted(_:)`` for a topology, whose batch numbers its items as the topology does:
    /// each vector goes to its item's shard (the item `d` of `k` shards is the item `(d - 1) / k + 1`
    /// of the shard on line `(d - 1) % k + 1`), journaled with the batch.
    private func storeMeaningOnShards(_ batch: MeaningBatch) throws(SearchlightError) -> (vectors: Int, unread: Int) {
        let count = shards.count
        var entries = Array(repeating: [XapianDatabase.Meaning](), count: count)
        for meaning in batch.meanings {
            let id = Int(meaning.position) - 1
            entries[id % count].append(
                .init(position: UInt32(id / count + 1), digest: meaning.digest, vector: meaning.vector))
        }
        var stored = (vectors: 0, unread: 0)
        for (index, entries) in entries.enumerated() where !entries.isEmpty {
            if case .meaning(let vectors, let unread) = try write(
                .meaning(entries: entries, model: MeaningModel.name), on: index)
            {
                stored.vectors += vectors
                stored.unread += unread
            }
        }
        return stored
    }
}

/// What completing an index's vectors of meaning did, and where the index stands.
public struct MeaningReport: Sendable, Hashable, Codable {
    /// The items given a vector by this call.
    public var embedded = 0
    /// The items that have a vector now.
    public var withMeaning = 0
    /// The items the index holds.
    public var items = 0
    /// The model the index records for its vectors, if any.
    public var model: String?
    /// Whether a stop (``EmbeddingStop``) ended the call before every item had its vector: the
    /// next call goes on.
    public var stopped = false

    public init() {}
}

extension SearchableIndex {
    /// The text an item's vector of meaning is made of: its title, keywords and description, one
    /// a line.
    public static func meaningText(of object: BranchUniversalObject) -> String {
        [object.title ?? "", object.keywords.joined(separator: ", "), object.contentDescription ?? ""]
            .filter { !$0.isEmpty }.joined(separator: "\n")
    }

    /// How many items have a vector of meaning, and which model made them.
    public func meaningStatus() throws(SearchlightError) -> MeaningReport {
        try database.withLock { database throws(SearchlightError) in
            try refresh(&database)
            // A topology's reader counts over every shard; its records are its first shard's.
            var report = MeaningReport()
            (report.items, report.withMeaning, _) = try database.meaningCounts()
            report.model = try database.meaningModel()
            return report
        }
    }

    /// Gives each item that has no vector of meaning one, made by `model`: new and changed items,
    /// since a write stores an item without one and an unchanged item keeps its own.
    ///
    /// Vectors are committed `chunk` items at a time, after the items' words: an interrupted call
    /// leaves every item searchable by words, keeps the vectors it committed, and the next call
    /// goes on with the rest. A vector made of an item that a write changed meanwhile is not
    /// stored. When the call stored vectors for at least ``compactionThreshold`` of the items,
    /// the index is then compacted (storing them leaves Xapian's blocks part empty).
    ///
    /// Once `stop` is asked, the vectors made are committed and the call returns within about a
    /// second (the model stops between two steps of a layer), its report saying so (`stopped`),
    /// without compacting; the next call goes on.
    ///
    /// - Throws: ``SearchlightError/Code/meaningModelMismatch`` when the index's vectors were made
    ///   by another model (``clearMeaning()`` removes them), ``SearchlightError/Code/meaningUnavailable``
    ///   for a topology read through shard servers, whose vectors its writer makes.
    @discardableResult
    public func completeMeaning(
        using model: MeaningModel, chunk: Int = 128, stop: EmbeddingStop? = nil,
        progress: (MeaningReport) -> Void = { _ in }
    ) throws(SearchlightError) -> MeaningReport {
        if topology?.readsShardServers == true { throw Self.shardServersMakeNoMeaning }
        var report = try meaningStatus()
        try Self.requireModel(recorded: report.model)
        guard report.withMeaning < report.items else { return report }
        var next: UInt32 = 1
        while next != 0 {
            if stop?.isRequested == true {
                report.stopped = true
                return report
            }
            let stored = try performBatch { batch throws(SearchlightError) in
                // A topology's items are read as one index's, by their numbers across its shards.
                let embedded =
                    try topology == nil
                    ? Self.embed(batch.database, from: next, limit: chunk, model: model, stop: stop)
                    : read { database throws(SearchlightError) in
                        try Self.embed(database, from: next, limit: chunk, model: model, stop: stop)
                    }
                next = embedded.next
                return try batch.storeMeaningCounted(embedded)
            }
            report.embedded += stored.vectors
            report.withMeaning += stored.vectors + stored.unread
            if stored.vectors + stored.unread > 0 { report.model = MeaningModel.name }
            progress(report)
        }
        // Vectors rewrite their items' documents, which leaves Xapian's blocks part empty: 610
        // bytes an item on disk, 381 once compacted (388-byte values; docs/performance.md). A stop
        // asked for waits for no compaction.
        if stop?.isRequested == true { return report }
        try compactIfWorthwhile(afterRewriting: report.embedded, of: report.items)
        return report
    }

    /// Reads up to `limit` items without a vector of meaning, from storage position `first` on,
    /// and makes their vectors with `model`, on at most `threads` threads, the calling thread
    /// among them (0 for one a core): for a service, which stores them through its writer
    /// (``IndexTransaction/storeMeaning(_:)``) without holding it while the model runs, and
    /// leaves a core to its searches; `inBackground`, at the idle priority, yielding every core to
    /// them (``MeaningModel/vectors(_:threads:stop:inBackground:)``). When every item has a
    /// vector, nothing is read. Once `stop` is asked, the batch holds the vectors made before it,
    /// and `next` is the first item left.
    public func embedItemsWithoutMeaning(
        using model: MeaningModel, from first: UInt32 = 1, limit: Int, threads: Int = 0, stop: EmbeddingStop? = nil,
        inBackground: Bool = false
    ) throws(SearchlightError) -> MeaningBatch {
        if topology?.readsShardServers == true { throw Self.shardServersMakeNoMeaning }
        return try read { database throws(SearchlightError) in
            try Self.requireModel(recorded: try database.meaningModel())
            return try Self.embed(
                database, from: first, limit: limit, model: model, threads: threads, stop: stop,
                inBackground: inBackground)
        }
    }

    static let shardServersHaveNoMeaning = SearchlightError(
        .meaningUnavailable,
        "A topology read through shard servers is searched by words alone unless the file TOPOLOGY.meaning "
            + "beside it lists its shards' vectors copies, which xapian-replicate brings from the writer "
            + "(docs/operations.md, Shards)")

    static let shardServersMakeNoMeaning = SearchlightError(
        .meaningUnavailable,
        "A topology read through shard servers is read-only: its writer, over its topology of local shards, "
            + "gives the items their vectors of meaning")

    /// Refuses vectors of the installed model for an index whose vectors another model made.
    static func requireModel(recorded: String?) throws(SearchlightError) {
        guard let recorded, recorded != MeaningModel.name else { return }
        throw SearchlightError(
            .meaningModelMismatch,
            "The index's vectors of meaning were made by \(recorded), not by the installed model "
                + "\(MeaningModel.name): run `searchlight embed --rebuild` to make them anew")
    }

    /// Embeds up to `limit` items of `database` without a vector, from storage position `first` on;
    /// once `stop` is asked, those embedded before it.
    private static func embed(
        _ database: XapianDatabase, from first: UInt32, limit: Int, model: MeaningModel, threads: Int = 0,
        stop: EmbeddingStop? = nil, inBackground: Bool = false
    ) throws(SearchlightError) -> MeaningBatch {
        let counts = try database.meaningCounts()
        let missing = counts.items - counts.withMeaning
        // Every item has its vector: a count, not a walk over every item.
        guard missing > 0, first < counts.end else {
            return MeaningBatch(meanings: [], next: 0, missing: missing, end: counts.end)
        }
        let (pending, next) = try database.storedItems(from: first, limit: limit, withoutMeaning: true)
        // An item in a language the model does not read gets no vector (SPEC §2.4, §2.5).
        let expected = try database.defaultLanguage()
        let read = pending.map { MeaningModel.reads($0.item.object, expecting: expected) }
        let texts = zip(pending, read).filter(\.1).map { meaningText(of: $0.0.item.object) }
        var vectors = try model.vectors(texts, threads: threads, stop: stop, inBackground: inBackground)
            .makeIterator()
        var meanings: [XapianDatabase.Meaning] = []
        for (item, read) in zip(pending, read) {
            // Stopped: the items from the first without its vector are left to the next batch.
            let vector = read ? vectors.next() : []
            guard let vector else {
                return MeaningBatch(meanings: meanings, next: item.document.position, missing: missing, end: counts.end)
            }
            meanings.append(.init(position: item.document.position, digest: item.document.digest, vector: vector))
        }
        return MeaningBatch(meanings: meanings, next: next, missing: missing, end: counts.end)
    }

    /// Removes every vector of meaning and the model the index records, in one transaction: the
    /// next ``completeMeaning(using:chunk:stop:progress:)`` makes them all anew.
    public func clearMeaning() throws(SearchlightError) {
        try performBatch { batch throws(SearchlightError) in
            for index in batch.shards.indices { try batch.write(.clearMeaning, on: index) }
        }
    }
}
