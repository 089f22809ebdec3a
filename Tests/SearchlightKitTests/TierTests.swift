import Foundation
import SearchlightKit
import SearchlightTesting
import Testing

/// Words most items hold, each more than the 2,000 items past which a word has an impact tier.
private let frequentWords = ["river", "garden", "harvest", "museum", "concert", "station"]

/// Rarer words, each held by about a hundred items: a search reads their whole posting lists.
private let rarerWords: [String] = {
    let syllables = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "po"]
    return syllables.flatMap { a in syllables.flatMap { b in syllables.map { c in a + b + c } } }
}()

/// Half the words frequent (the first more than the last), half rarer.
private func word(_ random: PseudoRandom) -> String {
    if random.next(2) == 0 {
        return frequentWords[min(random.next(frequentWords.count), random.next(frequentWords.count))]
    }
    return rarerWords[random.next(rarerWords.count)]
}

/// Every kind of query a search may take its page from the tiers for, and some it may not.
private let queries = [
    "river", "garden", "station", "concert", "\(rarerWords[7])", "river garden", "museum \(rarerWords[20])",
    "\"river garden\"", "\"harvest museum\"", "riv", "gar", "stati", "r", "river ga", "title:river", "title:museum",
    "title:\(rarerWords[3])", "river -garden", "river OR \(rarerWords[9])", "river zzqxv", "concert harvest station",
    "-river", "keyword:garden", "(\(rarerWords[11]) river) OR station", "(\(rarerWords[12]) river ga) OR concert",
]

@Suite("Impact tiers", .temporaryFolder)
struct TierTests {
    /// Each result with its score, then the total and whether it is an estimate.
    static func page(_ page: SearchResults) -> [String] {
        page.results.map { "\($0.domain)/\($0.canonicalIdentifier) \($0.score)" }
            + ["total \(page.totalIsEstimate ? "about" : "") \(page.total)"]
    }

