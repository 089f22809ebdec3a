internal import CXapian

extension XapianDatabase {
    struct RawResults {
        struct Hit {
            var result: SearchResult
            /// The stored item, decoded whole when the search asked for it (`whole`).
            var item: SearchableItem?
        }
        var total: Int
        /// `total` is an estimate (``SearchResults/totalIsEstimate``).
        var totalIsEstimate = false
        /// The page came from the impact tiers (``SearchResults/fromTiers``).
        var fromTiers = false
        var hits: [Hit]
        /// Corrected spellings, by the word's place in the query text.
        var corrections: [(location: Range<Int>, word: String)]
        /// No item had every plain word: the items with the most of them (``SearchResults/relaxed``).
        var relaxed = false
        /// The facets asked for, in order.
        var facets: [Facet] = []
    }

    /// What a search asks beside its query: its page, its order and its counts.
    struct SearchShape {
        var offset: Int
        var limit: Int
        var relax = false
        var sort: [IndexSortKey] = []
        var facets: [ItemAttribute] = []
        /// Counts and sorts use what is kept in memory (``SearchableIndex/keepsFieldsInMemory``).
        var keepFieldsInMemory = false
        /// The query's vector of meaning, and how much meaning weighs against words (0 to 1).
        var meaning: [Float]? = nil
        var semanticRatio = 0.0
        /// Words also find the words a typo from them (``SearchQuery/typos``).
        var typos = false
        /// The languages the query is read in (ISO 639 codes); empty: those of the items the
        /// search may see (``SearchQuery/languages``).
        var languages: [String] = []
        /// Meaning may find items the words do not match: the query is free text alone
        /// (``QueryExpression/isFreeText``).
        var meaningFinds = false
    }

    /// The page of `expression`'s results. Each result's fields are those the shim read from its
    /// stored data; `decode` reads the data of a result whose fields the shim left to the Kit, and of
    /// every result when `whole` (then each ``RawResults/Hit/item`` is the stored item).
    func search(
        _ expression: QueryExpression, domain: String?, scope: SearchQuery.Scope, now: Int64, shape: SearchShape,
        whole: Bool = false, decode: ([UInt8]) throws(SearchlightError) -> SearchableItem
    ) throws(SearchlightError) -> RawResults {
        try run(expression, domain: domain, scope: scope, now: now, shape: shape, whole: whole, decode: decode) {
            handle, request, results, error in cx_search(handle, request, results, error)
        }
    }

    /// What the index says of each of `words` for a search by meaning of the caller (`domain`,
    /// `scope`) at `now`: held by an item it may see, or a typo from a word one holds, or neither.
    func readWords(_ words: [String], domain: String?, scope: SearchQuery.Scope, now: Int64)
        throws(SearchlightError) -> [MeaningModel.IndexWord]
    {
        guard !words.isEmpty else { return [] }
        let handle = try open()
        var arena = TextArena()
        let ranges = words.map { arena.add($0) }
        let domainRange = arena.add(domain ?? "")
        var held = [Bool](repeating: false, count: words.count)
        var corrections = [UnsafeMutablePointer<CChar>?](repeating: nil, count: words.count)
        defer { corrections.forEach { cx_string_free($0) } }
        try arena.withTexts { texts throws(SearchlightError) in
            // What the caller may see, and when: the words are not a query, and no node is read.
            var request = cx_search_request()
            request.domain = texts.text(domainRange)
            request.all_domains = domain == nil
            request.scope = scope.cScope
            request.now_ms = now
            let texts = ranges.map { texts.text($0) }
            try texts.withUnsafeBufferPointer { buffer throws(SearchlightError) in
                try held.withUnsafeMutableBufferPointer { answers throws(SearchlightError) in
                    try corrections.withUnsafeMutableBufferPointer { corrected throws(SearchlightError) in
                        try check { error in
                            cx_read_words(
                                handle, &request, buffer.baseAddress, buffer.count, answers.baseAddress,
                                corrected.baseAddress, error)
                        }
                    }
                }
            }
        }
        return zip(held, corrections).map { held, correction in
            if held { return .held }
            return correction.map { .corrected(String(cString: $0)) } ?? .unknown
        }
    }

