import Foundation
import SearchlightKit
import SearchlightTesting
import Testing

/// An item in `language` (nil: told from its text).
private func written(
    _ id: String, _ title: String, description: String? = nil, language: String? = nil,
    mode: ContentIndexMode = .public, domain: String = "default"
) -> SearchableItem {
    var object = object(id, title: title, description: description, mode: mode)
    object.language = language
    return SearchableItem(object: object, domainIdentifier: domain)
}

@Suite(
    "Languages: each item's words stemmed in its language, queries read in the caller's (SPEC §2.5)", .temporaryFolder)
struct LanguageTests {
    @Test("an item's words are stemmed in the language it names: French plurals, German inflections")
    func stemmedInItsLanguage() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems(
            [
                written("fr/chevaux", "Les chevaux du village", language: "fr"),
                written("de/haeuser", "Alte Häuser am See", language: "de-DE"),
                written("en/houses", "Old houses by the lake", language: "en"),
            ], now: now)
        #expect(try test.index.ids("cheval") == ["fr/chevaux"])
        #expect(try test.index.ids("haus") == ["de/haeuser"])
        #expect(try test.index.ids("house") == ["en/houses"])
        // English alone stems neither: `chevaux` and `häuser` are their own stems there.
        let english = try TestIndex()
        try english.index.indexSearchableItems(
            [
                written("fr/chevaux", "Les chevaux du village", language: "en"),
                written("de/haeuser", "Alte Häuser am See", language: "en"),
            ], now: now)
        for word in ["cheval", "haus"] {
            // By words alone, typos off, and not the last word (read as typed so far): `haus` begins
            // `hauser`, and `cheval` is a typo from the beginning of `chevaux`.
            let query = SearchQuery("\(word) -unheard", semanticRatio: 0, typos: false)
            #expect(try english.index.search(query, now: now).results.isEmpty, "\(word)")
        }
    }

    @Test("an item's language is filtered and counted")
    func filteredAndCounted() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems(
            [
                written("fr/tarte", "Tarte aux pommes", language: "fr-FR"),
                written("de/kuchen", "Apfelkuchen", language: "de"),
                written("en/pie", "Apple pie", language: "en"),
            ], now: now)
        #expect(try test.index.ids("language:fr") == ["fr/tarte"])
        #expect(try test.index.ids("language:de OR language:en").sorted() == ["de/kuchen", "en/pie"])
        let counted = try test.index.search(SearchQuery("", limit: 0, facets: ["language"]), now: now).facets
        #expect(counted.first?.values.map { "\($0.value) \($0.count)" }.sorted() == ["de 1", "en 1", "fr 1"])
        // The item reads back as given, its tag as written.
        #expect(try test.index.item(withIdentifier: "fr/tarte", now: now)?.object.language == "fr-FR")
    }

    @Test(
        "a language that is not a language tag is refused, naming the item and the field",
        arguments: ["french!", "f", "fr-", "", "12"])
    func refusesBadTags(tag: String) throws {
        let test = try TestIndex()
        let data = Data(#"[{"$canonical_identifier": "a", "$og_title": "Bonjour", "$language": "\#(tag)"}]"#.utf8)
        let report = try Indexer(now: now).index(
            [.data(data, name: "items.json", format: .automatic)], into: test.index)
        #expect(report.rejected == 1)
        #expect(report.errors.first?.message.contains(#""$language" must be a language tag"#) == true)
        #expect(report.errors.first?.item == 1)
    }

    @Test("Core Spotlight's `languages` names the item's language: the first of them")
    func coreSpotlightLanguages() throws {
        let test = try TestIndex()
        let data = Data(
            #"[{"canonicalIdentifier": "fr/chevaux", "title": "Les chevaux", "languages": ["fr", "en"]}]"#.utf8)
        _ = try Indexer(now: now).index([.data(data, name: "items.json", format: .automatic)], into: test.index)
        #expect(try test.index.item(withIdentifier: "fr/chevaux", now: now)?.object.language == "fr")
        #expect(try test.index.ids("cheval") == ["fr/chevaux"])
    }

    @Test("a query is read in the languages of the items the caller may see, and no other")
    func readInTheCallersLanguages() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems(
            [
                // `cheval` is also an English word (a cheval glass), which French reads `chevaux` as.
                written("en/mirror", "A cheval glass for the hall", language: "en"),
                written("fr/chevaux", "Les chevaux du village", language: "fr", mode: .private, domain: "fr.example"),
            ], now: now)
        // The public items are English: `chevaux` is read in English alone, and finds nothing.
        #expect(try test.index.ids("chevaux", domain: nil, scope: .public).isEmpty)
        // The French domain sees a French item: read in French too, `chevaux` is `cheval`.
        #expect(try test.index.ids("chevaux", domain: "fr.example").sorted() == ["en/mirror", "fr/chevaux"])
    }

    @Test("a form one language makes of a word reads it only where an item of that language holds the form")
    func formsHeldInTheirLanguage() throws {
        let test = try TestIndex()
        // Norwegian reads `walker` as `walk`, an English word too; its one item here holds neither.
        var items = (0..<6).map { written("en/walk/\($0)", "A walk by the sea, day \($0)", language: "en") }
        items.append(written("en/walker", "The walker's guide to the coast", language: "en"))
        items.append(written("nb/fjord", "Turer langs fjorden", language: "nb"))
        try test.index.indexSearchableItems(items, now: now)
        func found(_ text: String) throws -> [String] {
            try test.index.search(SearchQuery(text, domainIdentifier: "default", limit: 100, typos: false), now: now)
                .results.map(\.canonicalIdentifier).sorted()
        }
        #expect(try found("walker -zzqx") == ["en/walker"])
        // Once a Norwegian item holds the form, Norwegian reads the word so too: `walk` for `walker`
        // in every language's items, as the languages share their words' forms.
        try test.index.indexSearchableItems([written("nb/walker", "En walker i fjellet", language: "nb")], now: now)
        let read = try found("walker -zzqx")
        #expect(read.contains("nb/walker") && read.contains("en/walker"), "\(read)")
    }

    @Test("a typo's corrections are read in a language only where an item of that language holds their form")
    func correctionsHeldInTheirLanguage() throws {
        let test = try TestIndex()
        // Irish reads `shelf` as `self` (its lenition), an English word too; the Irish item holds neither.
        try test.index.indexSearchableItems(
            [
                written("en/shelf", "A shelf for the hall", language: "en"),
                written("en/self", "Self portrait in oil", language: "en"),
                written("ga/leabhar", "Leabhar ar an tseilf", language: "ga"),
            ], now: now)
        func found(_ text: String) throws -> [String] {
            try test.index.search(SearchQuery(text, domainIdentifier: "default", limit: 100), now: now)
                .results.map(\.canonicalIdentifier).sorted()
        }
        // `shlef`, one typo from `shelf`: read in English and Irish, its correction is `shelf` alone.
        #expect(try found("shlef") == ["en/shelf"])
        // Once an Irish item holds `self`, Irish reads the correction so too.
        try test.index.indexSearchableItems([written("ga/self", "Féinphortráid: self", language: "ga")], now: now)
        #expect(try found("shlef") == ["en/self", "en/shelf", "ga/self"])
    }

    @Test("an item that names no language has the one its text is told in: stemmed, filtered and counted so")
    func told() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems(
            [
                written(
                    "fr/chevaux", "Les chevaux", description: "Une promenade à cheval dans les collines du village."),
                written("de/haeuser", "Alte Häuser", description: "Ein Spaziergang durch die alten Häuser am See."),
                written("en/pie", "Apple pie", description: "A warm apple pie with cinnamon and a crumbly crust."),
                // Made-up words are told no language: the default's.
                written("xx/made-up", "Stun kel thux", description: "Trean nustshy trean stun wom cusbur."),
            ], now: now)
        #expect(try test.index.ids("language:fr") == ["fr/chevaux"])
        #expect(try test.index.ids("language:en").sorted() == ["en/pie", "xx/made-up"])
        #expect(try test.index.ids("haus") == ["de/haeuser"])
        // The item reads back as given.
        #expect(try test.index.item(withIdentifier: "fr/chevaux", now: now)?.object.language == nil)
    }

    @Test("the sample corpus's recipes, articles and products: at least 95 % are told their language")
    func toldOnTheSampleCorpus() throws {
        let test = try TestIndex()
        let corpus =
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path + "/corpus"
        _ = try Indexer(now: now).index([.path(corpus)], into: test.index)
        let expected = [
            "fr.example.cuisine": "fr", "de.example.kueche": "de", "com.example.blog": "en", "com.example.shop": "en",
        ]
        var right = 0
        var total = 0
        for (domain, language) in expected {
            let every = SearchQuery("domain:\(domain)", domainIdentifier: domain, limit: 0)
            let told = SearchQuery("domain:\(domain) language:\(language)", domainIdentifier: domain, limit: 0)
            total += try test.index.search(every, now: now).total
            right += try test.index.search(told, now: now).total
        }
        #expect(total >= 150)
        #expect(Double(right) >= 0.95 * Double(total), "\(right) of \(total)")
    }

    @Test("meaning only where the model reads: French and German items get no vector and are found by their words")
    func meaningWhereTheModelReads() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems(
            [
                written(
                    "fr/veste", "Veste de pluie",
                    description: "Une veste légère pour le temps humide et les longues randonnées."),
                written(
                    "de/jacke", "Regenjacke", description: "Eine leichte Jacke für nasses Wetter und lange Wanderungen."
                ),
                written("en/jacket", "Rain jacket", description: "A light jacket for wet weather and long walks."),
            ], now: now)
        let report = try test.index.completeMeaning(using: try MeaningModel.installed())
        // One vector; the other two marked as needing none, so that nothing is left to embed.
        #expect(report.embedded == 1)
        #expect(report.withMeaning == 3)
        #expect(try test.index.meaningStatus().withMeaning == 3)
        // By meaning alone, an English question finds the English item and never the others.
        let byMeaning = try test.index.search(SearchQuery("clothes for a storm", semanticRatio: 1), now: now)
        #expect(byMeaning.results.allSatisfy { $0.canonicalIdentifier == "en/jacket" })
        // Similar items of a French one: it has no vector, and says why.
        let error = #expect(throws: SearchlightError.self) {
            _ = try test.index.similar(to: "fr/veste", query: SearchQuery(""), now: now)
        }
        #expect(error?.message.contains("written in fr, which the meaning model does not read") == true)
        // A German question is searched by its words alone, even where a ratio is named.
        let german = try test.index.search(
            SearchQuery("eine leichte Jacke für nasses Wetter", semanticRatio: 0.5), now: now)
        #expect(german.results.map(\.canonicalIdentifier) == ["de/jacke"])
        #expect(german.results.allSatisfy { $0.matchedBy == .words })
    }

    @Test("the index's default language: items whose text is not told are in it, it is recorded and reported")
    func defaultLanguage() throws {
        let test = try TestIndex()
        #expect(try test.index.defaultLanguage() == "en")
        #expect(try test.index.setDefaultLanguage("de-AT"))
        #expect(try !test.index.setDefaultLanguage("de"))
        let error = #expect(throws: SearchlightError.self) { try test.index.setDefaultLanguage("german!") }
        #expect(error?.code == .invalidArgument)
        try test.index.indexSearchableItems(
            [
                written("xx/made-up", "Stun kel thux", description: "Trean nustshy trean stun wom cusbur."),
                written(
                    "fr/chevaux", "Les chevaux", description: "Une promenade à cheval dans les collines du village."),
                written("en/named", "Stun kel thux", language: "en"),
            ], now: now)
        #expect(try test.index.ids("language:de") == ["xx/made-up"])
        #expect(try test.index.ids("language:fr") == ["fr/chevaux"])
        #expect(try test.index.ids("language:en") == ["en/named"])
        #expect(try test.index.statistics(now: now).language == "de")
        try test.index.close()
        let reopened = try SearchableIndex(path: test.path, access: .readOnly)
        #expect(try reopened.defaultLanguage() == "de")
        #expect(try reopened.statistics(now: now).language == "de")
    }

    @Test("a relaxed question's stop words, in each language it is read in, weigh but select no item")
    func stopWordsSelectNothing() throws {
        #expect(StopWords.languagesLoaded >= 15, "scripts/install-dependencies writes the stop word lists")
        let test = try TestIndex()
        try test.index.indexSearchableItems(
            [
                written(
                    "de/kirsch", "Schwarzwälder Kirschtorte", description: "Kirschen und viel Sahne.", language: "de"),
                written(
                    "de/strudel", "Apfelstrudel", description: "Mit Äpfeln, Rosinen und Vanillesoße.", language: "de"),
                written(
                    "de/spaetzle", "Käsespätzle", description: "Spätzle mit Bergkäse und Zwiebeln.", language: "de"),
                written("en/kettle", "Copper kettle", description: "A kettle for the stove.", language: "en"),
                written("en/steel", "Steel kettle", description: "A kettle for a stove.", language: "en"),
                written(
                    "en/bicycle", "The history of the bicycle", description: "From the first one on.", language: "en"),
            ], now: now)
        // No item has every word: the items with the most of them, but none for `mit` or `the` alone.
        let german = try test.index.search(SearchQuery("Kirschtorte mit Vanillesoße", limit: 10), now: now)
        #expect(german.relaxed)
        #expect(german.results.map(\.canonicalIdentifier).sorted() == ["de/kirsch", "de/strudel"])
        #expect(german.total == 2)
        let english = try test.index.search(SearchQuery("the copper pot", limit: 10), now: now)
        #expect(english.relaxed)
        #expect(english.results.map(\.canonicalIdentifier) == ["en/kettle"])
        // A stop word still weighs: of two items alike but for it, the one that holds it first.
        let weighed = try test.index.search(SearchQuery("the kettle zebra", limit: 10), now: now)
        #expect(weighed.relaxed)
        #expect(weighed.results.map(\.canonicalIdentifier) == ["en/kettle", "en/steel"])
        // In parentheses too: a stop word weighs wherever the question's other words select, as it
        // would without them (the kettles do not hold `zebra`, the group's other word).
        for text in ["kettle (the zebra)", "kettle (the) zebra", "(kettle) the zebra"] {
            let grouped = try test.index.search(SearchQuery(text, limit: 10), now: now)
            #expect(grouped.relaxed)
            #expect(grouped.results.map(\.canonicalIdentifier) == ["en/kettle", "en/steel"], "\(text)")
            #expect(grouped.results.map(\.score) == weighed.results.map(\.score), "\(text)")
        }
        // Only stop words: they are the question, and select.
        let only = try test.index.search(SearchQuery("the of mit", limit: 10), now: now)
        #expect(only.relaxed)
        #expect(
            only.results.map(\.canonicalIdentifier).sorted() == [
                "de/spaetzle", "de/strudel", "en/bicycle", "en/kettle",
            ])
    }
}
