import SearchlightKit
import SearchlightTesting
import Testing

/// Spelling suggestions and query costs, as a hostile caller would probe them (docs/reliability.md, *Security*).
@Suite("Hostile queries: suggestions and costs", .temporaryFolder)
struct HostileQueryTests {
    /// One domain's private words, another domain's public and private ones.
    func index() throws -> TestIndex {
        let test = try TestIndex()
        try test.index.indexSearchableItems(
            [
                item("a/plan", title: "Zyxwvutronic quarterly merger plan", domain: "com.a"),
                item("a/plan-2", title: "Zyxwvutronic annual merger plan", domain: "com.a"),
                item("b/guide", title: "Zyxwvutronaad kettle guide", mode: .public, domain: "com.b"),
                item("b/draft", title: "Zyxwvutronie draft", domain: "com.b"),
                item("c/old", title: "Zyxwvutronif expired note", mode: .public, domain: "com.c", expiration: now - 1),
                item("b/tea", title: "Tea", description: "Tatin and tea", mode: .public, domain: "com.b"),
                item("a/satin", title: "Satin ribbon", mode: .public, domain: "com.a"),
            ], now: now - 1000)
        return test
    }

    @Test("a suggestion is never a word only another domain's private items hold")
    func noPrivateSuggestion() throws {
        let test = try index()
        // The nearest word of the whole index (one edit, in two items) is com.a's private
        // "zyxwvutronic"; com.b's private "zyxwvutronie" and the expired "zyxwvutronif" are one edit
        // away too, and the public "zyxwvutronaad" two.
        let own = try test.index.search(SearchQuery("Zyxwvutronid", domainIdentifier: "com.a", typos: false), now: now)
        #expect(own.suggestion == "zyxwvutronic")
        let other = try test.index.search(
            SearchQuery("Zyxwvutronid", domainIdentifier: "com.b", typos: false), now: now)
        #expect(other.suggestion == "zyxwvutronie")
        let publicOnly = try test.index.search(
            SearchQuery("Zyxwvutronid", domainIdentifier: "com.b", scope: .public, typos: false), now: now)
        #expect(publicOnly.suggestion == "zyxwvutronaad")
        // An expired item's words are not offered, even to its own domain.
        let expired = try test.index.search(
            SearchQuery("Zyxwvutronid", domainIdentifier: "com.c", typos: false), now: now)
        #expect(expired.suggestion == "zyxwvutronaad")
    }

    @Test(
        "a handle that kept whether a word matches an item one caller may see, at one moment, asks again for another caller or moment"
    )
    func visibleMatchesByCallerAndTime() throws {
        let test = try index()
        // A public word one typo from the expired item's.
        try test.index.indexSearchableItems(
            [item("b/gear", title: "Zyxwvutronig gear", mode: .public, domain: "com.b")], now: now - 1000)
        // A read-only handle keeps what it asked until the index moves (its snapshot).
        let reader = try SearchableIndex(path: test.path, access: .readOnly)
        func suggestion(_ text: String, _ domain: String, at time: Int64 = now) throws -> String? {
            try reader.search(SearchQuery(text, domainIdentifier: domain, typos: false), now: time).suggestion
        }
        // No item holds both words, so each word is asked whether it matches an item the caller
        // may see: com.a's private word does for com.a, not for com.b, which is offered its own.
        #expect(try suggestion("Zyxwvutronic zzzqqq", "com.a") == nil)
        #expect(try suggestion("Zyxwvutronic zzzqqq", "com.b")?.contains("zyxwvutronie") == true)
        // The expired item's word matched an item before it expired, and no longer.
        #expect(try suggestion("Zyxwvutronif zzzqqq", "com.c", at: now - 500) == nil)
        #expect(try suggestion("Zyxwvutronif zzzqqq", "com.c")?.contains("zyxwvutronig") == true)
    }

    @Test("a word that matches an item the caller may see is never replaced")
    func matchingWordKept() throws {
        let test = try index()
        // "satin" is a title word one edit from "satim".
        #expect(
            try test.index.search(SearchQuery("satim", domainIdentifier: "com.b", typos: false), now: now).suggestion
                == "satin")
        // No item has both words: relaxed, the item with "tatin" answers, and "tatin" stays.
        let results = try test.index.search(
            SearchQuery("tatin zzzqqq", domainIdentifier: "com.b", typos: false), now: now)
        #expect(results.relaxed)
        #expect(results.total == 1)
        #expect(results.suggestion == nil)
    }

    @Test("a query over the term or length limit is refused with code 2016, naming the limit")
    func limits() throws {
        let test = try index()
        let many = (0...SearchQuery.maximumTerms).map { "w\($0)" }.joined(separator: " OR ")
        #expect(many.utf8.count <= SearchQuery.maximumLength)
        do {
            _ = try test.index.search(SearchQuery(many), now: now)
            Issue.record("a query of \(SearchQuery.maximumTerms + 1) words was accepted")
        } catch {
            #expect(error.code == .queryTooLarge)
            #expect(error.message.contains("at most \(SearchQuery.maximumTerms)"))
        }
        let long = String(repeating: "a", count: SearchQuery.maximumLength + 1)
        let tooLong = #expect(throws: SearchlightError.self) { try SearchQuery(long).validate() }
        #expect(tooLong?.code == .queryTooLarge)
        let tooFar = #expect(throws: SearchlightError.self) {
            try SearchQuery("tea", offset: SearchQuery.maximumOffset + 1).validate()
        }
        #expect(tooFar?.code == .invalidArgument)
        // At the limit, a query is searched.
        let most = (1..<SearchQuery.maximumTerms).map { "w\($0)" }.joined(separator: " OR ")
        #expect(try test.index.search(SearchQuery(most + " OR tea", domainIdentifier: "com.b"), now: now).total == 1)
    }

    @Test("words joined by OR, nested or not, find every item holding one of them")
    func flatOr() throws {
        let test = try index()
        let query = SearchQuery("kettle OR tea OR (draft OR zzz) OR plan", domainIdentifier: nil)
        let found = try test.index.search(query, now: now)
        #expect(Set(found.results.map(\.canonicalIdentifier)) == ["b/guide", "b/tea", "b/draft", "a/plan", "a/plan-2"])
    }
}
