import Foundation
import SearchlightKit
import SearchlightTesting
import Testing

/// A small catalogue whose words and meanings part ways: the kettle and the teapot share no word
/// with "a pot to heat water", the bicycle shares none with anything.
private func kitchenCatalogue() throws -> TestIndex {
    let test = try TestIndex()
    try test.index.indexSearchableItems(
        [
            item(
                "kettle", title: "Copper kettle", description: "Boils water on the stove for tea in three minutes.",
                keywords: ["kitchen"], mode: .public),
            item(
                "teapot", title: "Porcelain teapot", description: "Brews loose leaves; keeps the infusion hot.",
                keywords: ["kitchen"], mode: .public),
            item(
                "bike", title: "Mountain bicycle", description: "Twenty-one gears, front suspension, disc brakes.",
                keywords: ["sport"], mode: .public),
            item(
                "water-book", title: "Water: a history", description: "A book about rivers, rain and the sea.",
                keywords: ["books"], mode: .public),
            // Near the kettle in meaning, but another domain's private item, and an expired one.
            item(
                "secret-kettle", title: "Electric kettle", description: "Heats water for tea fast.",
                keywords: ["kitchen"], mode: .private, domain: "com.other"),
            item(
                "old-kettle", title: "Cast iron kettle", description: "Heats water on a wood stove.",
                keywords: ["kitchen"], mode: .public, expiration: now - day),
        ], now: now - 2 * day)
    try test.index.completeMeaning(using: try MeaningModel.installed())
    return test
}

extension SearchableIndex {
    /// The identifiers a search returns with this semantic ratio, in rank order.
    fileprivate func ids(_ text: String, ratio: Double?, domain: String? = "default") throws -> [String] {
        try search(SearchQuery(text, domainIdentifier: domain, limit: 100, semanticRatio: ratio), now: now).results
            .map(\.canonicalIdentifier)
    }
}

private let vocabulary = [
    "kettle", "teapot", "espresso", "bicycle", "helmet", "marathon", "violin", "concert", "guitar", "hotel",
    "airport", "passport", "garden", "tomato", "harvest", "laptop", "keyboard", "database", "river", "mountain",
    "glacier", "recipe", "oven", "bread", "painting", "museum", "sculpture", "football", "stadium", "tennis",
]

/// Items of three domains, public and private, some expired, made of `vocabulary`, with vectors;
/// `alike`, if given, is given the same items and theirs.
private func probeCatalogue(_ random: PseudoRandom, alike: SearchableIndex? = nil) throws -> TestIndex {
    let test = try pseudoRandomCatalogue(perBatch: 60, viewedEvery: 2, random: random, alike: alike) {
        vocabulary[random.next(vocabulary.count)]
    }
    for index in [test.index] + (alike.map { [$0] } ?? []) {
        try index.completeMeaning(using: try MeaningModel.installed())
    }
    return test
}

@Suite("Search by meaning: hybrid ranking, similar items, visibility first", .temporaryFolder)
struct HybridSearchTests {
    @Test("meaning finds what words miss, and ranks it by what the words mean")
    func findsByMeaning() throws {
        let index = try kitchenCatalogue().index
        let words = try index.ids("kettle for boiling", ratio: 0)
        let hybrid = try index.ids("kettle for boiling", ratio: 0.5)
        #expect(words == ["kettle"])
        #expect(hybrid.first == "kettle" && hybrid.contains("teapot") && !hybrid.contains("bike"), "\(hybrid)")
        let meaning = try index.ids("a pot to heat water", ratio: 1)
        #expect(meaning.first == "kettle" || meaning.first == "teapot", "\(meaning)")
        #expect(!meaning.prefix(2).contains("bike"))
        // The default ratio ranks by meaning too.
        #expect(try index.ids("kettle for boiling", ratio: nil) == hybrid)
    }

