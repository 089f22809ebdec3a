import FoundationEssentials
import Synchronization

extension SearchableIndex {
    /// Searches (docs/reference.md, *The query language*): relevance-ranked, expired items never returned, visibility by domain
    /// and scope.
    ///
    /// - Throws: ``SearchlightError/Code/invalidQuery`` for a malformed query.
    public func search(_ query: SearchQuery, now: Int64 = currentTime()) throws(SearchlightError) -> SearchResults {
        var readAs: String?
        var relaxedPhrases = false
        let raw = try read { database throws(SearchlightError) in
            // The index's custom fields are fields of the query language, sort keys and counts.
            let attributes = ItemAttribute.all + (try database.customFields())
            let reading = try query.parsed(attributes: attributes)
            readAs = reading.readAs
            let found = try search(query, reading, in: database, now: now)
            // A question that finds nothing reads its phrases as words (SPEC §2.1).
            guard found.total == 0, let asWords = reading.phrasesAsWords else { return found }
            var relaxed = query
            relaxed.text = asWords
            let words = try relaxed.parsed(attributes: attributes)
            let again = try search(query, words, in: database, now: now)
            guard again.total > 0 else { return found }
            (readAs, relaxedPhrases) = (words.readAs ?? asWords, true)
            return again
        }
        let results = raw.hits.map(\.result)
        var page = SearchResults(
            query: query.text, total: raw.total, offset: query.offset, limit: query.limit,
            suggestion: Self.suggestion(
                for: relaxedPhrases ? readAs ?? query.text : query.text, corrections: raw.corrections),
            results: results,
            relaxed: raw.relaxed || relaxedPhrases, facets: raw.facets, totalIsEstimate: raw.totalIsEstimate,
            readAs: readAs)
        page.fromTiers = raw.fromTiers
        return page
    }

    /// One run of `query` as `reading` reads it.
    private func search(
        _ query: SearchQuery, _ reading: SearchQuery.Reading, in database: XapianDatabase, now: Int64
    ) throws(SearchlightError) -> XapianDatabase.RawResults {
        var shape = XapianDatabase.SearchShape(
            offset: query.offset, limit: query.limit, relax: reading.relaxable, sort: reading.sort,
            facets: reading.facets, keepFieldsInMemory: keepsFieldsInMemory, typos: query.typos,
            languages: query.languages.compactMap(BranchUniversalObject.languageCode(of:)))
        if topology?.searchesByWordsAlone == true {
            // Searched by words alone; a search that names a ratio asks for meaning.
            if (query.semanticRatio ?? 0) > 0 { throw Self.shardServersHaveNoMeaning }
        } else if let meaning = try Self.meaning(
            of: query, reading.expression, sort: reading.sort, database, now: now)
        {
            (shape.meaning, shape.semanticRatio) = meaning
            // Free text alone may find items by meaning; an explicit operator selects exactly.
            shape.meaningFinds = reading.relaxable && reading.expression.isFreeText
        }
        return try database.search(
            reading.expression, domain: query.domainIdentifier, scope: query.scope, now: now, shape: shape,
            decode: decodeResult)
    }

    /// The query with its misspelled words replaced, or `nil` when there is nothing to correct.
    private static func suggestion(for text: String, corrections: [(location: Range<Int>, word: String)]) -> String? {
        guard !corrections.isEmpty else { return nil }
        var characters = Array(text)
        for correction in corrections.sorted(by: { $0.location.lowerBound > $1.location.lowerBound })
        where correction.location.upperBound <= characters.count {
            characters.replaceSubrange(correction.location, with: Array(correction.word))
        }
        return String(characters)
    }

    /// The item with this identifier as seen from `domainIdentifier`: the domain's own item, or a
    /// public item of another domain. `nil` when there is none or it has expired. A Branch link
    /// names the item of its data's canonical identifier (``BranchLink``).
    public func item(
        withIdentifier given: String, domainIdentifier: String = SearchableItem.defaultDomain,
        now: Int64 = currentTime()
    ) throws(SearchlightError) -> SearchableItem? {
        try SearchableItem.validateDomain(domainIdentifier)
        let identifier = try Self.canonicalIdentifier(given)
        let own = try read { database throws(SearchlightError) in
            try database.get(domain: domainIdentifier, identifier: identifier)
        }
        if let own {
            var item = try decodeStored(own.data)
            item.source = own.source
            return item.isExpired(at: now) ? nil : item
        }
        return try firstItem(withIdentifier: identifier, visibleTo: domainIdentifier, scope: .public, now: now)
    }

