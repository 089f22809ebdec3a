import SearchlightKit
import SearchlightTesting
import Testing

/// SPEC §2.1: a typo does not lose the item.
@Suite("Typos (reference: typos)", .temporaryFolder)
struct TypoTests {
    func shelf() throws -> TestIndex {
        let test = try TestIndex()
        try test.index.indexSearchableItems(
            [
                item("spotlight", title: "Spotlight search explained", mode: .public),
                item("lantern", title: "Camping lantern", description: "Bright light for the tent.", mode: .public),
                item("international", title: "International shipping rates", mode: .public),
                item("model", title: "Kettle model K2050", description: "Boils water.", mode: .public),
                item("linking", title: "Deep linking guide", mode: .public),
                item("linkin", title: "Linkin tribute band", mode: .public),
                item("secret", title: "Quarterly merger plan", domain: "com.other"),
            ], now: now)
        return test
    }

    func ids(_ text: String, _ test: TestIndex, typos: Bool = true, domain: String = "default") throws -> [String] {
        try test.index.search(SearchQuery(text, domainIdentifier: domain, limit: 100, typos: typos), now: now).results
            .map(\.canonicalIdentifier)
    }

    @Test(
        "one typo in a word of 5 to 8 letters, two from 9 letters, still finds the item",
        arguments: [
            ("spotlght", "spotlight"),  // a letter missing
            ("spotliight", "spotlight"),  // a letter added
            ("spotlaght", "spotlight"),  // a letter changed
            ("lantren", "lantern"),  // two letters swapped
            ("camping lantren", "lantern"),
            ("internatoinal", "international"),  // one swap in 13 letters
            ("intrenatoinal", "international"),  // two swaps in 13 letters
        ])
    func found(typed: String, expected: String) throws {
        #expect(try ids(typed, try shelf()).contains(expected))
    }

    @Test("the first letter is never a typo; a word under 5 letters, a number or a phrase is exact")
    func exact() throws {
        let test = try shelf()
        #expect(try ids("pantern", test).isEmpty)  // lantern, first letter changed
        #expect(try ids("lantrn", test) == ["lantern"])
        #expect(try ids("lamp", test).isEmpty)  // four letters: no typo allowed
        #expect(try ids("tnet", test).isEmpty)  // tent, swapped, four letters
        #expect(try ids("k2051", test).isEmpty)  // a model number stays exact
        #expect(try ids("\"camping lantren\"", test).isEmpty == false)  // a phrase finding nothing is read as words
        #expect(try ids("title:lantren", test).isEmpty)  // a field's word is exact
        #expect(try ids("intrenatoinaal", test).isEmpty)  // three typos
        #expect(try ids("lantren", test, typos: false).isEmpty)  // typos off
    }

    @Test("a match as typed ranks above a corrected one")
    func typedFirst() throws {
        let test = try shelf()
        // "linkin" is a word of one item and one typo from "linking", another item's.
        #expect(try ids("linkin", test) == ["linkin", "linking"])
        #expect(try ids("linking", test) == ["linking", "linkin"])
        // Not the last word (which also matches as a prefix): exact, without typos.
        #expect(try ids("linkin band", test, typos: false) == ["linkin"])
        #expect(try ids("linkng AND guide", test, typos: false).isEmpty)
        #expect(try ids("linkng AND guide", test) == ["linking"])
    }