    /// Expects a reader that keeps lengths and expirations to give `expected`'s page: the same
    /// items, scores and total. A total past the matches checked is estimated from the kept list's
    /// exact size rather than Xapian's guess at the expired share: both are estimates, not compared.
    static func expectSamePage(_ kept: SearchResults, as expected: SearchResults, _ comment: String) {
        #expect(kept.totalIsEstimate == expected.totalIsEstimate)
        #expect(
            page(kept).dropLast(kept.totalIsEstimate ? 1 : 0)
                == page(expected).dropLast(expected.totalIsEstimate ? 1 : 0), Comment(rawValue: comment))
    }

    @Test("a page read from the impact tiers is the page a full evaluation gives, for every kind of query")
    func samePage() throws {
        let random = PseudoRandom(seed: 54)
        let test = try pseudoRandomCatalogue(perBatch: 1_500, viewedEvery: 2, random: random) { word(random) }
        // More viewed items than a search takes as candidates (256): the others' views are bounded.
        _ = try test.index.recordViews(withIdentifiers: (0..<600).map { "item/0-\($0)" }, now: now)
        var searches: [SearchQuery] = []
        // Every domain's items are seen from no domain (`--all-domains`): a search with no filter of
        // what it may see.
        for domain in ["default", "com.other", nil] {
            for scope in [SearchQuery.Scope.all, .public] {
                for text in queries {
                    searches.append(SearchQuery(text, domainIdentifier: domain, scope: scope, limit: 20))
                }
                searches.append(SearchQuery("river", domainIdentifier: domain, scope: scope, limit: 10, offset: 10))
                searches.append(SearchQuery("garden", domainIdentifier: domain, scope: scope, limit: 50))
            }
        }
        // Written in transactions, the catalogue has no tiers: every page is a full evaluation.
        let full = try searches.map { try test.index.search($0, now: now) }
        #expect(full.allSatisfy { !$0.fromTiers })
        // Compaction builds them.
        _ = try test.index.compact()
        var fromTiers = 0
        // Pages of searches that see every item: the candidates' filter is one the whole query lacks.
        var seeingEverything = 0
        var provenInDefault: Set<String> = []
        for (search, expected) in zip(searches, full) {
            let tiered = try test.index.search(search, now: now)
            #expect(
                Self.page(tiered) == Self.page(expected),
                "\(search.text) \(search.domainIdentifier ?? "") \(search.scope)")
            if tiered.fromTiers { fromTiers += 1 }
            if tiered.fromTiers, search.domainIdentifier == "default", search.scope == .all {
                provenInDefault.insert(search.text)
            }
            if tiered.fromTiers, search.domainIdentifier == nil, search.scope == .all { seeingEverything += 1 }
        }
        // Many pages are proven from the tiers. Not those of searches whose every match is in a short
        // posting list (a rare word; Xapian's matcher, driven by it, is as quick), nor a phrase of
        // frequent words, nor `-river`.
        #expect(fromTiers >= searches.count / 4, "\(fromTiers) of \(searches.count) pages from the tiers")
        // Words, their stems and their beginnings each have tiers.
        #expect(provenInDefault.isSuperset(of: ["river", "riv", "gar"]), "\(provenInDefault.sorted())")
        #expect(seeingEverything >= queries.count / 4, "\(seeingEverything) pages seeing every item from the tiers")
        #expect(full.contains { $0.totalIsEstimate } && full.contains { !$0.totalIsEstimate })
    }

    @Test("a reader that keeps the items' lengths and expirations finds the pages, scores and totals Xapian's own give")
    func keptLengthsAndExpirations() throws {
        let random = PseudoRandom(seed: 65)
        let test = try pseudoRandomCatalogue(perBatch: 1_200, viewedEvery: 3, random: random) { word(random) }
        // Several words of differing frequencies summed, a word and a beginning weighed under a scale
        // (as-you-type), a phrase and a synonym that keep Xapian's own weighing beside words.
        let more = [
            "river OR garden OR \(rarerWords[5]) OR harvest", "river garden museum concert", "river garden*",
            "\"river garden\" station", "museum OR (concert -\(rarerWords[2]))", "title:harvest station ga",
        ]
        var searches: [SearchQuery] = []
        for domain in ["default", nil] {
            for scope in [SearchQuery.Scope.all, .public] {
                for text in queries + more {
                    searches.append(SearchQuery(text, domainIdentifier: domain, scope: scope, limit: 20))
                }
                searches.append(SearchQuery("river", domainIdentifier: domain, scope: scope, limit: 30, offset: 20))
            }
        }
        // First every page a full evaluation (a catalogue written in transactions has no tiers), then,
        // compacted, pages from the tiers too, whose candidates are weighed the same way.
        for compacted in [false, true] {
            if compacted { _ = try test.index.compact() }
            let keeping = try SearchableIndex(path: test.path, access: .readOnly, keepsFieldsInMemory: true)
            var fromTiers = 0
            // A tenth of the items expired a day ago, a tenth expire in a day: two days on, both are gone.
            for time in [now, now + 2 * day] {
                for search in searches {
                    let kept = try keeping.search(search, now: time)
                    try Self.expectSamePage(
                        kept, as: test.index.search(search, now: time),
                        "\(search.text) \(search.domainIdentifier ?? "") \(search.scope) compacted: \(compacted) \(time)"
                    )
                    if kept.fromTiers { fromTiers += 1 }
                }
            }
            #expect(compacted == (fromTiers > 0), "\(fromTiers) pages from the tiers")
        }
    }

    @Test(
        "a reader that keeps the items' lengths and expirations follows its process's writer by what each commit wrote: the pages, scores and totals Xapian's own give"
    )
    func keptFieldsFollowCommits() throws {
        let random = PseudoRandom(seed: 67)
        let test = try pseudoRandomCatalogue(perBatch: 600, viewedEvery: 3, random: random) { word(random) }
        let keeping = try SearchableIndex(path: test.path, access: .readOnly, keepsFieldsInMemory: true)
        let searches = (queries + ["river garden museum concert", "river garden*"]).flatMap { text in
            [SearchQuery(text, limit: 20), SearchQuery(text, domainIdentifier: nil, scope: .public, limit: 20)]
        }
        func compare(_ round: Int) throws {
            for time in [now, now + 2 * hour] {
                for search in searches {
                    try Self.expectSamePage(
                        keeping.search(search, now: time), as: test.index.search(search, now: time),
                        "\(search.text) \(search.scope) after commit \(round) at \(time)")
                }
            }
        }
        // Enough searches at the first revision that the reader reads its lengths and expirations
        // whole; each commit after writes fewer items than a sixteenth of the catalogue, whose
        // lengths and expirations are read again.
        try compare(0)
        for round in 1...3 {
            // New items, some expiring within the hour; items rewritten longer or shorter, their
            // expirations moved, set or dropped; items deleted.
            var written: [SearchableItem] = []
            for number in 0..<20 {
                written.append(
                    item(
                        "item/new-\(round)-\(number)", title: "river garden \(word(random))",
                        description: (0..<(3 + random.next(30))).map { _ in word(random) }.joined(separator: " "),
                        mode: .public, expiration: now + hour))
                // The last round's new items expire no more.
                if round > 1 {
                    written.append(
                        item(
                            "item/new-\(round - 1)-\(number)", title: "river garden \(word(random))",
                            description: word(random), mode: .public))
                }
            }
            for number in 0..<20 {
                let expiration: Int64? = [nil, now + hour, now + 3 * hour, now - hour][number % 4]
                written.append(
                    item(
                        "item/0-\(number * 7 + round)", title: "river \(word(random))",
                        description: (0..<(1 + random.next(40))).map { _ in word(random) }.joined(separator: " "),
                        mode: .public, expiration: expiration))
            }
            try test.index.indexSearchableItems(written, now: now - 1)
            _ = try test.index.deleteSearchableItems(
                withIdentifiers: (0..<10).map { "item/2-\($0 * 5 + round)" }, domainIdentifier: "default",
                includePublic: true)
            try compare(round)
        }
    }

    @Test("items a writer stores after the tiers were built enter them: pages stay those of a full evaluation")
    func writerKeepsTiers() throws {
        // The same catalogue twice: one compacted (with tiers), one as written (without).
        func catalogue() throws -> TestIndex {
            let random = PseudoRandom(seed: 55)
            return try pseudoRandomCatalogue(perBatch: 1_000, viewedEvery: 2, random: random) { word(random) }
        }
        let tiered = try catalogue()
        let full = try catalogue()
        _ = try tiered.index.compact()
        // Short items all about the word: each outweighs every item of the tier built.
        let late = (0..<3).map {
            item("late/\($0)", title: "River river river", description: "River river river river.", mode: .public)
        }
        for test in [tiered, full] { try test.index.indexSearchableItems(late, now: now) }
        for text in ["river", "river garden", "riv", "title:river"] {
            let query = SearchQuery(text, limit: 20)
            let expected = try full.index.search(query, now: now)
            let page = try tiered.index.search(query, now: now)
            #expect(!expected.fromTiers)
            #expect(Self.page(page) == Self.page(expected), "\(text)")
            if text == "river" || text == "title:river" {
                #expect(expected.results.contains { $0.canonicalIdentifier == "late/0" }, "\(text)")
            }
        }
        #expect(try tiered.index.search(SearchQuery("river", limit: 20), now: now).fromTiers)
        // A reader of its own sees the same.
        let reader = try SearchableIndex(path: tiered.path, access: .readOnly)
        let query = SearchQuery("river", limit: 20)
        #expect(Self.page(try reader.search(query, now: now)) == Self.page(try full.index.search(query, now: now)))
    }

    /// Words to make an item as long as wanted.
    static func filler(_ count: Int) -> String {
        let words = ["long", "walk", "by", "the", "sea", "and", "back", "again"]
        return (0..<count).map { words[$0 % words.count] }.joined(separator: " ")
    }

    /// `items` written into two indexes, one of them compacted (which builds its tiers), and searched
    /// for `text` in both: the page read from the tiers must be the full evaluation's, returned.
    static func fromTiersAsInFull(
        _ text: String, items: [SearchableItem], sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> SearchResults {
        let tiered = try TestIndex()
        let full = try TestIndex()
        for test in [tiered, full] { try test.index.indexSearchableItems(items, now: now) }
        _ = try tiered.index.compact()
        let query = SearchQuery(text, limit: 20)
        let page = try tiered.index.search(query, now: now)
        let expected = try full.index.search(query, now: now)
        #expect(page.fromTiers, sourceLocation: sourceLocation)
        // Totals past the bound are estimates, which the two ways of counting make differently.
        #expect(Self.page(page).dropLast() == Self.page(expected).dropLast(), sourceLocation: sourceLocation)
        #expect(page.totalIsEstimate == expected.totalIsEstimate, sourceLocation: sourceLocation)
        return expected
    }

    @Test("a rarer word's items are weighed by how often each holds it, and the page stays a full evaluation's")
    func wholeListOrder() throws {
        // `tour` typed last is a partial word: its stem, which fewer items hold than have a tier (its
        // whole list is read), or a word beginning with it (a frequent beginning, with a tier).
        var items = (0..<2_100).map {
            item("tourist/\($0)", title: "Tourist guide", description: "A tourist guide to the town.", mode: .public)
        }
        // In the title, which weighs three times a description, of long items.
        items += (0..<100).map { item("title/\($0)", title: "Tour", description: Self.filler(300), mode: .public) }
        // Once in the description of items a quarter as long.
        items += (0..<900).map {
            item("long/\($0)", title: "Walks", description: "Tour " + Self.filler(80), mode: .public)
        }
        // Once in the description of short items, stored last: each outweighs the items that hold the
        // word in their titles, and a search weighing candidates in the order of the ids would reach
        // them last.
        items += (0..<5).map { item("short/\($0)", title: "Notes", description: "Tour", mode: .public) }
        let expected = try Self.fromTiersAsInFull("tour", items: items)
        #expect(expected.results.prefix(5).allSatisfy { $0.canonicalIdentifier.hasPrefix("short/") })
        #expect(expected.results.dropFirst(5).allSatisfy { $0.canonicalIdentifier.hasPrefix("title/") })
    }

    @Test("an AND of words that go together is proven from the tiers; of words that do not, evaluated in full")
    func wordsTogetherOrApart() throws {
        // `river` in every second item, `garden` in every third, each more often in some: an item that
        // holds `river` most holds `garden` no more often than any item does.
        var items = (0..<9_000).map { number in
            var words: [String] = []
            if number % 2 == 0 { words += Array(repeating: "river", count: number % 5 + 1) }
            if number % 3 == 0 { words += Array(repeating: "garden", count: number % 7 + 1) }
            return item(
                "mix/\(number)", title: "Walks",
                description: (words + [Self.filler(number % 9 + 3)]).joined(separator: " "), mode: .public)
        }
        // `harbor` and `bridge` in the same 3,000 items, as often as each other in each.
        items += (0..<3_000).map { number in
            let both = Array(repeating: "harbor bridge", count: number % 4 + 1).joined(separator: " ")
            return item(
                "pair/\(number)", title: "Walks", description: both + " " + Self.filler(number % 9 + 3), mode: .public)
        }
        let together = try Self.fromTiersAsInFull("harbor bridge", items: items)
        #expect(together.results.count == 20)
        let tiered = try TestIndex()
        let full = try TestIndex()
        for test in [tiered, full] { try test.index.indexSearchableItems(items, now: now) }
        _ = try tiered.index.compact()
        for text in ["river garden", "garden river"] {
            let query = SearchQuery(text, limit: 20)
            let page = try tiered.index.search(query, now: now)
            let expected = try full.index.search(query, now: now)
            #expect(!page.fromTiers, "\(text)")
            #expect(page.results.count == 20, "\(text)")
            #expect(Self.page(page) == Self.page(expected), "\(text)")
        }
        // The words one at a time still are.
        #expect(try tiered.index.search(SearchQuery("river", limit: 20), now: now).fromTiers)
    }

    @Test("a word whose forms differ between the items' languages, one synonym, is proven from the tiers as in full")
    func synonymOfForms() throws {
        func written(_ id: String, _ description: String, _ language: String) -> SearchableItem {
            var made = item(id, title: "Notes", description: description, mode: .public)
            made.object.language = language
            return made
        }
        // `running`: `run` in English, held by more items than have a tier; `running` in French,
        // whose fewer items are read whole, as a word of a language few items are in is.
        let often = { (number: Int) in Array(repeating: "running", count: number % 3 + 1).joined(separator: " ") }
        var items = (0..<2_500).map { written("en/\($0)", often($0) + " " + Self.filler($0 % 40 + 3), "en") }
        items += (0..<300).map { written("fr/\($0)", often($0) + " " + Self.filler($0 % 30 + 5), "fr") }
        // Stored last, each outweighs the rest: the word six times.
        items += (0..<5).map {
            written("short/\($0)", Array(repeating: "running", count: 6).joined(separator: " "), "fr")
        }
        let expected = try Self.fromTiersAsInFull("running -zzqx", items: items)
        #expect(expected.results.prefix(5).allSatisfy { $0.canonicalIdentifier.hasPrefix("short/") })
        // French items that hold English's form too (`run`, which French leaves as it is), under its
        // tier: their bound for it counts, and the page is still the full evaluation's.
        let both = (0..<40).map { written("both/\($0)", "running run " + Self.filler($0 % 60 + 100), "fr") }
        _ = try Self.fromTiersAsInFull("running -zzqx", items: items + both)
        // Both languages' items are found, though `running` is `run` in one of them alone.
        let twoLanguages = try TestIndex()
        try twoLanguages.index.indexSearchableItems(items, now: now)
        let all = try twoLanguages.index.search(SearchQuery("running -zzqx", limit: 1_000), now: now)
        #expect(all.results.contains { $0.canonicalIdentifier.hasPrefix("en/") })
        #expect(all.results.contains { $0.canonicalIdentifier.hasPrefix("fr/") })
    }

    @Test("a reader that keeps the items' lengths weighs a word's forms in several languages as Xapian does")
    func keptLengthsWeighForms() throws {
        func written(_ id: String, _ description: String, _ language: String) -> SearchableItem {
            let title = language == "fr" ? "Courir" : "Running notes"
            var made = item(id, title: title, description: description, mode: .public)
            made.object.language = language
            return made
        }
        // `running` is `run` in English and `running` in French: one synonym of the two forms, whose
        // frequency Xapian estimates from both; `walk` and `sea` are one form in both languages.
        let often = { (number: Int) in Array(repeating: "running", count: number % 4 + 1).joined(separator: " ") }
        var items = (0..<700).map { written("en/\($0)", often($0) + " " + Self.filler($0 % 40 + 3), "en") }
        items += (0..<250).map { written("fr/\($0)", often($0) + " " + Self.filler($0 % 30 + 5), "fr") }
        items += (0..<300).map { written("plain/\($0)", Self.filler($0 % 50 + 2), $0 % 2 == 0 ? "en" : "fr") }
        let test = try TestIndex()
        try test.index.indexSearchableItems(items, now: now)
        let keeping = try SearchableIndex(path: test.path, access: .readOnly, keepsFieldsInMemory: true)
        let texts = ["running", "running walk", "running OR sea", "title:running", "running -back", "walk sea running"]
        let searches = texts.flatMap { [SearchQuery($0, limit: 20), SearchQuery($0, limit: 10, offset: 300)] }
        // The reader keeps the lengths from its 16th search at a revision: the later rounds weigh from
        // them.
        for _ in 0..<3 {
            for search in searches {
                let expected = try test.index.search(search, now: now)
                let kept = try keeping.search(search, now: now)
                #expect(Self.page(kept) == Self.page(expected), "\(search.text) from \(search.offset)")
            }
        }
    }

    @Test("an AND a rarer word covers, inside an OR: its items' ceilings count every word of the AND")
    func coveredAndInOr() throws {
        // `(alpha beta) OR gamma`: fewer items hold `alpha` than have a tier, so its list covers the
        // AND; `beta` and `gamma` have tiers.
        var items = (0..<2_500).map { item("gamma/\($0)", title: "Gamma notes", description: "Gamma.", mode: .public) }
        items += (0..<2_500).map {
            item("beta/\($0)", title: "Walks", description: "Beta gamma " + Self.filler(80), mode: .public)
        }
        // `alpha` in the titles of long items, then in short items with `beta` twice.
        items += (0..<100).map {
            item("title/\($0)", title: "Alpha", description: "Beta " + Self.filler(200), mode: .public)
        }
        items += (0..<1_400).map { item("plain/\($0)", title: "Walks", description: "Alpha beta beta", mode: .public) }
        // Stored last, each outweighs the others by `beta`, in its title.
        items += (0..<5).map { item("short/\($0)", title: "Beta beta", description: "Alpha", mode: .public) }
        let expected = try Self.fromTiersAsInFull("(alpha beta) OR gamma", items: items)
        #expect(expected.results.prefix(5).allSatisfy { $0.canonicalIdentifier.hasPrefix("short/") })
    }

    @Test("viewed items outside every tier enter a page read from the tiers as they enter a full evaluation's")
    func viewedOutsideTiers() throws {
        // 2,400 items hold `river` alike (a tier keeps none of them: all tie with the first left out),
        // and five short ones more, which the tier keeps. Views lift the viewed among the rest.
        var items = (0..<2_400).map {
            item("even/\($0)", title: "Walks", description: "River garden path.", mode: .public)
        }
        items += (0..<5).map { item("short/\($0)", title: "River", description: "River.", mode: .public) }
        // Twelve items viewed most, each more than the next; then a hundred viewed alike, more than
        // the page has room for; then two hundred viewed once.
        var views: [String] = []
        for rank in 0..<12 { views += Array(repeating: "even/\(2_000 + rank)", count: 60 - rank) }
        for number in 100..<200 { views += Array(repeating: "even/\(number)", count: 5) }
        views += (600..<800).map { "even/\($0)" }
        let tiered = try TestIndex()
        let full = try TestIndex()
        for test in [tiered, full] { try test.index.indexSearchableItems(items, now: now) }
        _ = try tiered.index.compact()
        for test in [tiered, full] { _ = try test.index.recordViews(withIdentifiers: views, now: now) }
        for (text, limit, offset) in [("river", 20, 0), ("river", 20, 10), ("river garden", 30, 0), ("riv", 20, 0)] {
            let query = SearchQuery(text, limit: limit, offset: offset)
            let page = try tiered.index.search(query, now: now)
            let expected = try full.index.search(query, now: now)
            #expect(page.fromTiers, "\(text) \(offset)")
            #expect(Self.page(page).dropLast() == Self.page(expected).dropLast(), "\(text) \(offset)")
            // The page holds viewed items outside the tier: the most viewed, then some viewed alike.
            let identifiers = expected.results.map(\.canonicalIdentifier)
            #expect(identifiers.contains("even/2011") && identifiers.contains { $0.hasPrefix("even/1") }, "\(text)")
        }
    }

    @Test("items a bulk build writes into the current generation enter the tiers: a page stays a full evaluation's")
    func appliedBuildKeepsTiers() throws {
        let test = try TestIndex()
        let indexer = Indexer(options: IndexingOptions(maximumTimeToLive: nil), jobs: 2, now: now)
        // Long items that hold `river garden` once; the short ones outweigh every one of them.
        func line(_ number: Int, short: Bool) -> String {
            let description = short ? "River garden river garden." : "River garden. " + Self.filler(60)
            let title = short ? "River garden" : "Walk \(number)"
            return #"{"canonicalIdentifier":"item/\#(number)","title":"\#(title)","#
                + #""contentDescription":"\#(description)","contentIndexMode":"public"}"#
        }
        let first = (0..<3_000).map { line($0, short: false) }
        let input = try TemporaryFolder.write("first.jsonl", first.joined(separator: "\n") + "\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)).count > Indexer.directInputLimit)
        #expect(try indexer.index([.path(input)], into: test.index).added == 3_000)
        var second = first
        for number in stride(from: 0, to: 3_000, by: 150) { second[number] = line(number, short: true) }
        // The same file, rewritten: its unchanged lines are recognized, and 20 items are stored.
        _ = try TemporaryFolder.write("first.jsonl", second.joined(separator: "\n") + "\n")
        #expect(try indexer.index([.path(input)], into: test.index).updated == 20)
        // Written into the current generation rather than merged into a new one.
        #expect(currentDatabase(test.path).hasSuffix("gen-000001"))
        for text in ["river", "garden", "\"river garden\""] {
            let page = try test.index.search(SearchQuery(text, limit: 20), now: now)
            #expect(page.fromTiers, "\(text)")
            #expect(
                Set(page.results.map(\.canonicalIdentifier))
                    == Set(stride(from: 0, to: 3_000, by: 150).map { "item/\($0)" }), "\(text)")
        }
    }
}
