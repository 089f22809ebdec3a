import Foundation
import SearchlightKit
import SearchlightTesting
import Testing

/// SPEC §2.1: a search box never refuses a question for its syntax, and says how it read it.
@Suite("Questions never fail on syntax (reference: how a query is read)", .temporaryFolder)
struct QueryReadingTests {
    @Test(
        "a quote never closed, a stray parenthesis, a lone operator, a name that is no field: read, and said how",
        arguments: [
            ("\"deep linking", "\"deep linking\""),
            ("\u{201C}deep linking", "\u{201C}deep linking\""),
            ("(deep linking", "deep linking"),
            ("((deep) linking", "(deep) linking"),
            ("-(firebase android", "firebase android"),
            ("deep linking)", "deep linking"),
            ("deep () linking", "deep linking"),
            ("deep -() linking", "deep linking"),
            ("deep (( )) linking", "deep linking"),
            ("ln(1 + ( + ()))) deep", "ln(1 + + ) deep"),  // kept by fuzzing: nested empty pairs
            ("red AND", "red and"),
            ("OR red", "or red"),
            ("red AND OR shoes", "red and OR shoes"),
            ("red NOT", "red not"),
            ("NOT", "not"),
            ("title:", "title"),
            ("red title: shoes", "red title shoes"),
            ("keyword:(footwear)", "keyword (footwear)"),
            ("red colour:blue", "red colour blue"),  // a phrase finding nothing, read as words
            ("\"red (AND) -shoes:x*\" zzz", "red and shoes x zzz"),
            ("(red \"shoes)", "red \"shoes)\""),
        ])
    func readAs(query: String, readAs: String) throws {
        let test = try catalogue()
        let page = try test.index.search(SearchQuery(query, limit: 100), now: now)
        #expect(page.readAs == readAs)
        // The reading is itself a query read as written, finding the same items.
        let again = try test.index.search(SearchQuery(readAs, limit: 100), now: now)
        #expect(again.readAs == nil, "\(readAs) read as \(again.readAs ?? "")")
        #expect(again.results.map(\.canonicalIdentifier) == page.results.map(\.canonicalIdentifier))
    }

    @Test("a query read as written says nothing of its reading, in Swift or in JSON")
    func asWritten() throws {
        let test = try catalogue()
        for query in [
            "red shoes", "\"deep linking\"", "(walking OR road) AND light", "title:shoe", "red NEAR shoes", "",
        ] {
            let page = try test.index.search(SearchQuery(query), now: now)
            #expect(page.readAs == nil, "\(query)")
            let json = String(decoding: try JSONEncoder().encode(page), as: UTF8.self)
            #expect(!json.contains("readAs"), "\(query): \(json)")
        }
        let read = try test.index.search(SearchQuery("\"red shoes"), now: now)
        let json = String(decoding: try JSONEncoder().encode(read), as: UTF8.self)
        #expect(json.contains(#""readAs":"\"red shoes\"""#), "\(json)")
    }

    @Test("an unclosed quote runs to the end: a phrase, excluded too")
    func unclosedQuote() throws {
        let test = try catalogue()
        #expect(try test.index.ids("\"deep linking") == ["article/deep-linking"])
        #expect(try Set(test.index.ids("android -\"dynamic links")) == ["article/deep-linking"])
        #expect(try test.index.ids("title:\"deep linking") == ["article/deep-linking"])
    }

    @Test("operators with their operands, and words that only look like operators, are read as written")
    func operatorsKept() throws {
        let test = try catalogue()
        #expect(try Set(test.index.ids("walking OR road")) == ["shoes/red", "shoes/blue"])
        #expect(try test.index.search(SearchQuery("walking OR road"), now: now).readAs == nil)
        // `and` in lower case was always a word.
        #expect(try test.index.search(SearchQuery("red and shoes"), now: now).readAs == nil)
    }

    @Test("when nothing is found, free-text phrases are read as words, and the response says so")
    func phrasesAsWords() throws {
        let test = try catalogue()
        let page = try test.index.search(SearchQuery("\"running red shoes\" road", limit: 100), now: now)
        #expect(page.relaxed)
        #expect(page.readAs == "running red shoes road")
        #expect(page.results.first?.canonicalIdentifier == "shoes/red", "\(page.results.map(\.canonicalIdentifier))")
        // A phrase no item holds, read as words that no item holds together, relaxed as any question is.
        let loose = try test.index.search(SearchQuery("\"linking deep\" explained"), now: now)
        #expect(loose.relaxed && loose.readAs == "linking deep explained")
        #expect(loose.results.first?.canonicalIdentifier == "article/deep-linking")
        // A phrase that finds something is kept.
        #expect(try test.index.search(SearchQuery("\"deep linking\""), now: now).readAs == nil)
    }

    @Test("a phrase under an exclusion, a field or an explicit operator stays exact when nothing is found")
    func phrasesStayExact() throws {
        let test = try catalogue()
        for query in [
            "title:\"linking deep\"", "\"linking deep\" AND android", "\"linking deep\" OR \"shoes red\"",
            "title:(\"linking deep\")", "keyword:\"linking deep\"",
        ] {
            let page = try test.index.search(SearchQuery(query), now: now)
            #expect(page.total == 0 && page.readAs == nil && !page.relaxed, "\(query): \(page.readAs ?? "")")
        }
        // An excluded phrase stays a phrase: only the words that select are read loose.
        let page = try test.index.search(SearchQuery("\"walking red\" -\"red running\"", limit: 100), now: now)
        #expect(page.readAs == "walking red -\"red running\"")
        #expect(!page.results.map(\.canonicalIdentifier).contains("shoes/red"))
    }

    @Test("reading a phrase as words never reveals an item the caller may not see")
    func phrasesAsWordsVisibility() throws {
        let test = try catalogue()
        let page = try test.index.search(
            SearchQuery("\"shoes another red\"", domainIdentifier: "default", limit: 100), now: now)
        #expect(!page.results.map(\.canonicalIdentifier).contains("other/private"))
        #expect(page.results.map(\.canonicalIdentifier).contains("other/public"))
    }

    @Test("a thousand seeded questions of stray syntax never fail, and each reading reads as written")
    func neverFails() throws {
        let test = try catalogue()
        let pieces = [
            "red", "shoes", "deep", "\"", "\u{201C}", "(", ")", "-", "+", "AND", "OR", "NOT", "XOR", "title:",
            "description:", "keyword:", "colour:", "*", "near", "NEAR", "()", "-(", "\"\"",
        ]
        var generator = SeededGenerator(seed: 68)
        for _ in 0..<1000 {
            let count = Int.random(in: 1...7, using: &generator)
            let query = (0..<count).map { _ in pieces.randomElement(using: &generator)! }
                .joined(separator: Bool.random(using: &generator) ? " " : "")
            let page = try test.index.search(SearchQuery(query), now: now)
            if let readAs = page.readAs {
                let again = try test.index.search(SearchQuery(readAs), now: now)
                #expect(again.readAs == nil, "\(query) read as \(readAs), read again as \(again.readAs ?? "")")
            }
        }
    }
}