    @Test("a match as typed ranks above a corrected one that weighs far more, on every page, and both are counted")
    func typedFirstOnEveryPage() throws {
        let test = try TestIndex()
        // "clark" is common and weighs little; "clerk", one typo from it, is rare and weighs much.
        let named = (0..<12).map {
            item(
                "named-\($0)", title: "Coastal walk \($0)", description: "Notes of a walk, led by Clark.", mode: .public
            )
        }
        try test.index.indexSearchableItems(
            named + [
                item("corrected", title: "Clerk", description: "Clerk, clerk and clerk.", mode: .public),
                item("corrected-too", title: "Clerk Street", mode: .public),
                item("other", title: "Walking boots", mode: .public),
            ], now: now)
        func page(_ text: String, offset: Int, limit: Int) throws -> SearchResults {
            try test.index.search(SearchQuery(text, limit: limit, offset: offset), now: now)
        }
        let everything = try page("clark", offset: 0, limit: 20)
        let ranked = everything.results.map(\.canonicalIdentifier)
        #expect(Set(ranked.prefix(12)) == Set(named.map(\.object.canonicalIdentifier)))
        #expect(Set(ranked.dropFirst(12)) == ["corrected", "corrected-too"])
        #expect(everything.total == 14)
        // The score shown never rises down the page.
        let scores = everything.results.map(\.score)
        #expect(scores == scores.sorted(by: >))
        for offset in stride(from: 0, through: 15, by: 5) {
            let five = try page("clark", offset: offset, limit: 5)
            #expect(five.results.map(\.canonicalIdentifier) == Array(ranked.dropFirst(offset).prefix(5)))
            #expect(five.total == 14)
        }
        // A page the matches as typed fill is theirs: the results and scores of the search without
        // typos, and the total of every match.
        for (offset, limit) in [(0, 5), (5, 5), (0, 12)] {
            let typed = try test.index.search(SearchQuery("clark", limit: limit, offset: offset), now: now)
            let exact = try test.index.search(
                SearchQuery("clark", limit: limit, offset: offset, typos: false), now: now)
            #expect(typed.results.map(\.canonicalIdentifier) == exact.results.map(\.canonicalIdentifier))
            #expect(typed.results.map(\.score) == exact.results.map(\.score))
            #expect(typed.total == 14 && exact.total == 12)
        }
        // Without typos, the matches as typed alone.
        #expect(try ids("clark", test, typos: false).count == 12)
        // Two words: the matches as typed of both, or else the corrected ones.
        #expect(try ids("clark walk", test).count == 12)
        #expect(try ids("clark street", test) == ["corrected-too"])
    }

    @Test("a reader counts the corrections' matches as the writer does, at its own revision, only those it may see")
    func readersCount() throws {
        let test = try TestIndex()
        // Twelve items hold "clark" as typed; two hold "clerk", one typo from it, and another
        // domain's private item holds it too. A read-only reader counts every match beside its page
        // (on another core, with a handle of its own at the reader's revision).
        let named = (0..<12).map {
            item("named-\($0)", title: "Coastal walk \($0)", description: "Led by Clark.", mode: .public)
        }
        try test.index.indexSearchableItems(
            named + [
                item("corrected", title: "Clerk", mode: .public),
                item("corrected-too", title: "Clerk Street", mode: .public),
                item("hidden", title: "Clerk of another domain", domain: "com.other"),
            ], now: now)
        let readers = try [true, false].map { keeps in
            try SearchableIndex(path: test.path, access: .readOnly, keepsFieldsInMemory: keeps)
        }
        func same(_ query: SearchQuery, total: Int) throws {
            let written = try test.index.search(query, now: now)
            #expect(written.total == total)
            for reader in readers {
                let read = try reader.search(query, now: now)
                #expect(read.total == written.total)
                #expect(read.results.map(\.canonicalIdentifier) == written.results.map(\.canonicalIdentifier))
                #expect(read.results.map(\.score) == written.results.map(\.score))
            }
        }
        for (offset, limit) in [(0, 5), (0, 20), (15, 5)] {
            try same(SearchQuery("clark", limit: limit, offset: offset), total: 14)
            try same(SearchQuery("clark", domainIdentifier: "com.other", limit: limit, offset: offset), total: 15)
            try same(SearchQuery("clark walk", limit: limit, offset: offset), total: 12)
        }
        // A commit adds two corrected matches and removes a typed one: the readers' next searches
        // count the new revision's matches.
        try test.index.indexSearchableItems(
            [
                item("corrected-new", title: "Clerk Road", mode: .public),
                item("clerks", title: "Clerk Lane", mode: .public),
            ],
            now: now)
        _ = try test.index.deleteSearchableItems(withIdentifiers: ["named-0"], includePublic: true)
        try same(SearchQuery("clark", limit: 5), total: 15)
        try same(SearchQuery("clark", domainIdentifier: "com.other", limit: 5), total: 16)
        for reader in readers { try reader.close() }
    }

