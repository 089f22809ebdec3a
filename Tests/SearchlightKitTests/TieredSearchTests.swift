import SearchlightTesting
import Testing

@testable import SearchlightKit

/// The catalogue's words: 400 of three and four letters, the first the commonest.
let vocabulary: [String] = {
    let consonants = Array("bcdfghklmnprstvw"), vowels = Array("aeiou")
    var words: [String] = []
    var seen: Set<String> = []
    let random = PseudoRandom(seed: 0x3EA1)
    while words.count < 400 {
        let bits = random.next(1 << 30)
        var word = String([consonants[bits % 16], vowels[bits / 16 % 5], consonants[bits / 80 % 16]])
        if bits / 1280 % 2 == 0 { word.append(vowels[bits / 2560 % 5]) }
        if seen.insert(word).inserted { words.append(word) }
    }
    return words
}()

/// A word of `vocabulary` drawn with Zipf's law, as in the benchmark's corpus: word `i` comes
/// 1 / (i + 1) as often as the first.
func zipfWord(_ random: PseudoRandom) -> String {
    let total = vocabulary.indices.reduce(0.0) { $0 + 1.0 / Double($1 + 1) }
    var left = Double(random.next(1_000_000)) / 1_000_000 * total
    for index in vocabulary.indices {
        left -= 1.0 / Double(index + 1)
        if left < 0 { return vocabulary[index] }
    }
    return vocabulary[vocabulary.count - 1]
}

/// A catalogue where common words are in well over a thousand items: 3,000 items over the 400
/// words of `vocabulary`, drawn with Zipf's law, in three domains, about a third private, some
/// expired, some viewed, and some removed (`pseudoRandomCatalogue`). Common words repeat in a
/// field in some items, as in real text.
func commonWordsCatalogue() throws -> TestIndex {
    let random = PseudoRandom(seed: 0x7135)
    return try pseudoRandomCatalogue(perBatch: 1000, viewedEvery: 7, random: random) { zipfWord(random) }
}

@Suite("Tiered searches: repeated terms read first (tiers.cpp)", .temporaryFolder)
struct TieredSearchTests {
    /// Words of the catalogue by rank: the commonest, and two less common.
    static let (first, second, sixth, twentieth) = (vocabulary[0], vocabulary[1], vocabulary[5], vocabulary[19])

    static let queries = [
        first, second, sixth, "\(first) \(sixth)", "\(sixth) \(first)", "\"\(first) \(second)\"",
        "\"\(second) \(first)\" \(sixth)", "title:\(first)", "title:\(sixth) \(second)", "description:\(sixth)",
        "\(first) OR \(twentieth)", "\(second) -\(first)", "\(twentieth) \(sixth) \(first)",
        "keyword:\(sixth) \(first)", "mode:public \(second)", "domain:com.other \(first)",
        "title:\"\(first) \(first)\"", "\(sixth)*", "\(twentieth)",
    ]

    /// Searches every query in several domains, scopes and pages, tiered whenever it can be and
    /// never; returns the queries the tiers answered, with how many times, and how many searches
    /// each tier answered.
    private func compare(_ reader: SearchableIndex) throws -> (queries: [String: Int], tiers: [Int: Int]) {
        var tiered: [String: Int] = [:]
        var tiers: [Int: Int] = [:]
        for text in Self.queries {
            for (domain, scope) in [("default", SearchQuery.Scope.all), ("com.other", .public), (nil, .all)] {
                for (offset, limit) in [(0, 20), (7, 10), (0, 1), (0, 0), (40, 20), (150, 50)] {
                    let query = SearchQuery(text, domainIdentifier: domain, scope: scope, limit: limit, offset: offset)
                    let whole = try reader.search(query, now: now, split: .automatic, tiers: .never)
                    #expect(whole.tier == 0)
                    let first = try reader.search(
                        query, now: now, split: .automatic, tiers: SearchTiers(fromPostings: 1))
                    let label = "\(text) from \(domain ?? "every domain"), offset \(offset), limit \(limit)"
                    #expect(first.results.results == whole.results.results, "\(label)")
                    #expect(first.results.suggestion == whole.results.suggestion, "\(label)")
                    if first.tier != 0 {
                        tiered[text, default: 0] += 1
                        tiers[first.tier, default: 0] += 1
                    }
                    // Totals are exact up to the 1,000 matches past the page a search checks, and
                    // estimates, no smaller, beyond.
                    if whole.results.total < offset + limit + 1000 || first.tier == 0 {
                        #expect(first.results.total == whole.results.total, "\(label)")
                    } else {
                        #expect(first.results.total >= offset + limit + 1000, "\(label)")
                    }
                }
            }
        }
        return (tiered, tiers)
    }

