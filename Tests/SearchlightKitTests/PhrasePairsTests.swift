import SearchlightTesting
import Testing

@testable import SearchlightKit

@Suite("Phrases of common words read through their pairs (index format 5)", .temporaryFolder)
struct PhrasePairsTests {
    static let (first, second, third, sixth, twentieth, rare) = (
        vocabulary[0], vocabulary[1], vocabulary[2], vocabulary[5], vocabulary[19], vocabulary[390]
    )

    /// Phrases of common words (in titles, keywords and descriptions, repeated, of three words, with
    /// other words and exclusions), a phrase with a rare word, and one no item has.
    static let queries = [
        "\"\(first) \(second)\"", "\"\(second) \(first)\"", "\"\(first) \(first)\"", "title:\"\(first) \(second)\"",
        "description:\"\(sixth) \(first)\"", "\"\(first) \(second) \(third)\"", "\"\(second) \(first)\" \(sixth)",
        "\"\(first) \(twentieth)\" -\(second)", "\"\(first) \(second)\" OR \"\(third) \(first)\"",
        "\"\(rare) \(first)\"", "\"\(twentieth) \(twentieth) \(twentieth)\"",
    ]

    /// Searches every query in several domains, scopes and pages through pairs and without them,
    /// and expects the same; returns how many searches found something.
    private func compare(_ reader: SearchableIndex) throws -> Int {
        var found = 0
        for text in Self.queries {
            for (domain, scope) in [("default", SearchQuery.Scope.all), ("com.other", .public), (nil, .all)] {
                for (offset, limit) in [(0, 20), (7, 10), (0, 0), (40, 20)] {
                    let query = SearchQuery(text, domainIdentifier: domain, scope: scope, limit: limit, offset: offset)
                    let whole = try reader.search(query, now: now, split: .automatic, pairs: false).results
                    let paired = try reader.search(query, now: now, split: .automatic).results
                    let label = "\(text) from \(domain ?? "every domain"), offset \(offset), limit \(limit)"
                    #expect(paired.results == whole.results, "\(label)")
                    #expect(paired.suggestion == whole.suggestion, "\(label)")
                    // Totals are exact up to the 1,000 matches past the page a search checks.
                    if whole.total < offset + limit + 1000 {
                        #expect(paired.total == whole.total, "\(label)")
                    } else {
                        #expect(paired.total >= offset + limit + 1000, "\(label)")
                    }
                    if !whole.results.isEmpty { found += 1 }
                }
            }
        }
        return found
    }

    @Test("written in transactions: the first items have no pairs, the later ones do, and phrases find the same")
    func transactions() throws {
        // Three batches of 1,000: the first is written before the index has 500 items and chooses
        // its common words, as the second batch's transaction begins.
        let test = try commonWordsCatalogue()
        let common = try indexMetadata(test.path, "searchlight.common").split(separator: "\n").map(String.init)
        #expect(common.contains(Self.first) && common.contains("XC" + Self.first))
        #expect(!common.contains(Self.rare))
        let reader = try SearchableIndex(path: test.path, access: .readOnly)
        // Most searches that ask for results find some: the comparison is not vacuous.
        #expect(try compare(reader) >= 60)
    }

    /// `count` items of Zipf-drawn words as JSON objects, in two domains, a third private.
    private static func objects(_ count: Int) -> [String] {
        let random = PseudoRandom(seed: 0x9A17)
        func words(_ count: Int) -> String { (0..<count).map { _ in zipfWord(random) }.joined(separator: " ") }
        return (0..<count).map { number in
            let keywords = (0..<random.next(3)).map { _ in "\"\(zipfWord(random))\"" }.joined(separator: ",")
            let domain = ["default", "com.other"][random.next(2)]
            let mode = random.next(3) == 0 ? "private" : "public"
            return #"{"canonicalIdentifier":"item/\#(number)","title":"\#(words(2 + random.next(5)))","#
                + #""contentDescription":"\#(words(8 + random.next(30)))","keywords":[\#(keywords)],"#
                + #""contentIndexMode":"\#(mode)","domain":"\#(domain)"}"#
        }
    }

    private let indexer = Indexer(options: IndexingOptions(maximumTimeToLive: nil), jobs: 2, now: now)

    @Test("written by a bulk build: the first piece chooses the common words, and phrases find the same")
    func bulkBuild() throws {
        let random = PseudoRandom(seed: 0x51)
        func words(_ count: Int) -> String { (0..<count).map { _ in zipfWord(random) }.joined(separator: " ") }
        let text = Self.objects(6_000).joined(separator: "\n") + "\n"
        // Large enough to be built in shards rather than written in one transaction.
        #expect(text.utf8.count > Indexer.directInputLimit)
        let input = try TemporaryFolder.write("items.jsonl", text)
        let test = try TestIndex()
        #expect(try indexer.index([.path(input)], into: test.index).added == 6_000)
        #expect(try indexMetadata(test.path, "searchlight.common").split(separator: "\n").contains("XC" + Self.first))
        let reader = try SearchableIndex(path: test.path, access: .readOnly)
        #expect(try compare(reader) >= 60)

        // A small run into it afterwards is one transaction, which gives its items the same pairs.
        let more = (0..<50).map { number in
            item("more/\(number)", title: "\(Self.first) \(Self.second) \(words(3))", description: words(12))
        }
        try test.index.indexSearchableItems(more, now: now)
        let refreshed = try SearchableIndex(path: test.path, access: .readOnly)
        #expect(try compare(refreshed) >= 60)
        let query = SearchQuery("title:\"\(Self.first) \(Self.second)\"", limit: 0)
        #expect(try refreshed.search(query, now: now).total >= 50)
    }

    @Test("a bulk build of a file per item chooses the common words after 500 items, and phrases find the same")
    func smallFiles() throws {
        let folder = try TemporaryFolder.subfolder("items")
        let objects = Self.objects(5_000)
        // Large enough to be built in shards rather than written in one transaction.
        #expect(objects.reduce(0) { $0 + $1.utf8.count } > Indexer.directInputLimit)
        for (number, object) in objects.enumerated() {
            try TemporaryFolder.write("item-\(number).json", object, in: folder)
        }
        let test = try TestIndex()
        #expect(try indexer.index([.path(folder)], into: test.index).added == 5_000)
        #expect(try indexMetadata(test.path, "searchlight.common").split(separator: "\n").contains("XC" + Self.first))
        let reader = try SearchableIndex(path: test.path, access: .readOnly)
        #expect(try compare(reader) >= 60)
    }

    @Test("an emptied index forgets its common words and chooses them again")
    func emptied() throws {
        let test = try commonWordsCatalogue()
        for domain in ["default", "com.other", "com.third"] {
            _ = try test.index.deleteSearchableItems(withDomainIdentifiers: [domain], includePublic: true)
        }
        try test.index.indexSearchableItems([item("one", title: "\(Self.first) \(Self.second)")], now: now)
        #expect(try indexMetadata(test.path, "searchlight.common").isEmpty)
        #expect(try test.index.ids("\"\(Self.first) \(Self.second)\"") == ["one"])
    }
}
