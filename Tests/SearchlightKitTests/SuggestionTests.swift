import SearchlightKit
import SearchlightTesting
import Testing

/// SPEC §2.2: a suggestion follows the rules of typos, and is offered only when it finds something.
/// Typos are off here: with them on, a word one typo from a visible word already finds its items.
@Suite("Suggestions that help (reference: spelling suggestions)", .temporaryFolder)
struct SuggestionTests {
    func kitchen() throws -> TestIndex {
        let test = try TestIndex()
        try test.index.indexSearchableItems(
            [
                item("bottle", title: "Glass bottle", description: "Holds a litre of water.", mode: .public),
                item("spotlight", title: "Spotlight search explained", mode: .public),
                item("lantern", title: "Camping lantern", description: "Bright light for the tent.", mode: .public),
                item("notebook", title: "Squared notebook", description: "Paper for notes.", mode: .public),
                item("international", title: "International shipping rates", mode: .public),
                item("hidden", title: "Cordless kettle", domain: "com.other"),
            ], now: now)
        return test
    }

    func suggestion(_ text: String, _ test: TestIndex, domain: String = "default") throws -> String? {
        try test.index.search(SearchQuery(text, domainIdentifier: domain, typos: false), now: now).suggestion
    }

    @Test(
        "one typo in a word of 5 to 8 letters, two from 9, is corrected",
        arguments: [
            ("spotlght", "spotlight"),  // a letter missing
            ("lantren", "lantern"),  // two neighbours swapped
            ("lanterns", nil),  // a match already (stemmed): never replaced
            ("notebok", "notebook"),
            ("bottel", "bottle"),
            ("internatoinal", "international"),  // swapped, 13 letters
            ("intrenatoinal", "international"),  // two swaps, 13 letters
        ] as [(String, String?)])
    func corrected(typed: String, expected: String?) throws {
        #expect(try suggestion(typed, try kitchen()) == expected)
    }

    @Test("the first letter is never taken for a typo, and a word under 5 letters has no typo")
    func firstLetterAndShortWords() throws {
        let test = try kitchen()
        // "kettle" is one letter from no visible word but two (and a first letter) from "bottle".
        #expect(try suggestion("kettle", test) == nil)
        #expect(try suggestion("pantern", test) == nil)  // "lantern", its first letter changed
        #expect(try suggestion("botle", test) == "bottle")
        #expect(try suggestion("lamp", test) == nil)  // four letters
        #expect(try suggestion("spotlihgt sarch", test) == "spotlight search")
    }

    @Test("with typos on, a word that finds its items through a typo is not suggested again")
    func typosOn() throws {
        let test = try kitchen()
        let page = try test.index.search(SearchQuery("spotlght"), now: now)
        #expect(page.results.map(\.canonicalIdentifier) == ["spotlight"] && page.suggestion == nil)
    }

    @Test("a suggestion is offered only when the corrected query finds an item the caller may see")
    func onlyWhenItFinds() throws {
        let test = try kitchen()
        // Corrected, the words still find nothing together; an explicit AND is not relaxed.
        #expect(try suggestion("spotlght AND lantern", test) == nil)
        #expect(try suggestion("spotlght lantern", test) == "spotlight lantern")  // relaxed, it finds
        #expect(try suggestion("title:spotlght", test) == "title:spotlight")
        #expect(try suggestion("title:spotlght -explained", test) == nil)
        // Another domain's private word is never offered; its own domain gets it.
        #expect(try suggestion("kettel", test) == nil)
        #expect(try suggestion("kettel", test, domain: "com.other") == "kettle")
    }
}
