import Foundation
import SearchlightKit
import SearchlightTesting
import Testing

/// A small catalogue shared by the query-language tests.
func catalogue() throws -> TestIndex {
    let test = try TestIndex()
    try test.index.indexSearchableItems(
        [
            item(
                "shoes/red", title: "Red running shoes", description: "Light shoes for road running.",
                keywords: ["footwear", "Running Gear"], mode: .public, schema: "COMMERCE_PRODUCT"),
            item(
                "shoes/blue", title: "Blue walking shoe", description: "A comfortable shoe for long walks.",
                keywords: ["footwear"], schema: "COMMERCE_PRODUCT"),
            item(
                "article/deep-linking", title: "Deep linking explained",
                description: "How deep linking works on Android and iOS, without Firebase.",
                keywords: ["deep linking", "mobile"], mode: .public, schema: "TEXT_ARTICLE"),
            item(
                "article/firebase", title: "Android links with Firebase",
                description: "Dynamic links on Android, the Firebase way.", keywords: ["android"]),
            item(
                "recipe/cafe", title: "Café crème", description: "Un café allongé avec de la crème.",
                keywords: ["boisson"]),
            item(
                "recipe/strasse", title: "Straßenkaffee", description: "Kaffee für unterwegs, schön heiß.",
                keywords: ["getränk"]),
            item("zh/guide", title: "深度链接指南", description: "本文介绍深度链接的工作原理。", keywords: ["移动"], mode: .public),
            item("other/private", title: "Red shoes of another app", domain: "com.other"),
            item("other/public", title: "Red shoes shared by another app", mode: .public, domain: "com.other"),
        ], now: now)
    return test
}

@Suite("The query language (reference: the query language)", .temporaryFolder)
struct QueryLanguageTests {
    @Test(
        "each row of the query language finds what it should",
        arguments: [
            ("red shoes", ["shoes/red", "other/public"]),  // AND of words
            ("RED SHOES", ["shoes/red", "other/public"]),  // case
            ("walk", ["shoes/blue"]),  // stemming: walks, walking
            ("Walk shoe", ["shoes/blue"]),  // a capitalised word is stemmed too
            ("running shoe", ["shoes/red"]),  // stemming: shoes
            ("cafe creme", ["recipe/cafe"]),  // accents folded in the query's absence
            ("café", ["recipe/cafe"]),  // and in its presence
            ("strassenkaffee", ["recipe/strasse"]),  // ß
            ("\"deep linking\"", ["article/deep-linking"]),  // phrase
            ("\u{201C}deep linking\u{201D}", ["article/deep-linking"]),  // typographic quotes
            ("title:\"linking deep\"", []),  // a phrase keeps its order
            ("android -firebase", []),  // exclusion (both mention Firebase)
            ("links -firebase", []),
            ("android -\"dynamic links\"", ["article/deep-linking"]),  // excluded phrase
            ("walking OR road", ["shoes/red", "shoes/blue"]),
            ("shoes AND walk", ["shoes/blue"]),
            ("shoes NOT red", ["shoes/blue"]),
            ("(walking OR road) AND light", ["shoes/red"]),
            ("NOT shoes", ["article/deep-linking", "article/firebase", "recipe/cafe", "recipe/strasse", "zh/guide"]),
            ("foot*", ["shoes/red", "shoes/blue"]),  // wildcard
            ("deep lin", ["article/deep-linking"]),  // the last word is a prefix
            ("crè", ["recipe/cafe"]),
            ("title:shoe", ["shoes/red", "shoes/blue", "other/public"]),
            ("title:\"deep linking\"", ["article/deep-linking"]),
            ("title:android", ["article/firebase"]),
            ("keyword:footwear", ["shoes/red", "shoes/blue"]),
            ("keyword:\"running gear\"", ["shoes/red"]),  // whole keyword, case-insensitive
            ("keyword:running", []),  // not a whole keyword
            ("keyword:\"deep linking\"", ["article/deep-linking"]),
            ("description:firebase", ["article/deep-linking", "article/firebase"]),
            ("description:explained", []),
            ("description:walking", ["shoes/blue"]),  // stems: walks
            ("description:comfortab*", ["shoes/blue"]),  // a beginning longer than its word's stem
            ("description:DYNAMIC", ["article/firebase"]),
            ("description:allongé", ["recipe/cafe"]),
            ("description:工作原理", ["zh/guide"]),
            ("description:指南", []),  // in the title only
            ("description:footwear", []),  // in the keywords only
            ("description:mobile", []),
            ("description:\"deep linking\"", ["article/deep-linking"]),
            ("description:link*", ["article/deep-linking", "article/firebase"]),  // linking, links
            ("description:explain*", []),
            (
                "-description:android",
                [
                    "shoes/red", "shoes/blue", "recipe/cafe", "recipe/strasse", "zh/guide", "other/public",
                ]
            ),
            ("id:shoes/blue", ["shoes/blue"]),
            ("schema:COMMERCE_PRODUCT", ["shoes/red", "shoes/blue"]),
            ("schema:text_article", ["article/deep-linking"]),
            ("mode:public shoes", ["shoes/red", "other/public"]),
            ("domain:com.other", ["other/public"]),
            ("深度链接", ["zh/guide"]),  // CJK without spaces
            ("工作原理", ["zh/guide"]),
            ("链接", ["zh/guide"]),
        ])
    func syntax(query: String, expected: [String]) throws {
        let test = try catalogue()
        #expect(try Set(test.index.ids(query)) == Set(expected), "\(query)")
    }

