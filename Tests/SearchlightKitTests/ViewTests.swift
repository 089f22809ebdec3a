import Foundation
import SearchlightKit
import SearchlightTesting
import Testing

@Suite("Recorded views: a ranking hint (reference: views)", .temporaryFolder)
struct ViewTests {
    /// Records `count` views of `identifier` in one call.
    func view(_ index: SearchableIndex, _ identifier: String, times count: Int, domain: String = "default") throws {
        let report = try index.recordViews(
            withIdentifiers: Array(repeating: identifier, count: count), domainIdentifier: domain, now: now)
        #expect(report.recorded == count && report.notFound.isEmpty)
    }

    /// Each stored item's recorded views, as export reads them.
    func views(_ index: SearchableIndex) throws -> [String: Int64] {
        var views: [String: Int64] = [:]
        try index.forEachItem(domainIdentifier: nil, now: now) { item in
            views[item.uniqueIdentifier] = item.object.viewCount ?? 0
        }
        return views
    }

    @Test("two items equal in text rank by views, and more views rank higher")
    func equalText() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems(
            (1...3).map { item("lamp/\($0)", title: "Brass lamp", description: "A lamp for the desk.") }, now: now)
        #expect(try test.index.ids("lamp") == ["lamp/1", "lamp/2", "lamp/3"])
        try view(test.index, "lamp/3", times: 5)
        try view(test.index, "lamp/2", times: 1)
        #expect(try test.index.ids("lamp") == ["lamp/3", "lamp/2", "lamp/1"])
        #expect(try test.index.ids("") == ["lamp/3", "lamp/2", "lamp/1"])
    }

    @Test("a read-only reader sees views recorded after it opened, each commit's")
    func readerFollowsViews() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems(
            (1...3).map { item("lamp/\($0)", title: "Brass lamp", description: "A lamp for the desk.") }, now: now)
        let reader = try SearchableIndex(path: test.path, access: .readOnly)
        #expect(try reader.ids("lamp") == ["lamp/1", "lamp/2", "lamp/3"])
        try view(test.index, "lamp/3", times: 1)
        #expect(try reader.ids("lamp") == ["lamp/3", "lamp/1", "lamp/2"])
        try view(test.index, "lamp/2", times: 5)
        #expect(try reader.ids("lamp") == ["lamp/2", "lamp/3", "lamp/1"])
        // An upsert that changes no text (here, the expiration) keeps both the score and the views.
        try test.index.indexSearchableItems(
            [item("lamp/2", title: "Brass lamp", description: "A lamp for the desk.", expiration: now + day)], now: now)
        #expect(try reader.ids("lamp") == ["lamp/2", "lamp/3", "lamp/1"])
        try reader.close()
    }

    @Test("a description-only match with many views stays below a title match with none")
    func textDominates() throws {
        let test = try TestIndex()
        let others = (1...40).map { item("other/\($0)", title: "Walnut shelf \($0)", description: "Oak and walnut.") }
        try test.index.indexSearchableItems(
            others + [
                item("title/lantern", title: "Storm lantern", description: "Made of tin."),
                item("desc/lamp", title: "Desk lamp", description: "Brighter than a lantern, and as cheap."),
            ], now: now)
        try view(test.index, "desc/lamp", times: 5_000)
        #expect(try test.index.ids("lantern") == ["title/lantern", "desc/lamp"])
        #expect(try test.index.ids("lantern OR walnut").first == "title/lantern")
    }

    @Test("views survive an upsert and a bulk re-index, go with remove, and round-trip through export")
    func lifecycle() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems([item("a", title: "First"), item("b", title: "Second")], now: now)
        try view(test.index, "a", times: 3)
        try test.index.indexSearchableItems([item("a", title: "First, revised")], now: now)
        #expect(try views(test.index) == ["a": 3, "b": 0])

        // A bulk run (over a megabyte) that replaces the item keeps its views too.
        let lines = (0..<3_000).map { number in
            #"{"$canonical_identifier":"\#(number == 0 ? "a" : "bulk/\(number)")","$og_title":"Bulk \#(number)","#
                + #""$og_description":"\#(String(repeating: "padding words ", count: 30))"}"#
        }
        let body = Data((lines.joined(separator: "\n") + "\n").utf8)
        let report = try Indexer(jobs: 2, now: now).index([.data(body, name: "body", format: .lines)], into: test.index)
        #expect(report.updated == 1 && report.added == 2_999)
        #expect(try views(test.index)["a"] == 3)

        // Export writes the count under its key; indexing that into a new index restores it.
        var exported: [String] = []
        try test.index.forEachItem(domainIdentifier: nil, now: now) { item in
            if item.uniqueIdentifier == "a" || item.uniqueIdentifier == "b" {
                let data = try JSONEncoder().encode(item.exportedDictionary)
                exported.append(String(decoding: data, as: UTF8.self))
            }
        }
        #expect(exported.contains { $0.contains(#""searchlight:views":3"#) })
        #expect(!exported.contains { $0.contains("searchlight:views") && $0.contains(#""b""#) })
        let copy = try TestIndex()
        let restored = try copy.index.index(
            [decode(exported.joined(separator: "\n"), name: "export.jsonl")], options: IndexingOptions(), now: now)
        #expect(restored.added == 2 && restored.errors.isEmpty)
        #expect(try views(copy.index) == ["a": 3, "b": 0])
        // The stored data does not hold the views: get shows the item as indexed.
        #expect(try copy.index.item(withIdentifier: "a", now: now)?.dictionary[BranchUniversalObject.viewsKey] == nil)
        // Indexing the export again changes nothing; a different count is an update.
        #expect(
            try copy.index.index([decode(exported[0], name: "again.json")], options: IndexingOptions(), now: now)
                .unchanged == 1)

        let removal = try test.index.deleteSearchableItems(withIdentifiers: ["a"])
        #expect(removal.removed == 1)
        try test.index.indexSearchableItems([item("a", title: "First, again")], now: now)
        #expect(try views(test.index)["a"] == 0)
    }

    @Test("only items the caller can see are viewed: the domain's own, or public; others are reported")
    func visibility() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems(
            [
                item("shop/own", title: "Own", domain: "com.example.shop"),
                item("blog/private", title: "Private", domain: "com.example.blog"),
                item("blog/public", title: "Public", mode: .public, domain: "com.example.blog"),
                item("shop/old", title: "Old", domain: "com.example.shop", expiration: now - day),
            ], now: now - 2 * day)
        let report = try test.index.recordViews(
            withIdentifiers: ["shop/own", "blog/private", "blog/public", "shop/old", "ghost", ""],
            domainIdentifier: "com.example.shop", now: now)
        #expect(report.recorded == 2)
        #expect(report.notFound == ["blog/private", "shop/old", "ghost", ""])
        #expect(try views(test.index) == ["shop/own": 1, "blog/private": 0, "blog/public": 1])  // shop/old has expired
        #expect(throws: SearchlightError.self) { try test.index.recordViews(withIdentifiers: []) }
    }

    @Test(
        "a recorded-views value that is not a whole number of 0 or more rejects the item, naming the key",
        arguments: [#""many""#, "-1", "2.5", "[3]"])
    func badCount(value: String) throws {
        let test = try TestIndex()
        let input = decode(#"{"$canonical_identifier":"x","searchlight:views":\#(value)}"#)
        let report = try test.index.index([input], options: IndexingOptions(), now: now)
        #expect(report.rejected == 1)
        #expect(report.errors.first?.message.contains("searchlight:views") == true)
    }
}
