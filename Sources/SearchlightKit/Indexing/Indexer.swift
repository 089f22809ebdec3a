public import FoundationEssentials

/// Indexes BUO input (files, folders, standard input, request bodies) into an index, as one
/// atomic run: after the run, or after the process is killed at any moment of it, the index holds
/// all of the run's accepted items or none of them.
///
/// A small run (less than ``directInputLimit`` bytes of input) is one transaction on the current
/// generation. A larger one is read as a stream and built on ``jobs`` threads at once, each
/// writing a segment database of its own; the segments are then either merged with the current
/// generation by Xapian's compactor into a new generation, published atomically, or, when the run
/// changes little of a large index, written into the current generation in one transaction —
/// whichever costs less at the writer's measured rates. Items stored unchanged are never
/// rewritten, and where an item occurs more than once in a run, its last occurrence wins.
///
/// ```swift
/// let index = try SearchableIndex(path: "/tmp/index", access: .readWrite(lockTimeout: .seconds(10)))
/// let indexer = Indexer(options: IndexingOptions(domainIdentifier: "com.example.shop"))
/// let report = try indexer.index([.path("exports/")], into: index)
/// print(report.added, report.updated, report.unchanged)
/// ```
public struct Indexer: Sendable {
    /// Where input comes from.
    public enum Source: Sendable, Hashable {
        /// A file, a folder walked for `.json`, `.jsonl` and `.ndjson` files, or `-` for standard
        /// input.
        case path(String)
        /// Input held in memory, such as a request body; `name` names it in errors.
        case data(Data, name: String, format: BranchUniversalObjectReader.Format)
    }

    /// How far a run has got, for a progress display.
    public struct Progress: Sendable {
        public enum Phase: Sendable { case reading, merging }
        public var phase: Phase
        /// Input files (and in-memory inputs) in the run, and how many have been read.
        public var files: Int
        public var filesRead: Int
        /// Items stored, recognized as unchanged, or rejected so far.
        public var items: Int
    }

    /// Input smaller than this (1 MiB, about 2,000 items) is indexed in one transaction on the
    /// current generation: starting segment builders would cost more than they save.
    public static let directInputLimit = 1 << 20
    /// The write buffers of all segment builders together: 256 MiB.
    public static let defaultMemoryBudget = 256 << 20
    public var options: IndexingOptions
    /// Any rejection rejects the whole run: nothing is written.
    public var strict: Bool
    /// How many segment builders a large run uses (1 to ``CoreBudget/maximumBuilders``).
    public var jobs: Int
    /// The bytes the segment builders' write buffers may hold together.
    public var memoryBudget: Int
    /// The time the run indexes at, in epoch milliseconds.
    public var now: Int64
    /// A client state committed with the run (Core Spotlight's batches, ``IndexBatch``): the
    /// run's items and the state are committed together, or, when the state's condition fails,
    /// nothing is (``SearchlightError/Code/clientStateMismatch``). Its domain is the one the
    /// state belongs to, usually ``IndexingOptions/domainIdentifier``.
    public var clientState: ClientStateUpdate?

    public init(
        options: IndexingOptions = IndexingOptions(), strict: Bool = false, jobs: Int = CoreBudget.machine.builders,
        memoryBudget: Int = Indexer.defaultMemoryBudget, now: Int64 = SearchableIndex.currentTime(),
        clientState: ClientStateUpdate? = nil
    ) {
        self.clientState = clientState
        self.options = options
        self.strict = strict
        self.jobs = min(max(1, jobs), CoreBudget.maximumBuilders)
        self.memoryBudget = memoryBudget
        self.now = now
    }

    /// One input of a run, once folders are walked.
    enum Input {
        case file(String)
        case data(Data, name: String, format: BranchUniversalObjectReader.Format)

        /// Its size in bytes; `nil` for standard input, whose size is unknown.
        var size: Int? {
            switch self {
            case .file("-"): nil
            case .file(let path): FileSystem.size(atPath: path)
            case .data(let data, _, _): data.count
            }
        }

        /// Reads and decodes the whole input.
        func read() -> DecodedInput {
            switch self {
            case .file(let path): BranchUniversalObjectReader.read(path: path)
            case .data(let data, let name, let format):
                BranchUniversalObjectReader.decode(data, path: name, format: format)
            }
        }
    }

