import Foundation
import SearchlightKit
import SearchlightTesting
import Testing

/// 150 distinct words beginning with "pre" (preaa, preab, …), one item each, titled with it.
func wordsBeginningWithPre() -> [SearchableItem] {
    let letters = Array("abcdefghijklmnopqrstuvwxyz")
    return (0..<150).map { number in
        let word = "pre" + String(letters[number / 26]) + String(letters[number % 26])
        return item("w\(number)", title: "The \(word) case", description: "Nothing else in common.")
    }
}

@Suite("As-you-type words and word beginnings (reference: the query language)", .temporaryFolder)
struct AsYouTypeTests {
    @Test("a beginning finds every word it begins, in every field, not only the most frequent hundred")
    func everyWord() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems(wordsBeginningWithPre(), now: now)
        for query in ["pre", "the pre", "pre*", "title:pre", "PRE", "préa"] {
            let expected = query == "préa" ? 26 : 150
            #expect(try test.index.search(SearchQuery(query, limit: 0), now: now).total == expected, "\(query)")
        }
        #expect(try test.index.search(SearchQuery("description:pre", limit: 0), now: now).total == 0)
        // Longer than the beginnings kept (4 characters): the words it begins, as before.
        #expect(
            try test.index.search(SearchQuery("preab", typos: false), now: now).results.map(\.canonicalIdentifier) == [
                "w1"
            ])
        #expect(try test.index.ids("prea*").count == 26)
    }

    @Test(
        "one or two letters typed last narrow to items with one of the ten most frequent words they begin, or the letters as a word, without ranking"
    )
    func shortLastWord() throws {
        let test = try TestIndex()
        // Eleven words beginning with "co", the most frequent first; "cobalt" is the rarest.
        let words = [
            "copper", "cotton", "coral", "corn", "cocoa", "comet", "comma", "condor", "cowl", "coyote", "cobalt",
        ]
        var items: [SearchableItem] = []
        for (rank, word) in words.enumerated() {
            for copy in 0..<(words.count - rank) {
                items.append(item("\(word)/\(copy)", title: "Kettle \(word)"))
            }
        }
        items.append(item("plain", title: "Kettle kettle kettle"))
        items.append(item("co", title: "Kettle co"))
        try test.index.indexSearchableItems(items, now: now)
        let found = try test.index.ids("kettle co")
        #expect(found.contains("copper/0") && found.contains("coyote/0") && found.contains("co"))
        #expect(!found.contains("cobalt/0") && !found.contains("plain"))
        // The letters as a whole word rank; the words they begin add nothing: the others come in
        // the order "kettle" alone gives them.
        #expect(found.first == "co")
        let alone = try test.index.ids("kettle")
        #expect(Array(found.dropFirst()) == alone.filter { found.contains($0) && $0 != "co" })
        // Three letters read the word beginnings: every word, the rarest too.
        #expect(try test.index.ids("kettle cob").contains("cobalt/0"))
    }

    @Test(
        "a beginning that is not a plain word (C++, 3.5, O'Neill) finds the words it begins, typed or with a star, in a field too"
    )
    func notPlainWords() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems(
            [
                item("cpp", title: "The C++ primer"), item("c", title: "The C book"),
                item("v351", title: "Version 3.5.1 notes"), item("v36", title: "Version 3.6 notes"),
                item("oneill", title: "O'Neill family history", description: "Letters from C++ programmers."),
            ], now: now)
        #expect(try test.index.ids("c++*").sorted() == ["cpp", "oneill"])
        #expect(try test.index.ids("title:c++*") == ["cpp"])
        #expect(try test.index.ids("description:c++*") == ["oneill"])
        #expect(try test.index.ids("3.5*") == ["v351"])
        #expect(try test.index.ids("version 3.5") == ["v351"])
        #expect(try test.index.ids("o'nei") == ["oneill"])
        #expect(try test.index.ids("history o'nei") == ["oneill"])
    }

    @Test("the word typed so far ranks an item holding it whole above one holding a longer word")
    func wholeWordFirst() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems(
            [item("longer", title: "Runway lights"), item("whole", title: "Run lights")], now: now)
        #expect(try test.index.ids("run") == ["whole", "longer"])
        #expect(try test.index.ids("lights run") == ["whole", "longer"])
    }

    @Test(
        "beside other words, the words a last word of five letters or more begins weigh each as itself: the rarer ranks first"
    )
    func longBeginningBesideWords() throws {
        let test = try TestIndex()
        // `runways` is in 21 items, `runwayz` in one; both items with `kettle` are alike otherwise,
        // the one with `runways` stored first.
        let common = (0..<20).map { item("lamp/\($0)", title: "Lamp runways") }
        try test.index.indexSearchableItems(
            [item("common", title: "Kettle runways"), item("rare", title: "Kettle runwayz")] + common, now: now)
        let page = try test.index.search(SearchQuery("kettle runwa", limit: 10, typos: false), now: now)
        #expect(page.results.map(\.canonicalIdentifier) == ["rare", "common"])
        #expect(page.results[0].score > page.results[1].score)
        // Alone, the word weighs as its beginning (`runw`), which both words share, as the impact
        // tiers bound it: the two items weigh the same, in the order they were stored.
        let alone = try test.index.search(SearchQuery("runwa", limit: 30, typos: false), now: now).results
        let two = alone.filter { ["common", "rare"].contains($0.canonicalIdentifier) }
        #expect(two.map(\.canonicalIdentifier) == ["common", "rare"])
        #expect(two.count == 2 && two[0].score == two[1].score)
    }

    @Test("a beginning counts every word of an item it begins")
    func counted() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems(
            [
                item("one", title: "Runway lights"), item("two", title: "Runway runners"),
                item("three", title: "Runway runners rush", description: "Runs and runs."),
            ], now: now)
        #expect(try test.index.ids("run") == ["three", "two", "one"])
        #expect(try test.index.ids("runn") == ["two", "three"])
    }

    @Test("a beginning finds the item whose only word of it is the beginning itself")
    func wordAsItsOwnBeginning() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems(
            [item("run", title: "Run fast"), item("runway", title: "Runway lights"), item("wom", title: "Wom")],
            now: now)
        #expect(try Set(test.index.ids("run*")) == ["run", "runway"])
        #expect(try Set(test.index.ids("run")) == ["run", "runway"])
        #expect(try Set(test.index.ids("title:run*")) == ["run", "runway"])
        #expect(try test.index.ids("wom*") == ["wom"])
        #expect(try test.index.ids("fast ru") == ["run"])
    }

    @Test("beginnings stop at the first character that is not a word's and leave CJK to its n-grams")
    func characters() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems(
            [
                item("apostrophe", title: "O'Neil's guide"),
                item("digits", title: "Release 2026.1 notes"),
                item("accents", title: "Éléphant d'Afrique"),
                item("cjk", title: "深度链接指南"),
            ], now: now)
        for (query, expected) in [
            ("o'ne", ["apostrophe"]), ("o'n*", ["apostrophe"]), ("20", ["digits"]), ("202", ["digits"]),
            ("ELE", ["accents"]), ("élé", ["accents"]), ("d'af", ["accents"]), ("深", ["cjk"]), ("深度", ["cjk"]),
        ] {
            #expect(try test.index.ids(query) == expected, "\(query)")
        }
    }
}