    /// The first item with this identifier (or Branch link) that a search from `domainIdentifier`
    /// (every domain when `nil`) in `scope` sees; `nil` when there is none or it has expired.
    public func item(
        withIdentifier given: String, visibleTo domainIdentifier: String?, scope: SearchQuery.Scope,
        now: Int64 = currentTime()
    ) throws(SearchlightError) -> SearchableItem? {
        try firstItem(
            withIdentifier: try Self.canonicalIdentifier(given), visibleTo: domainIdentifier, scope: scope, now: now)
    }

    /// The canonical identifier `given` names (itself, or a Branch link's).
    private static func canonicalIdentifier(_ given: String) throws(SearchlightError) -> String {
        guard !given.isEmpty else {
            throw SearchlightError(.missingIdentifier, "A canonical identifier is required to name the item")
        }
        return try BranchLink.canonicalIdentifier(in: given)
    }

    private func firstItem(
        withIdentifier identifier: String, visibleTo domainIdentifier: String?, scope: SearchQuery.Scope, now: Int64
    ) throws(SearchlightError) -> SearchableItem? {
        let raw = try read { database throws(SearchlightError) in
            try database.search(
                .filter(.identifier, identifier), domain: domainIdentifier, scope: scope, now: now,
                shape: .init(offset: 0, limit: 1), whole: true, decode: decodeStored)
        }
        return raw.hits.first?.item
    }

    /// Counts for one domain: its live public and private items, and its expired ones not yet
    /// pruned. `path` and `sizeBytes` are left out: they describe the whole index.
    public func statistics(domainIdentifier: String, now: Int64 = currentTime()) throws(SearchlightError)
        -> IndexStatistics
    {
        try SearchableItem.validateDomain(domainIdentifier)
        let counts = try read { database throws(SearchlightError) in
            try database.counts(domain: domainIdentifier, now: now)
        }
        return IndexStatistics(
            path: nil, documents: counts.documents, public: counts.publicCount, private: counts.privateCount,
            expired: counts.expiredCount, domains: [domainIdentifier: counts.documents], sizeBytes: nil)
    }

    /// The files items were indexed from (``SearchableItem/source``) whose paths begin with
    /// `prefix`, with their numbers of stored items, in byte order.
    public func sources(beginningWith prefix: String = "") throws(SearchlightError) -> [(path: String, items: Int)] {
        try read { database throws(SearchlightError) in
            try database.sources(prefix: prefix).map { (path: $0.name, items: $0.items) }
        }
    }

    /// Counts: documents, public, private, expired but not yet pruned, per domain, and the size on disk.
    public func statistics(now: Int64 = currentTime()) throws(SearchlightError) -> IndexStatistics {
        guard let topology else {
            let (counts, domains, language) = try read { database throws(SearchlightError) in
                (try database.counts(now: now), try database.domains(), try database.defaultLanguage())
            }
            return IndexStatistics(
                path: path, documents: counts.documents, public: counts.publicCount, private: counts.privateCount,
                expired: counts.expiredCount, domains: domains, sizeBytes: IndexLayout.size(at: path),
                language: language)
        }
        let (domains, language) = try read { database throws(SearchlightError) in
            (try database.domains(), try database.defaultLanguage())
        }
        return try Self.statistics(of: topology, domains: domains, language: language, now: now)
    }

    /// The statistics of the index at `path` (``statistics(now:)``), without waiting for a
    /// topology's shards to hold one batch: each shard is counted at the batch it holds, and the
    /// domains are those of every shard's latest revision. What an operator looks at while a
    /// shard machine is behind (its replicator stopped, or catching up), where a reader waits up
    /// to 10 s for the shards to agree and then fails.
    public static func statistics(ofIndexAt path: String, now: Int64 = currentTime()) throws(SearchlightError)
        -> IndexStatistics
    {
        guard let topology = try Topology.read(path) else {
            let index = try SearchableIndex(path: path, access: .readOnly)
            defer { try? index.close() }
            return try index.statistics(now: now)
        }
        do throws(SearchlightError) {
            try checkFormats(topology)
            let view = try openView(topology, waiting: nil)
            defer { try? view.close() }
            return try statistics(
                of: topology, domains: try view.domains(), language: try view.defaultLanguage(), now: now)
        } catch {
            throw naming(unreachableShardOf: topology, in: error)
        }
    }

