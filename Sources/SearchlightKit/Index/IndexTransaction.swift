public import FoundationEssentials

/// The writes of one transaction, handed to ``SearchableIndex/performBatch(_:)``'s closure.
///
/// Valid only inside that closure: everything written through it is committed together when the
/// closure returns, or abandoned when it throws.
public struct IndexTransaction: Sendable {
    /// The databases written: the index's own, or a topology's shards in its order.
    let shards: [XapianDatabase]
    /// Where each item goes, for an index made of shards.
    let topology: Topology?
    /// What the batch writes to each shard, for a topology: journaled before any shard commits.
    let journal: ShardJournal?

    init(database: XapianDatabase) {
        shards = [database]
        topology = nil
        journal = nil
    }

    init(shards: [XapianDatabase], topology: Topology, journal: ShardJournal) {
        self.shards = shards
        self.topology = topology
        self.journal = journal
    }

    /// The database of an index that is not made of shards.
    var database: XapianDatabase { shards[0] }

    /// Does `write` on the shard at `index` (the index's own database for one that is not made of
    /// shards), and records it in the batch's journal unless it left the shard as it was.
    @discardableResult
    func write(_ write: ShardWrite, on index: Int = 0) throws(SearchlightError) -> ShardWrite.Outcome {
        let outcome = try naming(index) { () throws(SearchlightError) in try write.perform(on: shards[index]) }
        if !outcome.changesNothing { journal?.record(write, on: index) }
        return outcome
    }

    /// Indexes items, upserting by (domain, identifier); see ``SearchableIndex/indexSearchableItems(_:now:)``.
    public func indexSearchableItems(_ items: [SearchableItem], now: Int64) throws(SearchlightError)
        -> IndexingReport
    {
        for item in items { try SearchableItem.validateDomain(item.domainIdentifier) }
        return try store(items, now: now)
    }

    /// Indexes decoded input; see ``SearchableIndex/index(_:options:strict:clientState:now:)``.
    /// With `clientState`, its condition is checked before anything is written, and its state is
    /// recorded unless `strict` rejects everything.
    public func index(
        _ inputs: [DecodedInput], options: IndexingOptions, strict: Bool = false,
        clientState: ClientStateUpdate? = nil, now: Int64
    ) throws(SearchlightError) -> IndexingReport {
        try SearchableItem.validateDomain(options.domainIdentifier)
        try clientState?.check(in: self)
        let options = try options.with(indexOf: database)
        var report = IndexingReport()
        var items: [StoredItem] = []
        for var input in inputs {
            report.unchanged += try confirmKnownLines(&input, now: now)
            items += try options.prepare(input, now: now, report: &report).map(\.item)
        }
        report.indexed = report.unchanged
        guard !(strict && report.rejected > 0) else { return report }
        if let clientState { _ = try onEveryShard(clientState.write) }
        guard !items.isEmpty else { return report }
        report.merge(try store(items, now: now))
        return report
    }

    /// Counts the lines a ``LineFilter`` recognized that this transaction confirms are stored
    /// unchanged, and decodes the others into `input`, in their place.
    ///
    /// Only a piece made wholly of recognized lines is confirmed: its lines cannot be overtaken by
    /// a changed version of the same item inside the piece, and the writer's view already holds
    /// every earlier piece. A piece that also has decoded lines is decoded whole, so that its order
    /// decides which version of an item is last; its unchanged items are still not rewritten.
    private func confirmKnownLines(_ input: inout DecodedInput, now: Int64) throws(SearchlightError) -> Int {
        guard !input.knownLines.isEmpty else { return 0 }
        let confirmed =
            input.objects.isEmpty
            ? try database.findLines(input.knownLines.map(\.digest), now: now)
            : [UInt32](repeating: 0, count: input.knownLines.count)
        var unchanged = 0
        for (line, document) in zip(input.knownLines, confirmed) {
            if document != 0 {
                unchanged += 1
                continue
            }
            var item = line.item - 1
            BranchUniversalObjectReader.decodeLine(
                line.bytes[...], number: line.line, item: &item, into: &input, lineDigest: line.digest)
        }
        input.objects.sort { $0.item < $1.item }
        input.knownLines = []
        return unchanged
    }