    @Test("a tiered search gives the page, order, scores and snippets a whole search gives")
    func samePages() throws {
        let test = try commonWordsCatalogue()
        let reader = try SearchableIndex(path: test.path, access: .readOnly)
        let (tiered, tiers) = try compare(reader)
        // The tiers answer searches of common words: the comparison is not vacuous.
        #expect(tiered.values.reduce(0, +) >= 12, "\(tiered)")
        for text in ["title:\(Self.first)", "description:\(Self.sixth)"] {
            #expect(tiered[text, default: 0] > 0, "\(text)")
        }
        // Phrases run whole (tiers.cpp, `weighted_terms`).
        #expect(!tiered.keys.contains { $0.contains("\"") }, "\(tiered)")
        // The tier of items with a word more than twice in a field answers here; the tier of more
        // than once answers in `twiceInTwoFields`.
        #expect(tiers[2, default: 0] > 0, "\(tiers)")
    }

    @Test("items with a word twice in two fields outrank those with it three times in one, in a tier's page too")
    func twiceInTwoFields() throws {
        // "wren" is in half the titles and an eighth of the descriptions, so that a description
        // occurrence weighs about five times a title one: the 8 items with it twice in both fields
        // score 3.33 (times 2: its beginning "wren" is weighed too), above the 22 with it three
        // times in the description alone (2.94), which are all the items with it more than twice.
        let test = try TestIndex()
        var items: [SearchableItem] = []
        for number in 0..<350 {
            items.append(item("once/\(number)", title: "wren of the lake", description: "calm water"))
        }
        for number in 0..<290 {
            items.append(item("none/\(number)", title: "heron by the lake", description: "calm reeds"))
        }
        for number in 0..<22 { items.append(item("thrice/\(number)", title: "heron", description: "wren wren wren")) }
        for number in 0..<8 { items.append(item("twice/\(number)", title: "wren wren", description: "wren wren")) }
        for number in 0..<60 { items.append(item("described/\(number)", title: "heron", description: "a wren")) }
        try test.index.indexSearchableItems(items, now: now)
        let reader = try SearchableIndex(path: test.path, access: .readOnly)
        let query = SearchQuery("wren", domainIdentifier: nil, scope: .all, limit: 20)
        let whole = try reader.search(query, now: now, split: .automatic, tiers: .never)
        let tiered = try reader.search(query, now: now, split: .automatic, tiers: SearchTiers(fromPostings: 1))
        #expect(whole.results.results.prefix(8).allSatisfy { $0.canonicalIdentifier.hasPrefix("twice/") })
        #expect(tiered.results == whole.results)
        // More than twice, only the 22 are read, and cannot be the page; more than once, the page is.
        #expect(tiered.tier == 1)
    }

    @Test("a count, a page past what the repeated terms hold and the empty query run whole")
    func wholeWhereNeeded() throws {
        let test = try commonWordsCatalogue()
        let reader = try SearchableIndex(path: test.path, access: .readOnly)
        let eager = SearchTiers(fromPostings: 1)
        let first = Self.first
        for (text, limit, offset) in [(first, 0, 0), (first, 20, 2500), ("", 20, 0)] {
            let query = SearchQuery(text, domainIdentifier: nil, scope: .all, limit: limit, offset: offset)
            #expect(try reader.search(query, now: now, split: .automatic, tiers: eager).tier == 0, "\(text)")
        }
        // Cheap searches run whole by default.
        #expect(try reader.search(SearchQuery(Self.first), now: now, split: .automatic).tier == 0)
        // A writer's handle sees its own uncommitted changes, which only it holds.
        #expect(try test.index.search(SearchQuery(Self.first), now: now, split: .automatic, tiers: eager).tier == 0)
    }

    @Test("an index of format 3, whose items lack repeated terms, is searched whole and finds the same")
    func formatThree() throws {
        let test = try commonWordsCatalogue()
        let query = SearchQuery(Self.first, domainIdentifier: nil, scope: .all, limit: 20)
        let before = try SearchableIndex(path: test.path, access: .readOnly).search(
            query, now: now, split: .automatic, tiers: .never)
        try test.index.close()
        try setIndexFormat(test.path, "3")
        let reader = try SearchableIndex(path: test.path, access: .readOnly)
        let found = try reader.search(query, now: now, split: .automatic, tiers: SearchTiers(fromPostings: 1))
        #expect(found.tier == 0)
        #expect(found.results == before.results)
    }
}
