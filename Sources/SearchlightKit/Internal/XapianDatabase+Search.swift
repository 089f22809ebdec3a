internal import CXapian

extension XapianDatabase {
    struct RawResults {
        struct Hit {
            var item: SearchableItem
            var percent: Int
            var snippet: Snippet
        }
        var total: Int
        var hits: [Hit]
        /// Corrected spellings, by the word's place in the query text.
        var corrections: [(location: Range<Int>, word: String)]
        /// No item had every plain word: the items with the most of them (``SearchResults/relaxed``).
        var relaxed = false
    }

    func search(
        _ expression: QueryExpression, domain: String?, scope: SearchQuery.Scope, now: Int64, offset: Int, limit: Int,
        relax: Bool = false, decode: ([UInt8]) throws(SearchlightError) -> SearchableItem
    ) throws(SearchlightError) -> RawResults {
        let handle = try open()
        var arena = TextArena()
        let tree = QueryTree(expression, arena: &arena)
        let domainRange = arena.add(domain ?? "")
        var results: OpaquePointer?
        defer { cx_results_free(results) }
        try arena.withTexts { texts throws(SearchlightError) in
            let nodes = tree.nodes(in: texts)
            try nodes.withUnsafeBufferPointer { buffer throws(SearchlightError) in
                var request = cx_search_request(
                    nodes: buffer.baseAddress, node_count: buffer.count, domain: texts.text(domainRange),
                    all_domains: domain == nil, scope: scope.cScope, now_ms: now, offset: UInt32(clamping: offset),
                    limit: UInt32(clamping: limit), relax: relax)
                try check { error in cx_search(handle, &request, &results, error) }
            }
        }
        guard let results else { return RawResults(total: 0, hits: [], corrections: []) }
        var raw = RawResults(
            total: Int(cx_results_total(results)), hits: [], corrections: [], relaxed: cx_results_relaxed(results))
        for index in 0..<cx_results_count(results) {
            let item = try decode(cx_results_data(results, index).bytes)
            // The snippet comes from the description the item holds: the index keeps it once.
            var description = item.object.contentDescription ?? ""
            description.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { text in
                    cx_results_make_snippet(results, index, cx_text(data: text.baseAddress, length: text.count))
                }
            }
            raw.hits.append(
                RawResults.Hit(
                    item: item, percent: Int(cx_results_percent(results, index)), snippet: Self.snippet(results, index))
            )
        }
        for index in 0..<cx_results_correction_count(results) {
            guard let location = tree.wordLocation(node: Int(cx_results_correction_node(results, index))) else {
                continue
            }
            raw.corrections.append((location, cx_results_correction_text(results, index).string))
        }
        return raw
    }

    /// Result `index`'s snippet, its byte ranges turned into ranges of the string.
    private static func snippet(_ results: OpaquePointer, _ index: Int) -> Snippet {
        let text = cx_results_snippet(results, index).string
        var count = 0
        guard let ranges = cx_results_snippet_matches(results, index, &count) else { return Snippet(text: text) }
        let utf8 = text.utf8
        var matches: [Range<String.Index>] = []
        for range in UnsafeBufferPointer(start: ranges, count: count) {
            let start = Int(range.offset)
            let end = start + Int(range.length)
            guard end <= utf8.count else { continue }
            matches.append(utf8.index(utf8.startIndex, offsetBy: start)..<utf8.index(utf8.startIndex, offsetBy: end))
        }
        return Snippet(text: text, matches: matches)
    }
}
