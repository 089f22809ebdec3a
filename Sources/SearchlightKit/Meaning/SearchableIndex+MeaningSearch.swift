import FoundationEssentials
import Synchronization

extension SearchableIndex {
    /// The vector of meaning a search of `query` ranks by, and the ratio it weighs it by; nil for
    /// a search by words alone: a ratio of 0, no free text, an order other than relevance, an
    /// index without vectors, text the model does not read
    /// (``MeaningModel/readText(of:lookUp:)``: the items the caller may see at `now` answer for
    /// the words it does not know), or, for a query that names no ratio, no model.
    ///
    /// - Throws: for a query that names a ratio above 0,
    ///   ``SearchlightError/Code/meaningUnavailable`` when the model is not installed or the index
    ///   holds items but no vectors, ``SearchlightError/Code/meaningModelMismatch`` when another
    ///   model made them.
    static func meaning(
        of query: SearchQuery, _ expression: QueryExpression, sort: [IndexSortKey], _ database: XapianDatabase,
        now: Int64
    ) throws(SearchlightError) -> (vector: [Float], ratio: Double)? {
        let asked = query.semanticRatio != nil
        let ratio = query.semanticRatio ?? SearchQuery.defaultSemanticRatio
        // Meaning reads a question as a question: free text as typed, else the words it looks for.
        let text = expression.isFreeText ? query.text : expression.meaningText
        guard ratio > 0, !text.isEmpty, sort.first.map({ $0 == .relevance }) ?? true, query.limit > 0 else {
            return nil
        }
        // A question told in a language the model does not read is searched by its words alone. One
        // word is not told: CLD2 guesses at a word alone (`couch` is Irish to it). No language is
        // expected of a question: an English prior tells short French ones English.
        if text.split(whereSeparator: \.isWhitespace).count >= 2,
            let told = XapianDatabase.detectLanguage(text, expected: ""),
            !MeaningModel.languages.contains(told)
        {
            return nil
        }
        let counts = try database.meaningCounts()
        guard counts.withMeaning > 0 else {
            guard asked, counts.items > 0 else { return nil }
            throw SearchlightError(
                .meaningUnavailable,
                "The index has no vectors of meaning: run `searchlight embed` to give its items theirs")
        }
        if let recorded = try database.meaningModel(), recorded != MeaningModel.name {
            guard asked else { return nil }
            try requireModel(recorded: recorded)
        }
        let model: MeaningModel
        do throws(SearchlightError) {
            guard let shared = try MeaningModel.shared() else {
                guard asked else { return nil }
                _ = try MeaningModel.installed()
                return nil
            }
            model = shared
        } catch {
            guard asked else { return nil }
            throw error
        }
        let read = try model.readText(of: text) { words throws(SearchlightError) in
            try database.readWords(words, domain: query.domainIdentifier, scope: query.scope, now: now)
        }
        guard let read else { return nil }
        return (try model.queryVector(read), ratio)
    }

    /// The items nearest in meaning to the item with this identifier (as ``item(withIdentifier:domainIdentifier:now:)``
    /// finds it from the query's domain), among those `query` may see (its domain and scope) and
    /// selects (its text: every item for an empty one), best first, the item itself left out. A
    /// result's score is its similarity in percent (cosine × 100), at least 30.
    ///
    /// - Throws: ``SearchlightError/Code/itemNotFound`` when the query's caller may not see the
    ///   item, ``SearchlightError/Code/meaningUnavailable`` when it has no vector of meaning or a
    ///   shard is read through a shard server.
    public func similar(
        to identifier: String, query: SearchQuery, now: Int64 = currentTime()
    ) throws(SearchlightError) -> SearchResults {
        let canonical = try BranchLink.canonicalIdentifier(in: identifier)
        if topology?.searchesByWordsAlone == true { throw Self.shardServersHaveNoMeaning }
        // The item as `item(withIdentifier:)` finds it: the caller's own, or a public one; for
        // every domain, the first the scope sees.
        let found =
            if let domain = query.domainIdentifier {
                try item(withIdentifier: canonical, domainIdentifier: domain, now: now)
            } else {
                try item(withIdentifier: canonical, visibleTo: nil, scope: query.scope, now: now)
            }
        guard let found else {
            throw SearchlightError(.itemNotFound, "No item with the identifier \(canonical) is visible here")
        }
        let owner = found.domainIdentifier
        let expected = try read { database throws(SearchlightError) in try database.defaultLanguage() }
        guard MeaningModel.reads(found.object, expecting: expected) else {
            let language = found.object.writtenLanguage(expecting: expected)
            throw SearchlightError(
                .meaningUnavailable,
                "The item \(canonical) is written in \(language), which the meaning model does not read: "
                    + "it has no vector of meaning, and is found by its words")
        }
        let raw = try read { database throws(SearchlightError) in
            let attributes = ItemAttribute.all + (try database.customFields())
            let expression = try query.parsed(attributes: attributes).expression
            let shape = XapianDatabase.SearchShape(offset: query.offset, limit: query.limit)
            return try database.similar(
                to: canonical, in: owner, among: expression, domain: query.domainIdentifier, scope: query.scope,
                now: now, shape: shape, decode: decodeResult)
        }
        return SearchResults(
            query: query.text, total: raw.total, offset: query.offset, limit: query.limit, suggestion: nil,
            results: raw.hits.map(\.result),
            relaxed: false, facets: [])
    }
}

extension MeaningModel {
    private static let loaded = Mutex<Result<MeaningModel?, SearchlightError>?>(nil)

    /// The installed model, loaded once a process (checking its files costs about 60 ms); nil
    /// when none is installed.
    static func shared() throws(SearchlightError) -> MeaningModel? {
        try loaded.withLock { loaded throws(SearchlightError) in
            if loaded == nil {
                do throws(SearchlightError) {
                    loaded = .success(try installedIfAny())
                } catch {
                    loaded = .failure(error)
                }
            }
            return try loaded!.get()
        }
    }
}