    @Test("meaning knows when it has nothing: made-up words, text it does not read, explicit operators")
    func meaningWithNothingToSay() throws {
        let index = try kitchenCatalogue().index
        // Made-up words, and text in a script the model does not read, find nothing, at any ratio.
        for text in ["blorft", "zxqvpl", "frumbledorp snerk", "烧水的壶", "чайник"] {
            for ratio in [0.3, 1.0] {
                let page = try index.search(SearchQuery(text, limit: 10, semanticRatio: ratio), now: now)
                #expect(page.results.isEmpty && page.total == 0, "\(text) \(ratio): \(page.results)")
            }
        }
        // A made-up word beside real ones is read with them: the rest still finds.
        #expect(try index.ids("blorft kettle for boiling", ratio: 1).first == "kettle")
        // A word the model does not know but the index holds is read.
        let known = try TestIndex()
        try known.index.indexSearchableItems(
            [
                item("a", title: "Frobnicator", description: "A frobnicator for the kitchen.", mode: .public),
                item("b", title: "Mountain bicycle", description: "Twenty-one gears.", mode: .public),
            ], now: now)
        try known.index.completeMeaning(using: try MeaningModel.installed())
        #expect(try known.index.ids("frobnicator", ratio: 1).first == "a")
        // An explicit operator selects exactly: no item holds both words, so nothing is found.
        for text in ["kettle AND bicycle", "(kettle OR teapot) AND bicycle", "kettle AND bicycle -tea"] {
            #expect(try index.ids(text, ratio: 0.5).isEmpty, "\(text)")
        }
        #expect(Set(try index.ids("kettle OR bicycle", ratio: 0.5)) == ["kettle", "bike"])
    }

    @Test("each result says what found it; scores are absolute; at ratio 1 the words break ties")
    func matchedByAndScores() throws {
        let index = try kitchenCatalogue().index
        func page(_ text: String, _ ratio: Double?) throws -> [String: SearchResult] {
            let found = try index.search(SearchQuery(text, limit: 100, semanticRatio: ratio), now: now).results
            return Dictionary(found.map { ($0.canonicalIdentifier, $0) }, uniquingKeysWith: { first, _ in first })
        }
        let hybrid = try page("kettle for boiling", 0.5)
        #expect(hybrid["kettle"]?.matchedBy == [.words, .meaning])
        #expect(hybrid["teapot"]?.matchedBy == .meaning)
        #expect(hybrid["bike"] == nil)
        // A result found by meaning alone scores its nearness weighed by the ratio: never 100.
        let teapot = try #require(hybrid["teapot"])
        #expect(teapot.score > 0 && teapot.score <= 50, "\(teapot.score)")
        #expect(try page("kettle for boiling", 0)["kettle"]?.matchedBy == .words)
        // At ratio 1, the words' matches not among the nearest score alike: the words order them,
        // not storage.
        let random = PseudoRandom(seed: 54)
        let probe = try probeCatalogue(random)
        var tied = 0
        for _ in 0..<6 {
            let text = "\(vocabulary[random.next(vocabulary.count)]) \(vocabulary[random.next(vocabulary.count)])"
            func results(_ ratio: Double) throws -> [String] {
                try probe.index.search(
                    SearchQuery(text, domainIdentifier: nil, limit: 200, semanticRatio: ratio), now: now
                )
                .results.filter { ratio == 0 || $0.score == 1 }.map { "\($0.domain)/\($0.canonicalIdentifier)" }
            }
            let last = try results(1)
            #expect(last == (try results(0)).filter(Set(last).contains), "\(text)")
            tied += last.count
        }
        #expect(tied > 10)
        // Similar items are found by meaning.
        let near = try index.similar(to: "kettle", query: SearchQuery("", limit: 10), now: now)
        #expect(near.results.allSatisfy { $0.matchedBy == .meaning })
    }

    @Test("an item the caller may not see, or that has expired, never appears, is never counted")
    func visibilityFirst() throws {
        let index = try kitchenCatalogue().index
        for ratio in [0.5, 1.0] {
            let page = try index.search(
                SearchQuery("electric kettle to heat water", limit: 100, semanticRatio: ratio), now: now)
            let ids = page.results.map(\.canonicalIdentifier)
            #expect(!ids.contains("secret-kettle") && !ids.contains("old-kettle"), "\(ids)")
            #expect(page.total == ids.count, "\(page.total) counted, \(ids.count) shown")
        }
        // Its own domain sees the private one.
        #expect(try index.ids("electric kettle", ratio: 0.5, domain: "com.other").first == "secret-kettle")
    }