    private func store(_ items: [SearchableItem], now: Int64) throws(SearchlightError) -> IndexingReport {
        let encoder = JSONEncoder.searchlight()
        let fields = try database.customFields()
        let language = try database.defaultLanguage()
        var stored: [StoredItem] = []
        for item in items {
            do throws(FieldError) {
                stored.append(
                    try StoredItem(item, lineDigest: 0, encoder: encoder, fields: fields, defaultLanguage: language))
            } catch {
                throw SearchlightError(error.code, "Item \(quoted(item.uniqueIdentifier)): \(error.message)")
            }
        }
        return try store(stored, now: now)
    }

    private func store(_ items: [StoredItem], now: Int64) throws(SearchlightError) -> IndexingReport {
        var report = IndexingReport()
        guard topology != nil, shards.count > 1 else {
            report.count(try write(.store(items: items, now: now)).stored)
            return report
        }
        let (placed, shardOf) = try placed(items, now: now)
        var positions = [[Int]](repeating: [], count: shards.count)
        for (position, shard) in shardOf.enumerated() where shard >= 0 { positions[shard].append(position) }
        let parts = positions.map { $0.map { placed[$0] } }
        let results = try eachShard { index, _ throws(SearchlightError) in
            parts[index].isEmpty ? [] : try write(.store(items: parts[index], now: now), on: index).stored
        }
        // An item expired already that no shard holds is written nowhere.
        var ordered = shardOf.map { $0 < 0 ? XapianDatabase.StoreOutcome.expired : .unchanged }
        for (shardPositions, shardResults) in zip(positions, results) {
            for (position, result) in zip(shardPositions, shardResults) { ordered[position] = result }
        }
        report.count(ordered)
        return report
    }

    /// Where each of `items` goes in a topology (-1 for an expired item that no shard holds), and
    /// each with the document id it is stored at.
    ///
    /// Xapian numbers a topology's documents by interleaving its shards' (the document `d` of the
    /// shard at position `s` of `k` is `(d - 1) × k + s + 1`). An item already stored stays where it
    /// is; a new one takes the next id of the topology as a whole, on the shard that id falls to,
    /// which is the id one index of the same items, written in the same order, gives it. So a
    /// topology breaks ties of weight as one index does, and sorts alike.
    private func placed(_ items: [StoredItem], now: Int64) throws(SearchlightError)
        -> (items: [StoredItem], shards: [Int])
    {
        let found = try eachShard { _, shard throws(SearchlightError) in try shard.documents(of: items) }
        let count = UInt64(shards.count)
        var next: UInt64 = 1
        for (position, shard) in found.enumerated() where shard.last > 0 {
            next = max(next, (UInt64(shard.last) - 1) * count + UInt64(position) + 2)
        }
        var placed = items
        var shardOf = [Int](repeating: 0, count: items.count)
        var given: [String: Int] = [:]
        for (index, item) in items.enumerated() {
            let identity = item.domain + "\u{1F}" + item.identifier
            if let shard = found.firstIndex(where: { $0.ids[index] != 0 }) {
                shardOf[index] = shard
            } else if let earlier = given[identity] {
                // The same item twice in one write: the second replaces the first.
                shardOf[index] = shardOf[earlier]
            } else if item.expiration != 0 && item.expiration <= now {
                // An item expired already is not stored, takes no id, and removes nothing.
                shardOf[index] = -1
            } else {
                guard next <= UInt64(UInt32.max) else {
                    throw SearchlightError(
                        .indexUnavailable, "The index at \(topology?.path ?? "") has used every document id")
                }
                shardOf[index] = Int((next - 1) % count)
                placed[index].documentID = UInt32((next - 1) / count + 1)
                given[identity] = index
                next += 1
            }
        }
        return (placed, shardOf)
    }