    @Test("an empty query returns every visible item")
    func emptyQuery() throws {
        let test = try catalogue()
        #expect(try test.index.ids("").count == 8)
        #expect(try test.index.ids("   ").count == 8)
        #expect(try test.index.ids("", domain: nil).count == 9)
    }

    @Test("description: finds a word in the description only, for numbers and words its title repeats too")
    func descriptionField() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems(
            [
                item(
                    "a", title: "Model 2026 kettle", description: "Released in 1999, a kettle for tea.",
                    keywords: ["x9"]),
                item("b", title: "Teapot", description: "Pairs with the model 2026 kettle."),
            ], now: now)
        #expect(try Set(test.index.ids("description:2026")) == ["b"])
        #expect(try Set(test.index.ids("description:1999")) == ["a"])
        #expect(try Set(test.index.ids("description:kettles")) == ["a", "b"])
        #expect(try Set(test.index.ids("description:x9")) == [])
        #expect(try Set(test.index.ids("description:\"model 2026\"")) == ["b"])
        #expect(try Set(test.index.ids("title:2026")) == ["a"])
        #expect(try Set(test.index.ids("description:tea*")) == ["a"])
    }

    @Test(
        "a value a field cannot read is an error with a clear message, never a crash",
        arguments: [
            ("mode:secret", "mode: takes public or private"),
            ("red mode:everyone", "mode: takes public or private"),
        ])
    func malformed(query: String, message: String) throws {
        let test = try catalogue()
        #expect {
            _ = try test.index.search(SearchQuery(query), now: now)
        } throws: { error in
            guard let error = error as? SearchlightError else { return false }
            return error.code == .invalidQuery && error.message.contains(message) && error.message.contains(query)
        }
    }

    @Test("NEAR and ADJ as words, lower-cased or at either end, are searched for as words")
    func proximityWordsAreWords() throws {
        let test = try catalogue()
        for query in ["near", "red near shoes", "NEAR", "red NEAR", "ADJ shoes"] {
            #expect(throws: Never.self) { try test.index.search(SearchQuery(query), now: now) }
        }
    }

    @Test("limits outside 0…1000 and negative offsets are rejected")
    func badPaging() throws {
        let test = try catalogue()
        #expect(throws: SearchlightError.self) { try test.index.search(SearchQuery("x", limit: 1001), now: now) }
        #expect(throws: SearchlightError.self) { try test.index.search(SearchQuery("x", offset: -1), now: now) }
    }
}

