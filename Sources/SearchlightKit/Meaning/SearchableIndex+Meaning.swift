import FoundationEssentials
import Synchronization

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
            (report.items, report.withMeaning) = try database.meaningCounts()
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
    /// stored.
    ///
    /// - Throws: ``SearchlightError/Code/meaningModelMismatch`` when the index's vectors were made
    ///   by another model (``clearMeaning()`` removes them).
    @discardableResult
    public func completeMeaning(
        using model: MeaningModel, chunk: Int = 128, progress: (MeaningReport) -> Void = { _ in }
    ) throws(SearchlightError) -> MeaningReport {
        var report = try meaningStatus()
        if let recorded = report.model, recorded != MeaningModel.name {
            throw SearchlightError(
                .meaningModelMismatch,
                "The vectors of meaning in \(path) were made by \(recorded), not by the installed model "
                    + "\(MeaningModel.name): run `searchlight embed --rebuild` to make them anew")
        }
        guard report.withMeaning < report.items else { return report }
        var next: [UInt32]? = nil
        while true {
            let embedded = try performBatch { batch throws(SearchlightError) in
                var positions = next ?? [UInt32](repeating: 1, count: batch.shards.count)
                var embedded = 0
                for (index, shard) in batch.shards.enumerated() where positions[index] != 0 {
                    let (stored, following) = try Self.embed(
                        shard, from: positions[index], limit: chunk, model: model, path: path)
                    embedded += stored
                    positions[index] = following
                }
                next = positions
                return embedded
            }
            report.embedded += embedded
            report.withMeaning += embedded
            report.model = MeaningModel.name
            progress(report)
            if next?.allSatisfy({ $0 == 0 }) ?? true { return report }
        }
    }

    /// Embeds up to `limit` items of `shard` without a vector, from storage position `first` on,
    /// in the writer's transaction. Returns how many were stored, and the position to go on from
    /// (0: none is left).
    private static func embed(
        _ shard: XapianDatabase, from first: UInt32, limit: Int, model: MeaningModel, path: String
    ) throws(SearchlightError) -> (stored: Int, next: UInt32) {
        var pending: [(position: UInt32, digest: UInt64, text: String)] = []
        var next: UInt32 = 0
        do {
            try shard.forEachDocument(from: first, withoutMeaning: true) { document in
                guard pending.count < limit else {
                    next = document.position
                    return false
                }
                let item = try decodeStored(document.data, path: path)
                pending.append((document.position, document.digest, meaningText(of: item.object)))
                return true
            }
        } catch let error as SearchlightError {
            throw error
        } catch {
            throw SearchlightError(.internalError, "Cannot read the items of the index at \(path): \(error)")
        }
        guard !pending.isEmpty else { return (0, 0) }
        let vectors = try model.vectors(pending.map(\.text))
        if try shard.meaningModel() == nil { try shard.setMeaningModel(MeaningModel.name) }
        let stored = try shard.setMeaning(
            zip(pending, vectors).map { .init(position: $0.position, digest: $0.digest, vector: $1) })
        return (stored, next)
    }

    /// Removes every vector of meaning and the model the index records, in one transaction: the
    /// next ``completeMeaning(using:chunk:progress:)`` makes them all anew.
    public func clearMeaning() throws(SearchlightError) {
        try performBatch { batch throws(SearchlightError) in
            for shard in batch.shards {
                try shard.clearMeaning()
                try shard.setMeaningModel(nil)
            }
        }
    }
}