    @Test("the total counts each match once, as typed or through a correction, whatever the query's shape")
    func totalOfEveryShape() throws {
        let test = try TestIndex()
        // "harbor" is one typo from "harbour", "garten" from "garden". The items only a correction
        // finds are counted apart from the page's own count of the matches as typed.
        let typed = (0..<3).map { item("typed-\($0)", title: "Harbour garden tour \($0)", mode: .public) }
        try test.index.indexSearchableItems(
            typed + [
                item("typed-and-corrected", title: "Harbour garden by the harbor", mode: .public),
                item("first-corrected", title: "Harbor garden", mode: .public),
                item("second-corrected", title: "Harbour garten", mode: .public),
                item("both-corrected", title: "Harbor garten", mode: .public),
                item("bridge", title: "Harbour bridge", mode: .public),
                item("bridge-corrected", title: "Harbor bridge", mode: .public),
                item("hidden", title: "Harbor garden of another domain", domain: "com.other"),
            ], now: now)
        func total(_ text: String, typos: Bool = true) throws -> Int {
            let page = try test.index.search(SearchQuery(text, limit: 100, typos: typos), now: now)
            // Every match is listed once: the total is the page's length.
            let listed = page.results.map(\.canonicalIdentifier)
            #expect(Set(listed).count == listed.count, "\(text)")
            #expect(page.total == listed.count, "\(text)")
            // A page that starts past the matches as typed counts the same.
            #expect(
                try test.index.search(SearchQuery(text, limit: 2, offset: 5, typos: typos), now: now).total
                    == page.total)
            return page.total
        }
        #expect(try total("harbour garden") == 7)
        #expect(try total("harbour garden", typos: false) == 4)
        #expect(try total("harbour garden -tour") == 4)
        #expect(try total("harbour AND (garden OR bridge)") == 9)
        // A word under `title:` must be in the title as typed: its corrections select no more.
        #expect(try total("title:harbour garden") == 5)
        #expect(try total("harbour OR garden") == 9)
        #expect(try total("garden harbour") == 7)
        #expect(try total("\"harbour garden\"") == 4)
    }

    @Test("an excluded word is excluded as typed, not its neighbours")
    func excludedAsTyped() throws {
        let test = try shelf()
        #expect(try ids("deep -linkin", test) == ["linking"])
        #expect(try ids("linking -linkin", test) == ["linking"])
        #expect(try ids("band NOT linking", test) == ["linkin"])
    }

    @Test("the word typed as you type finds the words that begin a typo from it")
    func asYouType() throws {
        let test = try shelf()
        #expect(try ids("deep linkn", test) == ["linking"])
        #expect(try ids("spotlgh", test) == ["spotlight"])
        #expect(try ids("internatoin", test) == ["international"])
        #expect(try ids("linkn", test) == ["linking", "linkin"] || ids("linkn", test) == ["linkin", "linking"])
        #expect(try ids("linkn", test, typos: false).isEmpty)
        // Not when it is not the last word, nor under 5 letters.
        #expect(try ids("linkn AND deep", test).isEmpty)
        #expect(try ids("lnik", test).isEmpty)
    }

    @Test("a correction finds only items the caller may see, and counts them alone")
    func visibility() throws {
        let test = try shelf()
        // "merger" is a word of another domain's private item only.
        #expect(try ids("mergre", test).isEmpty)
        let page = try test.index.search(SearchQuery("mergre plan", limit: 0), now: now)
        #expect(page.total == 0)
        #expect(try ids("mergre", test, domain: "com.other") == ["secret"])
        #expect(try test.index.search(SearchQuery("mergre"), now: now).suggestion == nil)
    }

    @Test("the words a typo is looked up in follow the index: a word added is found at the next search")
    func followsCommits() throws {
        let test = try shelf()
        // Two readers that keep fields share the revision's words; each moves to the next revision
        // with its own next search. A reader that keeps nothing reads the words of each first
        // letter its searches need, once a revision.
        let readers = try [true, true, false].map { keeps in
            try SearchableIndex(path: test.path, access: .readOnly, keepsFieldsInMemory: keeps)
        }
        func found(_ text: String, by index: SearchableIndex) throws -> [String] {
            try index.search(SearchQuery(text, limit: 100), now: now).results.map(\.canonicalIdentifier)
        }
        for reader in readers {
            #expect(try found("spotlght", by: reader) == ["spotlight"])
            #expect(try found("lantren", by: reader) == ["lantern"])
            #expect(Set(try found("spotlght lantren", by: reader)) == ["spotlight", "lantern"])
        }
        #expect(try ids("harmonica", test).isEmpty)
        try test.index.indexSearchableItems([item("harmonica", title: "Blues harmonica", mode: .public)], now: now)
        #expect(try ids("harmonika", test) == ["harmonica"])
        for reader in readers { #expect(try found("harmonika", by: reader) == ["harmonica"]) }
        for reader in readers { try reader.close() }
    }
}