@Suite("Ranking and results (reference: ranking)", .temporaryFolder)
struct RankingTests {
    @Test("a title match ranks above a keyword's, above a description's, for whole words and prefixes")
    func fieldWeights() throws {
        let test = try TestIndex()
        let filler = "Plain words about something else entirely for the length of a normal description."
        try test.index.indexSearchableItems(
            [
                item("description", title: "Alpha", description: "A note on kayaks. " + filler, keywords: ["boats"]),
                item("keyword", title: "Beta", description: filler, keywords: ["kayak"]),
                item("title", title: "Kayak", description: filler, keywords: ["boats"]),
            ], now: now)
        #expect(try test.index.ids("kayak") == ["title", "keyword", "description"])
        // As-you-type and `word*` prefixes, through word beginnings, keep the same order.
        #expect(try test.index.ids("kay") == ["title", "keyword", "description"])
        #expect(try test.index.ids("kaya*") == ["title", "keyword", "description"])
    }

    @Test("each result carries the item's fields, a score from 0 to 100 and a snippet with marked matches")
    func resultFields() throws {
        let test = try catalogue()
        let results = try test.index.search(SearchQuery("deep linking"), now: now)
        let result = try #require(results.results.first)
        #expect(result.canonicalIdentifier == "article/deep-linking")
        #expect(result.domain == "default")
        #expect(result.title == "Deep linking explained")
        #expect(result.keywords == ["deep linking", "mobile"])
        #expect(result.contentIndexMode == .public)
        #expect(result.expirationDate == nil)
        #expect((0...100).contains(result.score))
        #expect(
            result.snippet.html
                == "How <mark>deep</mark> <mark>linking</mark> works on Android and iOS, without Firebase.")
        #expect(results.total == 1)
        #expect(results.query == "deep linking")
    }

    @Test("snippets keep accents and case, escape HTML, and cut long descriptions around the match")
    func snippets() throws {
        let test = try TestIndex()
        let long =
            String(repeating: "Filler words go here. ", count: 30) + "The <b>Crème</b> brûlée is here."
            + String(repeating: " More filler text.", count: 30)
        try test.index.indexSearchableItems([item("x", title: "Dessert", description: long)], now: now)
        let snippet = try #require(try test.index.search(SearchQuery("creme"), now: now).results.first?.snippet.html)
        #expect(snippet.contains("&lt;b&gt;<mark>Crème</mark>&lt;/b&gt;"))
        #expect(snippet.hasPrefix("…") && snippet.hasSuffix("…"))
        #expect(snippet.count < 260)
    }

    @Test("snippets mark a query word whatever its case and accents in the description")
    func snippetCase() throws {
        let test = try TestIndex()
        let description = "DEEP links, Deep LINKING and ÉCLAIRS; Éclair, deeper."
        try test.index.indexSearchableItems([item("x", title: "Pastry", description: description)], now: now)
        let snippet = try #require(
            try test.index.search(SearchQuery("deep linking eclairs"), now: now).results.first?.snippet)
        #expect(snippet.text == description)
        let marked = snippet.matches.map { String(snippet.text[$0]) }
        #expect(marked == ["DEEP", "links", "Deep", "LINKING", "ÉCLAIRS", "Éclair"])
    }

    @Test("a snippet is text with ranges, rendered by each front end its own way")
    func snippetRendering() throws {
        let test = try catalogue()
        let snippet = try #require(try test.index.search(SearchQuery("deep linking"), now: now).results.first?.snippet)
        #expect(snippet.text == "How deep linking works on Android and iOS, without Firebase.")
        #expect(snippet.matches.map { String(snippet.text[$0]) } == ["deep", "linking"])
        #expect(
            snippet.rendered(open: "[", close: "]")
                == "How [deep] [linking] works on Android and iOS, without Firebase.")
        let escaped = Snippet(text: "a <b> & c", matches: [])
        #expect(escaped.html == "a &lt;b&gt; &amp; c")
    }

    @Test("snippets mark other forms of a query word (its stem), and only those")
    func snippetStems() throws {
        let test = try catalogue()
        let blue = try #require(
            try test.index.search(SearchQuery("walking"), now: now).results.first {
                $0.canonicalIdentifier == "shoes/blue"
            })
        #expect(blue.snippet.matches.map { String(blue.snippet.text[$0]) } == ["walks"])
        let red = try #require(try test.index.search(SearchQuery("runs"), now: now).results.first?.snippet)
        #expect(red.matches.map { String(red.text[$0]) } == ["running"])
    }

    @Test("an identifier holding quotes is found across domains, never silently missed")
    func quotedIdentifier() throws {
        let test = try TestIndex()
        let identifier = #"say "hi" (twice): ok"#
        try test.index.indexSearchableItems(
            [item(identifier, title: "Quoted", mode: .public, domain: "com.other")], now: now)
        let found = try test.index.item(withIdentifier: identifier, domainIdentifier: "default", now: now)
        #expect(found?.object.canonicalIdentifier == identifier)
        let viaFilter = try test.index.item(withIdentifier: identifier, visibleTo: nil, scope: .all, now: now)
        #expect(viaFilter?.object.canonicalIdentifier == identifier)
    }

    @Test("per-domain statistics count live public and private items and expired ones")
    func domainStatistics() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems(
            [
                item("a", mode: .public, domain: "x"), item("b", domain: "x"),
                item("c", domain: "x", expiration: now + 5),
                item("d", domain: "x.y"),
            ], now: now)
        let stats = try test.index.statistics(domainIdentifier: "x", now: now + 5)
        #expect(stats.documents == 3)
        #expect(stats.public == 1)
        #expect(stats.private == 1)
        #expect(stats.expired == 1)
        #expect(stats.domains == ["x": 3])
    }

    @Test("spelling suggestions replace only the misspelled words and keep the rest as typed")
    func suggestionKeepsQuery() throws {
        let test = try catalogue()
        let results = try test.index.search(SearchQuery("title:Firebse -zzz", typos: false), now: now)
        #expect(results.total == 0)
        #expect(results.suggestion == "title:firebase -zzz")
    }

    @Test("CJK matches are marked in snippets")
    func cjkSnippet() throws {
        let test = try catalogue()
        let result = try #require(try test.index.search(SearchQuery("深度链接"), now: now).results.first)
        #expect(result.snippet.html == "本文介绍<mark>深度链接</mark>的工作原理。")
    }

    @Test("when nothing matches, a spelling suggestion is offered")
    func suggestion() throws {
        let test = try catalogue()
        let results = try test.index.search(SearchQuery("firebsae", typos: false), now: now)
        #expect(results.results.isEmpty)
        #expect(results.suggestion == "firebase")
        #expect(try test.index.search(SearchQuery("firebase"), now: now).suggestion == nil)
    }

    @Test("limit and offset page through results; total counts them all")
    func paging() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems((1...25).map { item("n\($0)", title: "number \($0)") }, now: now)
        let first = try test.index.search(SearchQuery("number", limit: 10), now: now)
        let third = try test.index.search(SearchQuery("number", limit: 10, offset: 20), now: now)
        #expect(first.total == 25 && first.results.count == 10)
        #expect(third.total == 25 && third.results.count == 5)
        #expect(
            Set(first.results.map(\.canonicalIdentifier)).isDisjoint(with: third.results.map(\.canonicalIdentifier)))
        #expect(try test.index.search(SearchQuery("number", limit: 0), now: now).results.isEmpty)
    }
}

