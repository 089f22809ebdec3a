import FoundationEssentials
import Glibc

/// The journal of a topology's batch: every write the batch does to each shard
/// (``ShardWrite``), kept in the file `TOPOLOGY.journal` beside the topology file from before the
/// first shard commits until the last one has.
///
/// Each shard commits a batch in one transaction together with the batch's number
/// (``batchKey``), a shard that the batch does not write to as well. So a reader takes a view of
/// the shards only when they all report one number, and never sees part of a batch. A writer that
/// finds a journal when it opens the topology (the last writer was killed while committing, or a
/// shard failed to commit) does the journal's writes again on each shard whose number is below the
/// journal's, and commits them with it: every shard then holds the batch, as one index written
/// with the same batches would.
struct BatchJournal: Codable {
    /// The metadata key of the number of the last batch a shard committed.
    static let batchKey = "searchlight.batch"

    var batch: UInt64
    /// Each shard's writes, in the topology's order.
    var writes: [[ShardWrite]]
    /// For a batch written by bulk builders (``Indexer``), the generation each shard it wrote
    /// publishes (`nil` for a shard that only commits the batch's number): built whole, synced and
    /// holding the batch's number before the journal is written, and kept until it is published.
    var generations: [Int?]?

    static func path(of topology: Topology) -> String { topology.path + ".journal" }