    /// The items nearest in meaning to the item (`itemDomain`, `identifier`) among those the
    /// caller (`domain`, `scope`) may see and `expression` selects, the item left out.
    ///
    /// - Throws: ``SearchlightError/Code/itemNotFound`` when the caller may not see the item,
    ///   ``SearchlightError/Code/meaningUnavailable`` when it has no vector of meaning yet.
    func similar(
        to identifier: String, in itemDomain: String, among expression: QueryExpression, domain: String?,
        scope: SearchQuery.Scope, now: Int64, shape: SearchShape,
        decode: ([UInt8]) throws(SearchlightError) -> SearchableItem
    ) throws(SearchlightError) -> RawResults {
        var arena = TextArena()
        let item = (arena.add(itemDomain), arena.add(identifier))
        var unembedded = false
        var notFound = false
        do throws(SearchlightError) {
            let raw = try arena.withTexts { texts throws(SearchlightError) in
                try run(expression, domain: domain, scope: scope, now: now, shape: shape, decode: decode) {
                    handle, request, results, error in
                    let status = cx_search_similar(
                        handle, request, texts.text(item.0), texts.text(item.1), results, error)
                    notFound = status == CX_ERR_NOT_FOUND
                    if status == CX_OK, let found = results.pointee { unembedded = cx_results_unembedded(found) }
                    return status
                }
            }
            guard !unembedded else {
                throw SearchlightError(
                    .meaningUnavailable,
                    "The item \(identifier) has no vector of meaning yet: run `searchlight embed` to give it one")
            }
            return raw
        } catch  where notFound {
            throw SearchlightError(.itemNotFound, "No item with the identifier \(identifier) is visible here")
        }
    }

    /// Builds the shim's request for a search and calls `call` with it.
    private func run(
        _ expression: QueryExpression, domain: String?, scope: SearchQuery.Scope, now: Int64, shape: SearchShape,
        whole: Bool = false, decode: ([UInt8]) throws(SearchlightError) -> SearchableItem,
        _ call: (
            OpaquePointer, UnsafePointer<cx_search_request>, UnsafeMutablePointer<OpaquePointer?>,
            UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
        ) -> cx_status
    ) throws(SearchlightError) -> RawResults {
        let handle = try open()
        if shape.relax { _ = StopWords.languagesLoaded }
        var arena = TextArena()
        let tree = QueryTree(expression, now: now, arena: &arena)
        let domainRange = arena.add(domain ?? "")
        let languagesRange = arena.add(shape.languages.joined(separator: ","))
        var results: OpaquePointer?
        defer { cx_results_free(results) }
        let sortKeys = shape.sort.map(\.shimKey)
        let facets = shape.facets.map { attribute in
            cx_facet_request(slot: attribute.slot, kind: attribute.kind == .text ? CX_VALUE_TEXT : CX_VALUE_NUMBER)
        }
        try arena.withTexts { texts throws(SearchlightError) in
            let nodes = tree.nodes(in: texts)
            try nodes.withUnsafeBufferPointer { buffer throws(SearchlightError) in
                try sortKeys.withUnsafeBufferPointer { sortBuffer throws(SearchlightError) in
                    try facets.withUnsafeBufferPointer { facetBuffer throws(SearchlightError) in
                        try (shape.meaning ?? []).withUnsafeBufferPointer { meaning throws(SearchlightError) in
                            var request = cx_search_request(
                                nodes: buffer.baseAddress, node_count: buffer.count, domain: texts.text(domainRange),
                                all_domains: domain == nil, scope: scope.cScope, now_ms: now,
                                offset: UInt32(clamping: shape.offset), limit: UInt32(clamping: shape.limit),
                                relax: shape.relax, sort_keys: sortBuffer.baseAddress,
                                sort_key_count: sortBuffer.count, facets: facetBuffer.baseAddress,
                                facet_count: facetBuffer.count, keep_fields_in_memory: shape.keepFieldsInMemory,
                                meaning: meaning.isEmpty ? nil : meaning.baseAddress,
                                meaning_dimensions: UInt32(meaning.count), semantic_ratio: shape.semanticRatio,
                                meaning_finds: shape.meaningFinds, typos: shape.typos,
                                languages: texts.text(languagesRange))
                            try check { error in call(handle, &request, &results, error) }
                        }
                    }
                }
            }
        }
        guard let results else { return RawResults(total: 0, hits: [], corrections: []) }
        var raw = RawResults(
            total: Int(cx_results_total(results)), hits: [], corrections: [], relaxed: cx_results_relaxed(results),
            facets: shape.facets.enumerated().map { index, attribute in Self.facet(attribute, results, index) })
        raw.totalIsEstimate = cx_results_total_is_estimate(results)
        raw.fromTiers = cx_results_from_tiers(results)
        var count = 0
        let page = UnsafeBufferPointer(start: cx_results_page(results, &count), count: count)
        raw.hits.reserveCapacity(page.count)
        for result in page {
            let (score, snippet) = (Int(result.percent), Self.snippet(of: result))
            let matchedBy = SearchResult.MatchedBy(rawValue: Int(result.matched_by))
            if result.fields_read && !whole {
                raw.hits.append(
                    RawResults.Hit(
                        result: SearchResult(
                            canonicalIdentifier: result.identifier.string, domain: result.domain.string,
                            title: result.title.presentString, contentDescription: result.description.presentString,
                            keywords: UnsafeBufferPointer(start: result.keywords, count: result.keyword_count)
                                .map(\.string),
                            canonicalUrl: result.canonical_url.presentString, imageUrl: result.image_url.presentString,
                            contentIndexMode: result.is_public ? .public : .private,
                            expirationDate: result.expiration > 0 ? result.expiration : nil, score: score,
                            snippet: snippet, matchedBy: matchedBy)))
            } else {
                let item = try decode(result.data.bytes)
                raw.hits.append(
                    RawResults.Hit(
                        result: SearchResult(item: item, score: score, snippet: snippet, matchedBy: matchedBy),
                        item: whole ? item : nil))
            }
        }
        for index in 0..<cx_results_correction_count(results) {
            guard let location = tree.wordLocation(node: Int(cx_results_correction_node(results, index))) else {
                continue
            }
            raw.corrections.append((location, cx_results_correction_text(results, index).string))
        }
        return raw
    }

