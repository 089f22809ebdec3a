import SearchlightKit
import SearchlightTesting
import Testing

@Suite("Terms every item holds", .temporaryFolder)
struct EveryItemTermTests {
    /// Searches that read a term every item holds weighing nothing (a filter, a count, a short
    /// beginning) or weighed: a word, its beginnings, a keyword, a phrase.
    static let searches: [(text: String, matches: Int)] = [
        ("river", 2_399), ("keyword:common", 2_399), ("river keyword:common", 2_399), ("r", 2_399), ("ri", 2_399),
        ("riv", 2_399), ("river pa", 1_199), ("\"river bank\"", 1_200), ("bank -keyword:common", 0),
        ("keyword:common OR bank", 2_399),
    ]

    @Test(
        "after an item is removed, searches, counts and filters on a term every item holds answer, before and after compaction"
    )
    func afterRemoval() throws {
        let test = try TestIndex()
        // Enough items that Xapian's list of every item spans more than one chunk.
        let items = (0..<2_400).map {
            item(
                "item/\($0)", title: "Item \($0)", description: $0 % 2 == 0 ? "river bank" : "river pad",
                keywords: ["common"], mode: .public)
        }
        try test.index.indexSearchableItems(items, now: now)
        // The removal leaves a gap in the document ids.
        _ = try test.index.deleteSearchableItems(withIdentifiers: ["item/7"], includePublic: true)
        for compacted in [false, true] {
            if compacted { _ = try test.index.compact() }
            for (text, matches) in Self.searches {
                for domain in ["default", nil] {
                    for limit in [20, 0] {
                        let query = SearchQuery(text, domainIdentifier: domain, limit: limit, facets: ["category"])
                        let counted = try test.index.search(query, now: now)
                        #expect(counted.total == matches, "\(text) \(domain ?? "") \(limit) compacted \(compacted)")
                        var uncounted = query
                        uncounted.facets = []
                        let found = try test.index.search(uncounted, now: now)
                        // A phrase's total is estimated past 1,000 matches beyond the page.
                        #expect(
                            found.total == matches || found.totalIsEstimate,
                            "\(text) \(domain ?? "") \(limit) compacted \(compacted)")
                        #expect(found.results.map(\.canonicalIdentifier) == counted.results.map(\.canonicalIdentifier))
                    }
                }
            }
        }
    }
}