    /// Writes the journal durably: a file beside it synced, renamed over, the folder synced.
    func save(for topology: Topology) throws(SearchlightError) {
        let path = Self.path(of: topology)
        let temporary = path + ".new"
        do {
            try IndexLayout.writeSynced(try encoded(), to: temporary)
            guard rename(temporary, path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            IndexLayout.syncFolder(Self.folder(of: path))
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw SearchlightError(
                .writeFailed,
                "Cannot write the journal \(path) of a batch for the index at \(topology.path): "
                    + "\(FileSystem.describe(error)); nothing of this batch was committed", failure: .io)
        }
    }

    /// The journal as JSON, each shard's writes encoded on a thread of its own: a batch of 50,000
    /// items is 40 MB of it.
    private func encoded() throws -> Data {
        let parts = try ParallelWork.run(writes, names: nil) { _, writes throws(SearchlightError) in
            do {
                return try JSONEncoder().encode(writes)
            } catch {
                throw SearchlightError(.internalError, "Cannot encode a batch's writes: \(error)")
            }
        }
        var data = Data("{\"batch\":\(batch),\"writes\":[".utf8)
        for (index, part) in parts.enumerated() {
            if index > 0 { data.append(UInt8(ascii: ",")) }
            data.append(part)
        }
        data.append(contentsOf: "]".utf8)
        if let generations {
            data.append(contentsOf: ",\"generations\":".utf8)
            data.append(try JSONEncoder().encode(generations))
        }
        data.append(contentsOf: "}".utf8)
        return data
    }

    /// The journal of a batch that some shard of `topology` may not have committed, if any.
    static func read(for topology: Topology) throws(SearchlightError) -> BatchJournal? {
        let path = path(of: topology)
        guard FileSystem.kind(atPath: path) != nil else { return nil }
        do {
            return try JSONDecoder().decode(BatchJournal.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw SearchlightError(
                .indexUnavailable,
                "Cannot read the journal \(path) of the index at \(topology.path): \(FileSystem.describe(error)); "
                    + "it is written whole or not at all, so something else changed it", failure: .corrupt)
        }
    }

    /// Removes the journal once every shard has committed its batch.
    static func remove(for topology: Topology) {
        let path = path(of: topology)
        try? FileManager.default.removeItem(atPath: path)
        IndexLayout.syncFolder(folder(of: path))
    }

    /// The number of the last batch `shard` committed (0 before the first), as its writer or a
    /// reader of it alone sees it.
    static func batch(of shard: XapianDatabase) throws(SearchlightError) -> UInt64 {
        UInt64(try shard.metadata(batchKey)) ?? 0
    }

    private static func folder(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
    }
}

extension SearchableIndex {
    /// Completes on every shard the batch a journal holds, if any: a shard whose number is one
    /// below the journal's does its writes again and commits them with the journal's number. Then
    /// the journal goes. Without a journal, the shards must all hold the same batch. Returns the
    /// number of the batch every shard then holds.
    ///
    /// - Throws: ``SearchlightError/Code/indexUnavailable`` naming the shards and their batches
    ///   when they hold batches that no journal reconciles (a shard restored from an older backup,
    ///   say); what a shard's write or commit fails with, naming the shard.
    @discardableResult
    static func completeJournaledBatch(_ writers: inout [XapianDatabase], _ topology: Topology)
        throws(SearchlightError) -> UInt64
    {
        let batches = try writers.map { writer throws(SearchlightError) in try BatchJournal.batch(of: writer) }
        guard let journal = try BatchJournal.read(for: topology) else {
            guard Set(batches).count <= 1 else { throw differentBatches(batches, topology) }
            return batches.first ?? 0
        }
        guard journal.writes.count == writers.count, journal.generations.map({ $0.count == writers.count }) ?? true,
            batches.allSatisfy({ $0 == journal.batch || $0 + 1 == journal.batch })
        else { throw differentBatches(batches, topology, journal: journal.batch) }
        for (index, writer) in writers.enumerated() where batches[index] < journal.batch {
            if let generation = journal.generations?[index] {
                try publishJournaled(generation, of: journal, on: &writers[index], shard: index, of: topology)
                continue
            }
            try ParallelWork.naming(topology.shards[index].name) { () throws(SearchlightError) in
                try writer.begin()
                do throws(SearchlightError) {
                    for write in journal.writes[index] { _ = try write.perform(on: writer) }
                    try writer.setMetadata(BatchJournal.batchKey, String(journal.batch))
                } catch {
                    writer.cancel()
                    throw error
                }
                try writer.commit()
            }
        }
        BatchJournal.remove(for: topology)
        return journal.batch
    }

    /// Publishes the generation a journaled batch built for a shard, which holds the batch's
    /// number, and makes its writer the shard's.
    private static func publishJournaled(
        _ generation: Int, of journal: BatchJournal, on writer: inout XapianDatabase, shard index: Int,
        of topology: Topology
    ) throws(SearchlightError) {
        let shard = topology.shards[index]
        guard case .folder(let path) = shard else { return }
        let folder = path + "/" + IndexLayout.folderName(generation)
        try ParallelWork.naming(shard.name) { () throws(SearchlightError) in
            guard FileSystem.kind(atPath: folder) == .directory else {
                throw SearchlightError(
                    .indexUnavailable,
                    "The generation \(folder) that the journal \(BatchJournal.path(of: topology))"
                        + " of batch \(journal.batch) publishes is missing: restore the shards from one backup, or "
                        + "index everything again into new shards", failure: .corrupt)
            }
            let built = try lockGeneration(generation, at: path)
            do throws(SearchlightError) {
                guard try BatchJournal.batch(of: built) == journal.batch else {
                    throw SearchlightError(
                        .indexUnavailable,
                        "The generation \(folder) does not hold batch \(journal.batch), which its journal names",
                        failure: .corrupt)
                }
                try publish(built, generation, at: path, replacing: &writer)
            } catch {
                try? built.close()
                throw error
            }
        }
    }

    private static func differentBatches(_ batches: [UInt64], _ topology: Topology, journal: UInt64? = nil)
        -> SearchlightError
    {
        let listed = zip(topology.shards, batches).map { "\($0.name) at batch \($1)" }.joined(separator: ", ")
        let journaled = journal.map { "its journal holds batch \($0)" } ?? "no journal completes them"
        return SearchlightError(
            .indexUnavailable,
            "The shards of the index at \(topology.path) hold different batches (\(listed)), and \(journaled): "
                + "restore the shards from one backup, or index everything again into new shards",
            failure: .corrupt)
    }
}