    /// Facet `index` of the results, for `attribute`.
    private static func facet(_ attribute: ItemAttribute, _ results: OpaquePointer, _ index: Int) -> Facet {
        var texts: [(String, Int)] = []
        var numbers: [(Double, Int)] = []
        var collected = 0
        if let each = cx_results_facet_numbers(results, index, &collected) {
            // Every match's number, as counted on one database.
            numbers = UnsafeBufferPointer(start: each, count: collected).map { ($0, 1) }
        }
        for position in 0..<cx_results_facet_size(results, index) {
            var text = cx_text()
            var number = 0.0
            var count: UInt64 = 0
            cx_results_facet_value(results, index, position, &text, &number, &count)
            if attribute.kind == .text {
                texts.append((text.string, Int(count)))
            } else {
                numbers.append((number, Int(count)))
            }
        }
        return Facet(attribute, texts: texts, numbers: numbers)
    }

    /// A result's snippet, its byte ranges turned into ranges of the string.
    private static func snippet(of result: cx_result) -> Snippet {
        let text = result.snippet.string
        guard let ranges = result.snippet_matches else { return Snippet(text: text) }
        let utf8 = text.utf8
        var matches: [Range<String.Index>] = []
        for range in UnsafeBufferPointer(start: ranges, count: result.snippet_match_count) {
            let start = Int(range.offset)
            let end = start + Int(range.length)
            guard end <= utf8.count else { continue }
            matches.append(utf8.index(utf8.startIndex, offsetBy: start)..<utf8.index(utf8.startIndex, offsetBy: end))
        }
        return Snippet(text: text, matches: matches)
    }
}

extension IndexSortKey {
    /// The key as the shim reads it.
    var shimKey: cx_sort_key {
        switch self {
        case .relevance:
            cx_sort_key(slot: CX_SLOT_RELEVANCE.rawValue, descending: false, distance: false, latitude: 0, longitude: 0)
        case .attribute(let slot, let descending):
            cx_sort_key(slot: slot, descending: descending, distance: false, latitude: 0, longitude: 0)
        case .distance(let slot, let latitude, let longitude, let descending):
            cx_sort_key(slot: slot, descending: descending, distance: true, latitude: latitude, longitude: longitude)
        }
    }
}