    /// Indexes the sources into `index` (opened for writing) as one run.
    ///
    /// Rejected items and files are reported, never stored, and never stop the others, unless
    /// ``strict`` is set: then any rejection leaves the index as it was. `progress` is called on
    /// the calling thread.
    ///
    /// - Throws: ``SearchlightError/Code/writeFailed`` when writing fails (the disk is full, say:
    ///   the index is then as it was before the run), ``SearchlightError/Code/invalidArgument``
    ///   for an index opened read-only or a domain that is not valid.
    public func index(
        _ sources: [Source], into index: SearchableIndex, progress: (Progress) -> Void = { _ in }
    ) throws(SearchlightError) -> IndexingReport {
        guard index.isWritable else {
            throw SearchlightError(.invalidArgument, "The index at \(index.path) was opened read-only")
        }
        try SearchableItem.validateDomain(options.domainIdentifier)
        try clientState?.validate()
        var report = IndexingReport()
        var inputs: [Input] = []
        for source in sources {
            switch source {
            case .path(let path):
                do throws(SearchlightError) {
                    inputs += try BranchUniversalObjectReader.inputFiles(for: [path]).map { .file($0) }
                } catch {
                    report.rejected += 1
                    report.errors.append(error)
                }
            case .data(let data, let name, let format):
                inputs.append(.data(data, name: name, format: format))
            }
        }
        let sizes = inputs.map(\.size)
        let small = sizes.allSatisfy { $0 != nil } && sizes.reduce(0) { $0 + ($1 ?? 0) } < Self.directInputLimit
        if let topology = index.topology, !small,
            WriteCosts.shardsMerge(
                inputBytes: sizes.reduce(0) { $0 + ($1 ?? Self.directInputLimit) },
                documents: try index.shardDocumentBound())
        {
            try indexInBulk(inputs, acrossShardsOf: index, topology: topology, report: &report, progress: progress)
        } else if small || !index.isFolder {
            try indexDirectly(inputs, into: index, report: &report, progress: progress)
        } else {
            try indexInBulk(inputs, into: index, report: &report, progress: progress)
        }
        return report
    }

    /// Reads every input whole and writes them in one transaction.
    private func indexDirectly(
        _ inputs: [Input], into index: SearchableIndex, report: inout IndexingReport, progress: (Progress) -> Void
    ) throws(SearchlightError) {
        var decoded: [DecodedInput] = []
        for (position, input) in inputs.enumerated() {
            decoded.append(input.read())
            progress(Progress(phase: .reading, files: inputs.count, filesRead: position + 1, items: 0))
        }
        if strict, report.rejected > 0 {
            for input in decoded {
                report.rejected += input.rejections.count
                report.errors += input.rejections
            }
            return
        }
        guard !decoded.isEmpty || clientState != nil else { return }
        report.merge(try index.index(decoded, options: options, strict: strict, clientState: clientState, now: now))
    }
}

extension Indexer {
    /// The items that sources describe, for removing them (`searchlight remove --from`, a removal
    /// request's body of BUOs): their identifiers grouped by domain (an item's own `domain` key,
    /// else ``IndexingOptions/domainIdentifier``), domains in order of first appearance, and
    /// what could not be read.
    ///
    /// - Throws: ``SearchlightError/Code/unreadableInput`` for a path that does not exist.
    public func identifiers(in sources: [Source]) throws(SearchlightError) -> (
        targets: [(domain: String, identifiers: [String])], rejections: [SearchlightError]
    ) {
        var byDomain: [String: [String]] = [:]
        var order: [String] = []
        var rejections: [SearchlightError] = []
        for source in sources {
            let inputs: [Input]
            switch source {
            case .path(let path): inputs = try BranchUniversalObjectReader.inputFiles(for: [path]).map { .file($0) }
            case .data(let data, let name, let format): inputs = [.data(data, name: name, format: format)]
            }
            for input in inputs {
                let decoded = input.read()
                rejections += decoded.rejections
                for object in decoded.objects {
                    let domain = object.domain ?? options.domainIdentifier
                    if byDomain[domain] == nil { order.append(domain) }
                    byDomain[domain, default: []].append(object.object.canonicalIdentifier)
                }
            }
        }
        return (order.map { ($0, byDomain[$0]!) }, rejections)
    }
}

extension SearchableIndex {
    /// True when the index is a folder (not a stub file listing other databases), so that it can
    /// hold generations.
    var isFolder: Bool {
        FileSystem.kind(atPath: path) == .directory
    }
}
