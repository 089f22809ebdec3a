import Foundation
import SearchlightKit
import SearchlightTesting
import Testing

/// Words most items hold: the index chooses them as common.
private let commonWords = ["river", "garden", "harvest", "museum", "concert", "station"]

/// Rarer words, each held by a few dozen items: paired with the common words beside them, and not
/// with each other.
private let rarerWords: [String] = {
    let syllables = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "po"]
    return syllables.flatMap { a in syllables.flatMap { b in syllables.map { c in a + b + c } } }
}()

/// Half the words common (the first more than the last), half rarer.
private func word(_ random: PseudoRandom) -> String {
    if random.next(2) == 0 { return commonWords[min(random.next(commonWords.count), random.next(commonWords.count))] }
    return rarerWords[random.next(rarerWords.count)]
}

/// Phrases of every kind: of two common words (their pair alone), repeated, reversed, of three, with a
/// rarer word, in a field, excluded, beside a word, two of them, and a phrase no item holds. Not a
/// phrase ORed with words: there Xapian 1.4, finding a phrase by positions, may weigh an item that
/// does not hold it as if it did (`OR` turned into `AND_MAYBE`, whose phrase is checked lazily), which
/// a phrase read through its pair does not (docs/design.md).
private let phrases = [
    "\"river garden\"", "\"garden river\"", "\"river river\"", "\"harvest museum station\"", "\"concert station\"",
    "\"river \(rarerWords[5])\"", "\"\(rarerWords[9]) garden river\"", "title:\"river garden\"",
    "description:\"garden river\"", "\"river garden\" -station", "\"museum river\" garden", "-\"river garden\"",
    "\"station harvest\" \"garden museum\"", "\"river zzqxv\"",
]

/// A page as `TierTests.page` gives it, its total kept only when exact: Xapian estimates a phrase's
/// matches past those it checks from its terms' frequencies, a pair's from the pair's, so the
/// estimates differ while the pages do not.
private func page(_ results: SearchResults) -> [String] {
    let page = TierTests.page(results)
    return results.totalIsEstimate ? page.dropLast() + ["an estimate"] : page
}

/// The words the index records as common (`cx.common-words`: "2", the items it chose from, then a
/// word and the items holding it on each line).
private func recordedWords(_ record: String) -> Set<String> {
    Set(record.split(separator: "\n").dropFirst(2).map { String($0.split(separator: " ")[0]) })
}

/// The index's current database copied to a folder of its own, with its common words forgotten: the
/// same items and terms, whose phrases are found by positions alone.
private func withoutPairs(_ test: TestIndex) throws -> SearchableIndex {
    let copy = try TemporaryFolder.subfolder("positions") + "/index"
    try FileManager.default.copyItem(atPath: currentDatabase(test.path), toPath: copy)
    try setIndexMetadata(copy, "cx.common-words", "")
    return try SearchableIndex(path: copy, access: .readOnly)
}

@Suite("Pairs of common words for phrases", .temporaryFolder)
struct PhrasePairsTests {
    /// Searches of every phrase, from each domain and none, each scope, and a second page.
    static let searches: [SearchQuery] = ["default", "com.other", nil].flatMap { domain in
        [SearchQuery.Scope.all, .public].flatMap { scope in
            phrases.map { SearchQuery($0, domainIdentifier: domain, scope: scope, limit: 20) }
                + [SearchQuery("\"river garden\"", domainIdentifier: domain, scope: scope, limit: 10, offset: 10)]
        }
    }

