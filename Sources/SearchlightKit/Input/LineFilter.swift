import FoundationEssentials

/// Recognizes JSON Lines lines that are already stored exactly as they would be stored again, so
/// that re-indexing an unchanged file reads it without decoding it.
///
/// A line's digest is the FNV-1a hash of the options that shape an item (the domain, the
/// lifetimes), the file it is in, and the line's raw bytes. An item read from a line keeps that digest as a term while
/// it depends on nothing else (its expiration was neither clamped nor defaulted from the clock);
/// replacing or removing the item removes the term. The filter asks a read-only view of the last
/// commit, on the reading thread; the writer then confirms each recognized line against its own
/// view, and decodes any it does not confirm, so a file that changes an item twice still ends with
/// its last version.
///
/// ```swift
/// try index.performBatch { batch in
///     let filter = try batch.lineFilter(options: options, now: now)
///     try BranchUniversalObjectReader.readLines(path: "items.jsonl", recognizing: filter) { piece in
///         report.merge(try batch.index([piece], options: options, now: now))
///     }
/// }
/// ```
public struct LineFilter: Sendable {
    // The snapshot is used by the reading thread only, one call at a time (a handle's rule).
    private let snapshot: XapianDatabase
    private let salt: [UInt8]
    private let now: Int64

    init(snapshot: XapianDatabase, options: IndexingOptions, now: Int64) {
        self.snapshot = snapshot
        self.now = now
        salt = Array(options.lineSalt.utf8)
    }

    /// Where the digests of the lines of one file start: these options and the file's `source`
    /// (empty for standard input).
    func seed(source: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in salt + Array(source.utf8) + [0x1F] {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return hash
    }

    /// The digest of one raw line of the file whose ``seed(source:)`` is `seed`.
    func digest(_ line: UnsafeRawBufferPointer, from seed: UInt64) -> UInt64 {
        var hash = seed
        for byte in line {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return hash
    }

    /// The stored, unexpired items these digests belong to (their document ids in the snapshot,
    /// 0 for none); none when the snapshot cannot say.
    func known(_ digests: [UInt64]) -> [UInt32] {
        (try? snapshot.findLines(digests, now: now)) ?? [UInt32](repeating: 0, count: digests.count)
    }
}

extension IndexingOptions {
    /// What, besides a line's bytes, decides the item it yields.
    var lineSalt: String {
        let lifetimes = [maximumTimeToLive, defaultTimeToLive].map { TimeToLive.format($0) }
        return "searchlight-line-2\u{1F}\(domainIdentifier)\u{1F}\(lifetimes[0])\u{1F}\(lifetimes[1])"
            + "\u{1F}\(itemsMayChooseDomain)\u{1F}"
    }
}