@Suite("Visibility (reference: visibility)", .temporaryFolder)
struct VisibilityTests {
    @Test("a domain sees its own private items and every domain's public items")
    func domainView() throws {
        let test = try catalogue()
        #expect(try Set(test.index.ids("red shoes", domain: "default")) == ["shoes/red", "other/public"])
        #expect(
            try Set(test.index.ids("red shoes", domain: "com.other"))
                == ["shoes/red", "other/public", "other/private"])
        #expect(try Set(test.index.ids("shoe", domain: "com.third")) == ["shoes/red", "other/public"])
    }

    @Test("all domains sees everything")
    func allDomains() throws {
        let test = try catalogue()
        #expect(try Set(test.index.ids("red shoes", domain: nil)) == ["shoes/red", "other/public", "other/private"])
    }

    @Test("scope narrows to public or private items")
    func scope() throws {
        let test = try catalogue()
        #expect(try Set(test.index.ids("shoe", scope: .public)) == ["shoes/red", "other/public"])
        #expect(try Set(test.index.ids("shoe", scope: .private)) == ["shoes/blue"])
        #expect(try Set(test.index.ids("shoe", domain: nil, scope: .private)) == ["shoes/blue", "other/private"])
    }

    @Test(
        "a reader sees the right items for every domain and scope, across many items and after later commits",
        arguments: [false, true])
    func readerAfterCommits(deleting: Bool) throws {
        let test = try TestIndex()
        let domains = ["default", "com.a", "com.b"]
        // Item i: domain i % 3, public when i % 5 == 0; ids spread over several 64-document words.
        func batch(_ range: Range<Int>) -> [SearchableItem] {
            range.map { i in
                item(
                    "item/\(i)", title: "lamp \(i)", mode: i % 5 == 0 ? .public : .private,
                    domain: domains[i % domains.count])
            }
        }
        try test.index.indexSearchableItems(batch(0..<300), now: now)
        let reader = try SearchableIndex(path: test.path, access: .readOnly)
        var stored = Set(0..<300)
        func expected(_ domain: String?, _ scope: SearchQuery.Scope) -> Set<String> {
            Set(
                stored.filter { i in
                    let isPublic = i % 5 == 0
                    let own = domain == nil || domains[i % domains.count] == domain
                    switch scope {
                    case .all: return isPublic || own
                    case .public: return isPublic
                    case .private: return !isPublic && own
                    }
                }.map { "item/\($0)" })
        }
        func check(_ round: String) throws {
            for domain in domains + ["com.none", nil] as [String?] {
                for scope in [SearchQuery.Scope.all, .public, .private] {
                    let found = try reader.search(
                        SearchQuery("lamp", domainIdentifier: domain, scope: scope, limit: 1000), now: now)
                    #expect(
                        Set(found.results.map(\.canonicalIdentifier)) == expected(domain, scope),
                        "\(round): \(domain ?? "all domains"), \(scope)")
                    #expect(found.total == expected(domain, scope).count, "\(round): \(domain ?? "all"), \(scope)")
                }
            }
        }
        try check("first")
        // Later commits change who sees what; the reader follows them.
        try test.index.indexSearchableItems(batch(300..<400), now: now)
        stored.formUnion(300..<400)
        if deleting {
            for i in stride(from: 1, to: 400, by: 7) {
                _ = try test.index.deleteSearchableItems(
                    withIdentifiers: ["item/\(i)"], domainIdentifier: domains[i % domains.count], includePublic: true)
                stored.remove(i)
            }
        }
        try check("after commits")
    }

    @Test("get sees the domain's own item or another domain's public item, never another's private one")
    func getVisibility() throws {
        let test = try catalogue()
        #expect(try test.index.item(withIdentifier: "other/public", domainIdentifier: "default", now: now) != nil)
        #expect(try test.index.item(withIdentifier: "other/private", domainIdentifier: "default", now: now) == nil)
        #expect(try test.index.item(withIdentifier: "other/private", domainIdentifier: "com.other", now: now) != nil)
    }
}