    @Test(
        "an index chooses its common words as a transaction passes 500 items, and phrases read through their pairs answer as by positions alone, with tiers or without"
    )
    func sameAnswers() throws {
        let random = PseudoRandom(seed: 61)
        let test = try pseudoRandomCatalogue(perBatch: 1_500, viewedEvery: 2, random: random) { word(random) }
        let record = try indexMetadata(test.path, "cx.common-words")
        #expect(record.hasPrefix("2\n"))
        #expect(recordedWords(record).isSuperset(of: commonWords + rarerWords), "\(record)")
        // A common word beside a rarer one is a pair; two rarer words are not.
        #expect(try termFrequency(test.path, "XWriver \(rarerWords[5])") > 0)
        #expect(try termFrequency(test.path, "XWriver garden") > 0)
        let rarerSideBySide = try #require(
            try rarerWords.lazy.map { "\"\(rarerWords[0]) \($0)\"" }
                .first {
                    try !test.index.search(SearchQuery($0, domainIdentifier: nil, limit: 1), now: now).results.isEmpty
                })
        #expect(try termFrequency(test.path, "XW" + rarerSideBySide.dropFirst().dropLast()) == 0)
        let positions = try withoutPairs(test)
        let expected = try Self.searches.map { page(try positions.search($0, now: now)) }
        #expect(expected.filter { $0.count > 1 }.count >= Self.searches.count / 2, "most phrases find items")
        for (search, expected) in zip(Self.searches, expected) {
            #expect(page(try test.index.search(search, now: now)) == expected, "\(search.text) \(search.scope)")
        }
        // Compacted, with impact tiers: the same pages.
        _ = try test.index.compact()
        for (search, expected) in zip(Self.searches, expected) {
            #expect(page(try test.index.search(search, now: now)) == expected, "\(search.text) \(search.scope)")
        }
        try checkWithXapian(test.path)
    }

    @Test(
        "a phrase of paired words is found through their pair: a record pairing two words no item was paired with hides their phrases"
    )
    func readThroughPairs() throws {
        let random = PseudoRandom(seed: 62)
        let test = try pseudoRandomCatalogue(perBatch: 600, viewedEvery: 2, random: random) { word(random) }
        // Two rarer words side by side, which are not paired.
        let phrase = try #require(
            try rarerWords.lazy.map { SearchQuery("\"\(rarerWords[1]) \($0)\"", domainIdentifier: nil, limit: 20) }
                .first { try !test.index.search($0, now: now).results.isEmpty })
        let words = phrase.text.dropFirst().dropLast().split(separator: " ").map(String.init)
        #expect(try termFrequency(test.path, "XW" + words.joined(separator: " ")) == 0)
        // A record saying every item holds each of them, which pairs them.
        var lines = try indexMetadata(test.path, "cx.common-words").split(separator: "\n").map(String.init)
        for (number, line) in lines.enumerated().dropFirst(2)
        where words.contains(String(line.split(separator: " ")[0])) {
            lines[number] = line.split(separator: " ")[0] + " " + lines[1]
        }
        let copy = try TemporaryFolder.subfolder("misrecorded") + "/index"
        try FileManager.default.copyItem(atPath: currentDatabase(test.path), toPath: copy)
        try setIndexMetadata(copy, "cx.common-words", lines.joined(separator: "\n"))
        let misrecorded = try SearchableIndex(path: copy, access: .readOnly)
        // (Beside an explicit operator, a phrase that finds nothing is not read as its words.)
        var exact = phrase
        exact.text += " NOT zzzqqqx"
        #expect(try misrecorded.search(exact, now: now).results.isEmpty)
        // A phrase of words paired all along is found as before.
        let paired = SearchQuery("\"river garden\"", domainIdentifier: nil, limit: 20)
        #expect(page(try misrecorded.search(paired, now: now)) == page(try test.index.search(paired, now: now)))
        // A record whose words are chosen from no items pairs nothing: phrases are found by positions.
        let unnamed = try TemporaryFolder.subfolder("unnamed") + "/index"
        try FileManager.default.copyItem(atPath: currentDatabase(test.path), toPath: unnamed)
        let recorded = try indexMetadata(test.path, "cx.common-words").split(separator: "\n").map(String.init)
        try setIndexMetadata(unnamed, "cx.common-words", (["2", "0"] + recorded.dropFirst(2)).joined(separator: "\n"))
        let byPositions = try SearchableIndex(path: unnamed, access: .readOnly)
        for query in [phrase, paired] {
            #expect(page(try byPositions.search(query, now: now)) == page(try test.index.search(query, now: now)))
        }
    }

    @Test(
        "the items an index held before it chose get their pairs: as a transaction passes 500 items, and in a bulk build's new generation"
    )
    func earlierItemsPaired() throws {
        // The items written before the choice are private to a domain of their own, so that a search
        // from it sees them alone.
        func items(_ range: Range<Int>, _ random: PseudoRandom, early: Bool = false) -> [SearchableItem] {
            range.map {
                item(
                    "item/\($0)", title: (0..<4).map { _ in word(random) }.joined(separator: " "),
                    description: (0..<30).map { _ in word(random) }.joined(separator: " "),
                    mode: early ? .private : .public, domain: early ? "com.early" : "default")
            }
        }
        // 400 items, then 200: the second transaction chooses.
        let random = PseudoRandom(seed: 63)
        let small = try TestIndex()
        try small.index.indexSearchableItems(items(0..<400, random, early: true), now: now)
        #expect(try indexMetadata(small.path, "cx.common-words").isEmpty)
        try small.index.indexSearchableItems(items(400..<600, random), now: now)
        #expect(try indexMetadata(small.path, "cx.common-words").hasPrefix("2\n"))
        // 300 items, then a bulk build of 4,000: the build chooses.
        let bulk = try TestIndex()
        try bulk.index.indexSearchableItems(items(0..<300, random, early: true), now: now)
        let lines = items(300..<4_300, random).map {
            #"{"canonicalIdentifier":"\#($0.object.canonicalIdentifier)","title":"\#($0.object.title ?? "")","#
                + #""contentDescription":"\#($0.object.contentDescription ?? "")","contentIndexMode":"public"}"#
        }
        let input = try TemporaryFolder.write("items.jsonl", lines.joined(separator: "\n") + "\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)).count > Indexer.directInputLimit)
        let indexer = Indexer(options: IndexingOptions(maximumTimeToLive: nil), jobs: 2, now: now)
        #expect(try indexer.index([.path(input)], into: bulk.index).added == 4_000)
        #expect(try indexMetadata(bulk.path, "cx.common-words").hasPrefix("2\n"))
        for test in [small, bulk] {
            let positions = try withoutPairs(test)
            var paired = 0
            for text in phrases {
                for (domain, scope) in [("com.early", SearchQuery.Scope.private), (nil, .all)] {
                    let query = SearchQuery(text, domainIdentifier: domain, scope: scope, limit: 50)
                    let found = page(try test.index.search(query, now: now))
                    #expect(found == page(try positions.search(query, now: now)), "\(text)")
                    if domain != nil, found.count > 1 { paired += 1 }
                }
            }
            #expect(paired >= phrases.count / 2, "\(paired) phrases find the earlier items")
            try checkWithXapian(test.path)
        }
    }

    @Test(
        "a phrase of a pair more items hold than a tier's limit is proven from the pair's tier, and items written after the build enter it"
    )
    func pairTiers() throws {
        let random = PseudoRandom(seed: 64)
        let test = try pseudoRandomCatalogue(perBatch: 2_500, viewedEvery: 2, random: random) { word(random) }
        // Compaction builds the tiers, the pairs' with them.
        _ = try test.index.compact()
        // Short items, each of which outweighs every item of the pair's tier built.
        let late = (0..<3).map {
            item(
                "late/\($0)", title: "River garden river garden river garden",
                description: "River garden river garden.",
                mode: .public)
        }
        try test.index.indexSearchableItems(late, now: now)
        let positions = try withoutPairs(test)
        var fromTiers: Set<String> = []
        for search in Self.searches {
            let results = try test.index.search(search, now: now)
            #expect(page(results) == page(try positions.search(search, now: now)), "\(search.text) \(search.scope)")
            if results.fromTiers { fromTiers.insert(search.text) }
        }
        #expect(
            fromTiers.isSuperset(of: [
                "\"river garden\"", "\"garden river\"", "\"river river\"", "title:\"river garden\"",
            ]), "\(fromTiers.sorted())")
        let first = try test.index.search(SearchQuery("\"river garden\"", domainIdentifier: nil, limit: 20), now: now)
        #expect(first.results.prefix(3).allSatisfy { $0.canonicalIdentifier.hasPrefix("late/") })
    }
}