    /// Does `write` on every shard (each acts on the items it holds), the shards concurrently, and
    /// returns each shard's outcome in the topology's order.
    func onEveryShard(_ write: ShardWrite) throws(SearchlightError) -> [ShardWrite.Outcome] {
        try eachShard { index, _ throws(SearchlightError) in try self.write(write, on: index) }
    }

    /// Runs `body` on every shard, concurrently, and returns its results in the shards' order.
    ///
    /// - Throws: the first shard's error, its message naming the shard.
    func eachShard<Result: Sendable>(
        _ body: @escaping @Sendable (Int, XapianDatabase) throws(SearchlightError) -> Result
    )
        throws(SearchlightError) -> [Result]
    {
        try ParallelWork.run(shards, names: topology?.shards.map(\.name), body)
    }

    /// A filter recognizing the JSON Lines lines stored unchanged at the last commit, for
    /// ``BranchUniversalObjectReader/readLines(path:piece:recognizing:_:)``: re-indexing an
    /// unchanged file then neither decodes nor rewrites its items.
    public func lineFilter(options: IndexingOptions, now: Int64) throws(SearchlightError) -> LineFilter {
        LineFilter(snapshot: try XapianDatabase(path: database.path, writable: false), options: options, now: now)
    }

    /// Removes items by identifier; see ``SearchableIndex/deleteSearchableItems(withIdentifiers:domainIdentifier:includePublic:)``.
    public func deleteSearchableItems(
        withIdentifiers identifiers: [String], domainIdentifier: String, includePublic: Bool = false
    ) throws(SearchlightError) -> RemovalReport {
        try SearchableItem.validateDomain(domainIdentifier)
        guard !identifiers.isEmpty else {
            throw SearchlightError(
                .removalWithoutIdentifier, "A removal needs at least one canonical identifier; name the items to remove"
            )
        }
        var report = RemovalReport()
        let named = identifiers.filter { !$0.isEmpty }
        if named.count < identifiers.count {
            report.refused.append(
                .init(id: "", code: .removalWithoutIdentifier, message: "An empty identifier names no item"))
        }
        // A Branch link names the item of its data's canonical identifier; the report keeps the
        // text as given.
        var given: [String] = [], resolved: [String] = []
        for identifier in named {
            do throws(SearchlightError) {
                resolved.append(try BranchLink.canonicalIdentifier(in: identifier))
                given.append(identifier)
            } catch {
                report.refused.append(.init(id: identifier, code: error.code, message: error.message))
            }
        }
        guard !resolved.isEmpty else { return report }
        let removals = try onEveryShard(
            .remove(identifiers: resolved, domain: domainIdentifier, includePublic: includePublic)
        ).map(\.removed)
        let outcomes = resolved.indices.map { index in Self.removal(removals.map { $0[index] }) }
        for (identifier, outcome) in zip(given, outcomes) {
            switch outcome {
            case .removed: report.removed += 1
            case .notFound: report.notFound.append(identifier)
            case .refusedPublic:
                report.refused.append(
                    .init(
                        id: identifier, code: .publicContentNotRemovable,
                        message: "Spotlight cannot remove publicly indexed content; it leaves the index when it "
                            + "expires"))
            }
        }
        return report
    }

    /// Records one view of each identified item; see
    /// ``SearchableIndex/recordViews(withIdentifiers:domainIdentifier:now:)``.
    public func recordViews(withIdentifiers identifiers: [String], domainIdentifier: String, now: Int64)
        throws(SearchlightError) -> ViewReport
    {
        try SearchableItem.validateDomain(domainIdentifier)
        guard !identifiers.isEmpty else {
            throw SearchlightError(.invalidArgument, "Name at least one item whose view to record")
        }
        // A Branch link names the item its data names; an empty identifier, or a link naming
        // nothing, names no item.
        let resolved = identifiers.map { $0.isEmpty ? nil : try? BranchLink.canonicalIdentifier(in: $0) }
        var recorded = try views(of: resolved.compactMap { $0 }, domain: domainIdentifier, now: now).makeIterator()
        var report = ViewReport()
        for (identifier, canonical) in zip(identifiers, resolved) {
            if canonical != nil, recorded.next() == true {
                report.recorded += 1
            } else {
                report.notFound.append(identifier)
            }
        }
        return report
    }

