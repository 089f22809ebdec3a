import SearchlightTesting
import Testing

@testable import SearchlightKit

/// A catalogue where every word is in many items: 700 items over a vocabulary of 24 words, in
/// three domains, about a third private, some expired, some viewed, and 40 removed, so that the
/// document ids have gaps (`pseudoRandomCatalogue`).
private func crowdedCatalogue() throws -> TestIndex {
    let vocabulary = [
        "amber", "brook", "cedar", "delta", "ember", "fjord", "grove", "heath", "inlet", "juniper", "lark", "marsh",
        "north", "orchid", "pine", "quill", "river", "stone", "tundra", "willow", "café", "crème", "straße", "深度",
    ]
    let random = PseudoRandom(seed: 0x5EED)
    return try pseudoRandomCatalogue(perBatch: 700 / 3 + 1, viewedEvery: 5, random: random) {
        vocabulary[random.next(vocabulary.count)]
    }
}

@Suite("Searches split by document id (parts.cpp)", .temporaryFolder)
struct SplitSearchTests {
    static let queries = [
        "amber", "amber brook", "cedar OR delta", "\"ember fjord\"", "grove -heath", "inlet jun", "ma", "title:north",
        "title:\"orchid pine\"", "description:quill", "keyword:river", "stone AND NOT tundra", "cafe creme", "strasse",
        "深度", "wil*", "mode:public amber", "domain:com.other brook", "", "zzzz",
    ]

    /// Queries with no term to read: the empty query, a word no item has, and a two-letter prefix,
    /// which the matcher expands.
    static let unsplit: Set = ["", "zzzz", "ma"]

    @Test("a search split into 2, 3 or 4 parts finds what one search finds, in the same order, with the same scores")
    func sameResults() throws {
        let test = try crowdedCatalogue()
        let reader = try SearchableIndex(path: test.path, access: .readOnly)
        let whole = SearchSplit(mostParts: 1, postingsPerPart: 0)
        for text in Self.queries {
            for (domain, scope) in [("default", SearchQuery.Scope.all), ("com.other", .public), (nil, .all)] {
                for (offset, limit) in [(0, 20), (7, 10), (0, 0)] {
                    let query = SearchQuery(text, domainIdentifier: domain, scope: scope, limit: limit, offset: offset)
                    let one = try reader.search(query, now: now, split: whole)
                    #expect(one.parts == 1)
                    for parts in 2...4 {
                        let split = try reader.search(
                            query, now: now, split: SearchSplit(mostParts: parts, postingsPerPart: 1))
                        #expect(split.results == one.results, "\(text) in \(parts) parts, offset \(offset)")
                        if !Self.unsplit.contains(text) { #expect(split.parts == parts, "\(text)") }
                    }
                }
            }
        }
    }

    @Test("searches split automatically only when they read enough, and never on a writer's handle")
    func automaticSplit() throws {
        let test = try crowdedCatalogue()
        let reader = try SearchableIndex(path: test.path, access: .readOnly)
        let query = SearchQuery("amber brook")
        #expect(try reader.search(query, now: now, split: .automatic).parts == 1)
        let eager = SearchSplit(mostParts: 0, postingsPerPart: 1)
        let eagerParts = try reader.search(query, now: now, split: eager).parts
        #expect(eagerParts >= 1 && eagerParts <= 8)
        #expect(try test.index.search(query, now: now, split: SearchSplit(mostParts: 4, postingsPerPart: 1)).parts == 1)
    }

    @Test("a split search follows a new commit: every part reads the revision the search opened")
    func followsCommits() throws {
        let test = try crowdedCatalogue()
        let reader = try SearchableIndex(path: test.path, access: .readOnly)
        let split = SearchSplit(mostParts: 3, postingsPerPart: 1)
        let query = SearchQuery("amber", limit: 1000)
        let before = try reader.search(query, now: now, split: split)
        try test.index.indexSearchableItems([item("item/new", title: "amber amber amber", mode: .public)], now: now)
        let after = try reader.search(query, now: now, split: split)
        #expect(after.results.total == before.results.total + 1)
        #expect(after.results.results.contains { $0.canonicalIdentifier == "item/new" })
        let whole = try reader.search(query, now: now, split: SearchSplit(mostParts: 1, postingsPerPart: 0))
        #expect(after.results == whole.results)
    }
}