    @Test("filters, phrases and exclusions select; meaning only ranks within them")
    func filtersKeepTheirMeaning() throws {
        let index = try kitchenCatalogue().index
        let kitchen = try index.ids("heat water keyword:kitchen", ratio: 1)
        #expect(Set(kitchen).isSubset(of: ["kettle", "teapot"]) && kitchen.contains("kettle"), "\(kitchen)")
        let excluded = try index.ids("heat water -kettle", ratio: 1)
        #expect(!excluded.contains("kettle"), "\(excluded)")
        let phrase = try index.ids("\"copper kettle\" tea", ratio: 1)
        #expect(phrase == ["kettle"], "\(phrase)")
        // A sort keeps its exact meaning: the items the words match, in its order.
        func sorted(_ ratio: Double) throws -> [String] {
            try index.search(
                SearchQuery("water", limit: 10, sort: SearchQuery.SortKey.list("-created"), semanticRatio: ratio),
                now: now
            )
            .results.map(\.canonicalIdentifier)
        }
        #expect(try sorted(0.5) == sorted(0))
    }

    @Test("similar: the nearest visible items, the item itself left out")
    func similarItems() throws {
        let index = try kitchenCatalogue().index
        let page = try index.similar(to: "kettle", query: SearchQuery("", limit: 10), now: now)
        let ids = page.results.map(\.canonicalIdentifier)
        #expect(ids.first == "teapot", "\(ids)")
        #expect(!ids.contains("kettle") && !ids.contains("secret-kettle") && !ids.contains("old-kettle"))
        // Each score is the item's similarity, nearest first; the total counts every near item.
        let scores = page.results.map(\.score)
        #expect(scores.allSatisfy { $0 >= 30 && $0 < 100 } && scores == scores.sorted(by: >), "\(scores)")
        #expect(page.total >= page.results.count)
        let first = try index.similar(to: "kettle", query: SearchQuery("", limit: 1), now: now)
        #expect(first.total == page.total && first.results.count == 1)
        // A selection narrows them.
        let books = try index.similar(to: "kettle", query: SearchQuery("keyword:books", limit: 10), now: now)
        #expect(books.results.allSatisfy { $0.canonicalIdentifier == "water-book" })
        // Another domain's private item is not there to be asked about.
        #expect(throws: SearchlightError.self) {
            try index.similar(to: "secret-kettle", query: SearchQuery("", limit: 10), now: now)
        }
        let own = try index.similar(
            to: "secret-kettle", query: SearchQuery("", domainIdentifier: "com.other", limit: 10), now: now)
        #expect(own.results.first?.canonicalIdentifier == "kettle", "\(own.results.map(\.canonicalIdentifier))")
    }

    @Test("only new and changed items are embedded; a changed item's vector is made anew")
    func onlyChangedItemsEmbedded() throws {
        let test = try kitchenCatalogue()
        let model = try MeaningModel.installed()
        // Storing every item's vector rewrote their documents; the index was compacted after it
        // (which moved it from its first layout, without generations, to generations).
        let generation = try #require(test.index.generation)
        #expect(try test.index.completeMeaning(using: model).embedded == 0)
        #expect(test.index.generation == generation)
        try test.index.indexSearchableItems(
            [item("bike", title: "Road bicycle", description: "Light frame, twenty-two gears.", mode: .public)],
            now: now)
        let report = try test.index.completeMeaning(using: model)
        #expect(report.embedded == 1)
        // One item of six is worth compacting for (1 % or more).
        #expect(test.index.generation == generation + 1)
        #expect(report.withMeaning == report.items)
        #expect(report.model == MeaningModel.name)
    }

    @Test("a stop asked while embedding commits the vectors made, compacts nothing and returns; the next call goes on")
    func stopWhileEmbedding() throws {
        let test = try TestIndex()
        // Long descriptions (the model reads 256 tokens of each), each of one word of the vocabulary:
        // a chunk of 40 items is three calls of the model, and an item's nearest is one of the same word. One item in ten is told
        // French, which the model does not read: it is marked, not embedded.
        func word(_ number: Int) -> String { vocabulary[number % vocabulary.count] }
        try test.index.indexSearchableItems(
            (0..<120).map { number in
                var item = item(
                    "item-\(number)", title: word(number),
                    description: Array(repeating: word(number), count: 300).joined(separator: " "), mode: .public)
                item.object.language = number % 10 == 9 ? "fr" : "en"
                return item
            }, now: now)
        let model = try MeaningModel.installed()
        let generation = test.index.generation

        // Asked before anything runs: nothing is embedded, by the model or the index.
        let early = EmbeddingStop()
        early.request()
        #expect(early.isRequested)
        #expect(try model.vectors(["copper kettle", "a pot to heat water"], stop: early).isEmpty)
        let none = try test.index.completeMeaning(using: model, stop: early)
        #expect(none.stopped && none.embedded == 0 && none.withMeaning == 0, "\(none)")

        // Asked once the second chunk of 10 is committed: those 20 (18 vectors, 2 marks) and no more.
        let counted = EmbeddingStop()
        let twenty = try test.index.completeMeaning(using: model, chunk: 10, stop: counted) { report in
            if report.withMeaning >= 20 { counted.request() }
        }
        #expect(twenty.stopped && twenty.embedded == 18 && twenty.withMeaning == 20, "\(twenty)")
        #expect(try test.index.meaningStatus().withMeaning == 20)

        // Asked from another thread while the model runs, at a moment of its choosing: what was made
        // is committed (the index's count says so), a chunk cut short included, and the next call
        // makes the rest, each item once.
        var vectors = 18
        for delay in [0.05, 1.5, 3.0] {
            let racing = EmbeddingStop()
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: delay)
                racing.request()
            }
            let report = try test.index.completeMeaning(using: model, chunk: 40, stop: racing)
            vectors += report.embedded
            #expect(try test.index.meaningStatus().withMeaning == report.withMeaning, "\(report)")
            #expect(report.items == 120, "\(report)")
        }
        #expect(test.index.generation == generation, "a stopped call compacts nothing")
        let rest = try test.index.completeMeaning(using: model)
        #expect(!rest.stopped && rest.embedded == 108 - vectors && rest.withMeaning == 120, "\(rest)")
        // Each item has its own text's vector, those of chunks cut short included.
        for number in 0..<120 where number % 10 != 9 {
            let near = try test.index.similar(
                to: "item-\(number)", query: SearchQuery("", domainIdentifier: "default", limit: 1), now: now)
            let first = near.results.first?.canonicalIdentifier.dropFirst("item-".count)
            #expect(first.flatMap { Int($0) }.map(word) == word(number), "item-\(number): \(String(describing: first))")
        }
    }

    @Test("vectors another model made are refused when meaning is asked for, and made anew by a rebuild")
    func anotherModelRefused() throws {
        let test = try kitchenCatalogue()
        let path = test.path
        try test.index.close()
        try setIndexMetadata(path, "searchlight.meaning.model", "another-model@0")
        let index = try SearchableIndex(path: path, access: .readWrite(lockTimeout: .seconds(5)))
        // Without a ratio: words alone. With one: refused, saying what to run.
        #expect(try index.ids("kettle for boiling", ratio: nil) == index.ids("kettle for boiling", ratio: 0))
        let error = #expect(throws: SearchlightError.self) { try index.ids("kettle", ratio: 0.5) }
        #expect(error?.code == .meaningModelMismatch)
        #expect(error?.message.contains("another-model@0") == true)
        #expect(error?.message.contains("searchlight embed --rebuild") == true)
        let model = try MeaningModel.installed()
        #expect(throws: SearchlightError.self) { try index.completeMeaning(using: model) }
        try index.clearMeaning()
        #expect(try index.meaningStatus().withMeaning == 0)
        let report = try index.completeMeaning(using: model)
        #expect(report.embedded == report.items && report.model == MeaningModel.name)
        #expect(try index.ids("kettle for boiling", ratio: 0.5).contains("teapot"))
        try index.close()
    }

    @Test("leak probe: no search, total or similar item by meaning reveals what the caller may not see")
    func leakProbe() throws {
        let random = PseudoRandom(seed: 52)
        let test = try probeCatalogue(random)
        func visible(_ result: SearchResult, to domain: String, _ scope: SearchQuery.Scope) -> Bool {
            let mode = result.contentIndexMode
            let seen = mode == .public || result.domain == domain
            let scoped = scope == .all || (scope == .public) == (mode == .public)
            return seen && scoped && (result.expirationDate.map { $0 > now } ?? true)
        }
        for domain in ["default", "com.other", "com.third"] {
            for scope in SearchQuery.Scope.allCases {
                for _ in 0..<10 {
                    let text =
                        "\(vocabulary[random.next(vocabulary.count)]) \(vocabulary[random.next(vocabulary.count)])"
                    for ratio in [0.3, 1.0] {
                        let page = try test.index.search(
                            SearchQuery(text, domainIdentifier: domain, scope: scope, limit: 200, semanticRatio: ratio),
                            now: now)
                        let leaked = page.results.filter { !visible($0, to: domain, scope) }.map(\.canonicalIdentifier)
                        #expect(leaked.isEmpty, "\(domain) \(scope) \(text) \(ratio): \(leaked)")
                        #expect(page.total == page.results.count, "\(domain) \(scope) \(text) \(ratio)")
                    }
                }
                // Every visible item's neighbours are visible, and never the item itself.
                let everything = try test.index.search(
                    SearchQuery("", domainIdentifier: domain, scope: scope, limit: 200), now: now)
                for item in everything.results.prefix(8) {
                    let near = try test.index.similar(
                        to: item.canonicalIdentifier,
                        query: SearchQuery("", domainIdentifier: domain, scope: scope, limit: 200), now: now)
                    let leaked = near.results.filter { !visible($0, to: domain, scope) }.map(\.canonicalIdentifier)
                    #expect(leaked.isEmpty, "similar to \(item.canonicalIdentifier) for \(domain) \(scope): \(leaked)")
                    #expect(
                        !near.results.contains {
                            $0.canonicalIdentifier == item.canonicalIdentifier && $0.domain == item.domain
                        })
                }
            }
        }
    }

    @Test(
        "every way of ranking by meaning gives the same page: vectors kept in memory, read from the index, or through the matcher"
    )
    func sameResultsEveryWay() throws {
        let random = PseudoRandom(seed: 53)
        let test = try probeCatalogue(random)
        let reading = try SearchableIndex(path: test.path, access: .readOnly)
        let keeping = try SearchableIndex(path: test.path, access: .readOnly, keepsFieldsInMemory: true)
        func page(_ index: SearchableIndex, _ query: SearchQuery) throws -> [String] {
            let page = try index.search(query, now: now)
            return page.results.map { "\($0.domain)/\($0.canonicalIdentifier) \($0.score)" } + ["total \(page.total)"]
        }
        func near(_ index: SearchableIndex, _ id: String, _ query: SearchQuery) throws -> [String] {
            let page = try index.similar(to: id, query: query, now: now)
            return page.results.map { "\($0.domain)/\($0.canonicalIdentifier) \($0.score)" } + ["total \(page.total)"]
        }
        var compared = 0
        for domain in ["default", "com.other"] {
            // Scope private goes through the matcher, with vectors kept and without.
            for scope in [SearchQuery.Scope.all, .public, .private] {
                for _ in 0..<8 {
                    let text =
                        "\(vocabulary[random.next(vocabulary.count)]) \(vocabulary[random.next(vocabulary.count)])"
                    for ratio in [0.3, 1.0] {
                        func query(_ text: String) -> SearchQuery {
                            SearchQuery(text, domainIdentifier: domain, scope: scope, limit: 30, semanticRatio: ratio)
                        }
                        let kept = try page(keeping, query(text))
                        #expect(kept.count > 1)
                        #expect(try page(reading, query(text)) == kept, "\(domain) \(scope) \(text) \(ratio)")
                        #expect(try page(test.index, query(text)) == kept, "\(domain) \(scope) \(text) \(ratio)")
                        // An exclusion selects exactly (SPEC §2.4): meaning only ranks what the words
                        // match, and finds nothing they do not.
                        if ratio == 1 {
                            let excluding = try keeping.search(query(text + " -zqxjv"), now: now)
                            var words = query(text)
                            words.semanticRatio = 0
                            words.limit = 1000
                            let matched = Set(
                                try keeping.search(words, now: now).results.map {
                                    "\($0.domain)/\($0.canonicalIdentifier)"
                                })
                            #expect(excluding.results.allSatisfy { $0.matchedBy.contains(.words) })
                            #expect(
                                Set(excluding.results.map { "\($0.domain)/\($0.canonicalIdentifier)" })
                                    .isSubset(of: matched), "\(domain) \(scope) \(text)")
                        }
                        compared += 1
                    }
                }
                let everything = try keeping.search(
                    SearchQuery("", domainIdentifier: domain, scope: scope, limit: 5), now: now)
                for item in everything.results {
                    let query = SearchQuery("", domainIdentifier: domain, scope: scope, limit: 20)
                    let kept = try near(keeping, item.canonicalIdentifier, query)
                    #expect(try near(reading, item.canonicalIdentifier, query) == kept)
                    #expect(
                        try near(
                            keeping, item.canonicalIdentifier,
                            SearchQuery("-zqxjv", domainIdentifier: domain, scope: scope, limit: 20)) == kept)
                }
            }
        }
        #expect(compared == 96)
    }

    @Test(
        "a writer's topology of local shards ranks by meaning as one index of the same items, and reveals nothing more"
    )
    func shardsAsOneIndex() throws {
        let random = PseudoRandom(seed: 54)
        let folder = try TemporaryFolder.subfolder("shards")
        let topology = try TemporaryFolder.write("cluster", "auto shard-1\nauto shard-2\nauto shard-3\n", in: folder)
        let sharded = try SearchableIndex(path: topology, access: .readWrite(lockTimeout: .seconds(5)))
        let test = try probeCatalogue(random, alike: sharded)
        let status = try sharded.meaningStatus()
        let oneStatus = try test.index.meaningStatus()
        #expect(status.withMeaning == status.items && status.items == oneStatus.items)
        let reader = try SearchableIndex(path: topology, access: .readOnly)
        func page(_ index: SearchableIndex, _ query: SearchQuery) throws -> [String] {
            let page = try index.search(query, now: now)
            return page.results.map {
                "\($0.domain)/\($0.canonicalIdentifier) \($0.score)"
                    + ($0.matchedBy.contains(.meaning) ? " meaning" : "")
            }
                + ["total \(page.total)"]
        }
        var byMeaning = 0
        for domain in ["default", "com.other"] {
            for scope in SearchQuery.Scope.allCases {
                for _ in 0..<6 {
                    let text =
                        "\(vocabulary[random.next(vocabulary.count)]) \(vocabulary[random.next(vocabulary.count)])"
                    for variant in [text, "\"\(text)\"", "\(text) -zqxjv", "title:\(text)"] {
                        for ratio in [0.3, 1.0] {
                            let query = SearchQuery(
                                variant, domainIdentifier: domain, scope: scope, limit: 40, semanticRatio: ratio,
                                typos: false)
                            let one = try page(test.index, query)
                            #expect(try page(reader, query) == one, "\(domain) \(scope) \(variant) \(ratio)")
                            #expect(try page(sharded, query) == one, "\(domain) \(scope) \(variant) \(ratio)")
                            if one.contains(where: { $0.contains("meaning") }) { byMeaning += 1 }
                        }
                    }
                }
                for item in try test.index.search(
                    SearchQuery("", domainIdentifier: domain, scope: scope, limit: 4), now: now
                )
                .results {
                    let query = SearchQuery("", domainIdentifier: domain, scope: scope, limit: 20)
                    let near = try reader.similar(to: item.canonicalIdentifier, query: query, now: now)
                    let one = try test.index.similar(to: item.canonicalIdentifier, query: query, now: now)
                    #expect(near.results.map(\.canonicalIdentifier) == one.results.map(\.canonicalIdentifier))
                    #expect(near.results.map(\.score) == one.results.map(\.score) && near.total == one.total)
                }
            }
        }
        #expect(byMeaning > 50, "\(byMeaning) pages with items found by meaning")
        try sharded.close()
    }

    @Test("a ratio out of range is refused; without vectors a ratio asked for says how to make them")
    func badRatios() throws {
        let index = try kitchenCatalogue().index
        for ratio in [-0.1, 1.5, Double.nan] {
            #expect(throws: SearchlightError.self) { try index.ids("kettle", ratio: ratio) }
        }
        let bare = try TestIndex()
        try bare.index.indexSearchableItems([item("a", title: "Copper kettle", mode: .public)], now: now)
        #expect(try bare.index.ids("kettle", ratio: nil) == ["a"])
        let error = #expect(throws: SearchlightError.self) { try bare.index.ids("kettle", ratio: 0.5) }
        #expect(error?.code == .meaningUnavailable)
        #expect(error?.message.contains("searchlight embed") == true)
    }
}