    /// What removing an item from every shard did: removed from the one that held it; else refused,
    /// public, by one; else found on none.
    private static func removal(_ outcomes: [XapianDatabase.RemovalOutcome]) -> XapianDatabase.RemovalOutcome {
        outcomes.contains(.removed) ? .removed : outcomes.contains(.refusedPublic) ? .refusedPublic : .notFound
    }

    /// Records views of `identifiers`: each on the shard that holds the domain's own item, and one
    /// the domain does not hold (a public item of another domain) on the first shard that has it.
    private func views(of identifiers: [String], domain: String, now: Int64) throws(SearchlightError) -> [Bool] {
        guard topology != nil, shards.count > 1 else {
            return try write(.views(identifiers: identifiers, domain: domain, now: now)).viewed
        }
        let named = identifiers.map {
            StoredItem(
                domain: domain, identifier: $0, title: "", description: "", schema: "", keywords: [], data: [],
                isPublic: false, expiration: 0)
        }
        let found = try eachShard { _, shard throws(SearchlightError) in try shard.documents(of: named).ids }
        var recorded = [Bool](repeating: false, count: identifiers.count)
        // First each shard's own items of the domain, then, on each shard, those still unrecorded
        // that it does not hold as the domain's (a public item of another domain).
        for own in [true, false] {
            for index in shards.indices {
                let positions = identifiers.indices.filter {
                    own ? found[index][$0] != 0 : !recorded[$0] && found[index][$0] == 0
                }
                guard !positions.isEmpty else { continue }
                let done = try write(
                    .views(identifiers: positions.map { identifiers[$0] }, domain: domain, now: now), on: index
                ).viewed
                for (position, wasRecorded) in zip(positions, done) where wasRecorded { recorded[position] = true }
            }
        }
        return recorded
    }

    /// Runs `body`, naming the shard at `index` in its error.
    private func naming<Result>(_ index: Int, _ body: () throws(SearchlightError) -> Result) throws(SearchlightError)
        -> Result
    {
        guard let topology else { return try body() }
        return try ParallelWork.naming(topology.shards[index].name, body)
    }

    /// Removes the private items of domains, recursively; see ``SearchableIndex/deleteSearchableItems(withDomainIdentifiers:includePublic:)``.
    public func deleteSearchableItems(withDomainIdentifiers domains: [String], includePublic: Bool = false)
        throws(SearchlightError) -> Int
    {
        for domain in domains { try SearchableItem.validateDomain(domain) }
        return try eachShard { index, _ throws(SearchlightError) in
            var removed = 0
            for domain in domains {
                removed += try write(.removeDomain(domain: domain, includePublic: includePublic), on: index).count
            }
            return removed
        }.reduce(0, +)
    }

    /// Deletes the items indexed from the file `source` (``SearchableItem/source``, an absolute
    /// path), of any domain, but those `keeping` names; returns how many were deleted.
    public func deleteItems(fromSource source: String, keeping: [(domain: String, identifier: String)] = [])
        throws(SearchlightError) -> Int
    {
        let keeping = keeping.map { ShardWrite.ItemName(domain: $0.domain, identifier: $0.identifier) }
        return try onEveryShard(.removeSource(source: source, keeping: keeping)).map(\.count).reduce(0, +)
    }

    /// Deletes every expired item.
    public func pruneExpiredItems(now: Int64) throws(SearchlightError) -> Int {
        try onEveryShard(.prune(now: now)).map(\.count).reduce(0, +)
    }
}
