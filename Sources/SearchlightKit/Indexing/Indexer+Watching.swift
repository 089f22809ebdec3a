import FoundationEssentials

extension Indexer {
    /// What one batch of changes did to an index.
    public struct ChangeReport: Sendable, Hashable, Codable {
        /// The input files read (absolute paths).
        public var files: [String] = []
        /// The files and folders found gone (absolute paths).
        public var gone: [String] = []
        /// The kernel's queue overflowed: every watched path was read again.
        public var rescanned = false
        /// What indexing the files did.
        public var indexing = IndexingReport()
        /// Items removed because their file is gone or no longer holds them (with mirroring).
        public var removed = 0

        public init() {}
    }

    /// Indexes one batch of a ``FolderWatcher``'s changes into `index` (opened for writing): the
    /// files written as one run, as ``index(_:into:progress:)`` does. With `mirror`, the index
    /// then follows the files: the items of files gone are removed, and so are those a file read
    /// no longer holds (a file that cannot be read cleanly keeps its items until it can). With
    /// `roots` (the watched paths, on a first run or after the kernel's queue overflowed), the
    /// items of every file under them that no longer exists are removed too.
    ///
    /// The removals are a transaction after the run's: a search between the two sees the files'
    /// new items beside the old ones they replace.
    public func apply(
        _ changes: FolderWatcher.Changes, to index: SearchableIndex, mirror: Bool, roots: [String]? = nil
    ) throws(SearchlightError) -> ChangeReport {
        var report = ChangeReport()
        report.files = changes.written.map(FileSystem.absolutePath)
        report.gone = changes.removed.map(FileSystem.absolutePath)
        report.rescanned = changes.overflowed
        if !report.files.isEmpty { report.indexing = try self.index(report.files.map { .path($0) }, into: index) }
        guard mirror else { return report }
        var doomed: [(source: String, keeping: [(domain: String, identifier: String)])] = []
        for file in report.files {
            let (targets, rejections) = try identifiers(in: [.path(file)])
            guard rejections.isEmpty else { continue }
            doomed.append((file, targets.flatMap { target in target.identifiers.map { (target.domain, $0) } }))
        }
        var vanished = Set(report.gone)
        for root in (roots ?? []).map(FileSystem.absolutePath) where !vanished.contains(root) {
            if FileSystem.kind(atPath: root) == nil { vanished.insert(root) }
        }
        for path in vanished.sorted() {
            for source in try index.sources(beginningWith: path)
            where source.path == path || source.path.hasPrefix(path + "/") {
                doomed.append((source.path, []))
            }
        }
        for root in (roots ?? []).map(FileSystem.absolutePath) where FileSystem.kind(atPath: root) == .directory {
            for source in try index.sources(beginningWith: root + "/") where FileSystem.kind(atPath: source.path) == nil
            {
                doomed.append((source.path, []))
            }
        }
        guard !doomed.isEmpty else { return report }
        report.removed = try index.performBatch { batch throws(SearchlightError) in
            var removed = 0
            for (source, keeping) in doomed { removed += try batch.deleteItems(fromSource: source, keeping: keeping) }
            return removed
        }
        return report
    }
}