    /// A topology's statistics: each shard's counts at the batch it holds, and the whole index's,
    /// its shards' together.
    private static func statistics(of topology: Topology, domains: [String: Int], language: String?, now: Int64)
        throws(SearchlightError) -> IndexStatistics
    {
        let shards = try ParallelWork.run(topology.shards, names: topology.shards.map(\.name)) {
            _, shard throws(SearchlightError) in
            let reader = try Self.openShardReader(shard)
            defer { try? reader.close() }
            let counts = try reader.counts(now: now)
            var size: Int?
            if case .folder(let folder) = shard { size = IndexLayout.size(at: folder) }
            return ShardStatistics(
                shard: shard.name, documents: counts.documents, public: counts.publicCount,
                private: counts.privateCount, expired: counts.expiredCount, batch: try BatchJournal.batch(of: reader),
                sizeBytes: size)
        }
        func total(_ count: (ShardStatistics) -> Int) -> Int { shards.reduce(0) { $0 + count($1) } }
        return IndexStatistics(
            path: topology.path, documents: total(\.documents), public: total(\.public), private: total(\.private),
            expired: total(\.expired), domains: domains, sizeBytes: total { $0.sizeBytes ?? 0 }, shards: shards,
            language: language)
    }

    /// Calls `body` with every item of `domainIdentifier` (every domain when `nil`), in storage
    /// order, skipping expired ones unless `includeExpired`.
    public func forEachItem(
        domainIdentifier: String?, includeExpired: Bool = false, now: Int64 = currentTime(),
        _ body: (SearchableItem) throws -> Void
    ) throws {
        if let domainIdentifier { try SearchableItem.validateDomain(domainIdentifier) }
        try database.withLock { database in
            try refresh(&database)
            try database.forEachDocument { data, expiration, views, source in
                if !includeExpired, expiration > 0, expiration <= now { return }
                let item = try Self.storedItem(data, views: views, source: source, path: path)
                if let domainIdentifier, item.domainIdentifier != domainIdentifier { return }
                try body(item)
            }
        }
    }

    func decodeStored(_ data: [UInt8]) throws(SearchlightError) -> SearchableItem {
        try Self.decodeStored(data, path: path)
    }

    /// A stored item as far as a search result shows it (``SearchResult``): the members of its
    /// JSON that the result's fields are read from (``ResultMembers``), the others left undecoded.
    /// A page of results decodes its items' JSON whole several times more slowly.
    func decodeResult(_ data: [UInt8]) throws(SearchlightError) -> SearchableItem {
        try Self.decode(data, path: path) { try JSONDecoder().decode(ResultMembers.self, from: $0).members }
    }

    /// An item as the index at `path` stores it.
    /// A stored item as a cursor gives it (``XapianDatabase/forEachDocument(_:)``): its data, with
    /// its recorded views and the file it came from.
    static func storedItem(_ data: [UInt8], views: Int64, source: String?, path: String) throws(SearchlightError)
        -> SearchableItem
    {
        var item = try decodeStored(data, path: path)
        item.source = source
        if views > 0 { item.object.viewCount = views }
        return item
    }

    static func decodeStored(_ data: [UInt8], path: String) throws(SearchlightError) -> SearchableItem {
        try decode(data, path: path) { try JSONDecoder().decode([String: JSONValue].self, from: $0) }
    }

    /// The item whose members `members` decodes from its stored JSON `data`.
    private static func decode(
        _ data: [UInt8], path: String, members: (Data) throws -> [String: JSONValue]
    ) throws(SearchlightError) -> SearchableItem {
        do {
            return try SearchableItem(storedDictionary: try members(Data(data)))
        } catch {
            throw SearchlightError(
                .indexUnavailable,
                "An item stored in \(path) cannot be read (\(error)): the index was not written by Searchlight, "
                    + "or is damaged", failure: .corrupt)
        }
    }
}

/// The members of a stored item's JSON that a search result's fields are read from (``SearchResult``),
/// decoded without the others: a result shows none of an item's attributes or custom metadata.
private struct ResultMembers: Decodable {
    /// The members, in each dialect a stored item may use: the fields a result shows (a stored
    /// item records its index mode as `contentIndexMode`, ``SearchableItem/dictionary``) and the
    /// item's domain.
    static let keys: [String] =
        [
            ItemField.canonicalIdentifier, .canonicalUrl, .title, .contentDescription, .imageUrl, .keywords,
            .expirationDate, .contentIndexMode,
        ].flatMap(\.keys) + ["domain"]

    var members: [String: JSONValue] = [:]

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: MemberName.self)
        for key in Self.keys {
            if let value = try container.decodeIfPresent(JSONValue.self, forKey: MemberName(stringValue: key)) {
                members[key] = value
            }
        }
    }
}
