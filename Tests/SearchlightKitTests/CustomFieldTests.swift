import Foundation
import SearchlightKit
import SearchlightTesting
import Testing

/// An item carrying custom metadata, as a file's unknown keys become.
private func carrying(
    _ id: String, _ custom: [String: JSONValue], mode: ContentIndexMode = .public, domain: String = "default"
) -> SearchableItem {
    var object = object(id, title: "Paint \(id)", mode: mode)
    object.contentMetadata.customMetadata = custom
    return SearchableItem(object: object, domainIdentifier: domain)
}

@Suite("Custom fields: custom metadata keys filtered, sorted and counted", .temporaryFolder)
struct CustomFieldTests {
    /// Paints stored before any field is added.
    private func paints() throws -> TestIndex {
        let test = try TestIndex()
        try test.index.indexSearchableItems(
            [
                carrying("red", ["color": .string("Red"), "litres": .double(2.5), "mixed": .string("2026-03-01")]),
                carrying(
                    "crimson", ["Color": .string("red"), "litres": .integer(1), "mixed": .integer(1_700_000_000_000)]),
                carrying("blue", ["color": .string("Blue"), "litres": .string("5")]),
                carrying("odd", ["color": .array([.string("green")]), "litres": .string("a lot")]),
                carrying("bare", [:]),
                carrying("secret", ["color": .string("Red")], mode: .private, domain: "com.other"),
            ], now: now)
        return test
    }

    @Test("an added field gives the items already stored their values, and queries, sorts and counts read it")
    func addedToStoredItems() throws {
        let test = try paints()
        #expect(try test.index.fields().isEmpty)
        // Not yet a field: its name and value are read as text (SPEC §2.1), and the reading says so.
        #expect(try test.index.search(SearchQuery("color:red"), now: now).readAs != nil)

        let color = try test.index.addField("color", type: .string)
        // The other domain's private item carries it too: visibility applies when searching.
        #expect(color == FieldReport(name: "color", type: .string, items: 4))
        #expect(try test.index.addField("litres", type: .number).items == 3)
        #expect(try test.index.addField("mixed", type: .date).items == 2)
        #expect(
            try test.index.fields() == [
                FieldReport(name: "color", type: .string), FieldReport(name: "litres", type: .number),
                FieldReport(name: "mixed", type: .date),
            ])

        #expect(try test.index.ids("color:RED").sorted() == ["crimson", "red"])
        #expect(try test.index.ids("color:red", domain: nil).sorted() == ["crimson", "red", "secret"])
        #expect(try test.index.ids("litres:>=2").sorted() == ["blue", "red"])
        #expect(try test.index.ids("litres:1..2.5").sorted() == ["crimson", "red"])
        #expect(try test.index.ids("mixed:2026") == ["red"])
        #expect(try test.index.ids("mixed:<2024-01-01") == ["crimson"])
        let sorted = try test.index.search(
            SearchQuery("paint", limit: 10, sort: SearchQuery.SortKey.list("-litres")), now: now)
        #expect(sorted.results.map(\.canonicalIdentifier).prefix(3) == ["blue", "red", "crimson"])

        let counted = try test.index.search(SearchQuery("paint", facets: ["color", "litres"]), now: now)
        let colors = try #require(counted.facets.first { $0.name == "color" })
        #expect(colors.values.map(\.value) == ["Red", "Blue"])
        #expect(colors.values.map(\.count) == [2, 1])
        let litres = try #require(counted.facets.first { $0.name == "litres" })
        #expect(litres.minimum == 1)
        #expect(litres.maximum == 5)
    }

    @Test("items written after a field is added carry it, by one transaction and by a bulk build")
    func carriedByLaterWrites() throws {
        let test = try TestIndex()
        _ = try test.index.addField("color", type: .string)
        _ = try test.index.addField("litres", type: .number)
        try test.index.indexSearchableItems([carrying("one", ["color": .string("teal")])], now: now)
        // Over a megabyte of input: written by segment builders and merged.
        var lines = ""
        for number in 0..<4000 {
            let color = number % 4 == 0 ? "teal" : "ochre"
            lines +=
                #"{"canonicalIdentifier":"bulk/\#(number)","title":"Bulk paint \#(number) \#(String(repeating: "pigment ", count: 40))","contentIndexMode":"public","color":"\#(color)","litres":\#(number)}"#
                + "\n"
        }
        let report = try Indexer(jobs: 2, now: now).index(
            [.data(Data(lines.utf8), name: "bulk.jsonl", format: .lines)], into: test.index)
        #expect(report.added == 4000)
        #expect(try test.index.search(SearchQuery("color:teal"), now: now).total == 1001)
        #expect(try test.index.ids("litres:3997..5000").sorted() == ["bulk/3997", "bulk/3998", "bulk/3999"])
        #expect(try test.index.fields().map(\.name) == ["color", "litres"])

        // Compaction keeps the fields and the values.
        _ = try test.index.compact()
        #expect(try test.index.ids("litres:>3998") == ["bulk/3999"])
        let reopened = try SearchableIndex(path: test.path, access: .readOnly)
        #expect(try reopened.fields().map(\.name) == ["color", "litres"])
        #expect(try reopened.ids("color:teal litres:<5").sorted() == ["bulk/0", "bulk/4"])
        try reopened.close()
    }

    @Test("fields added to an empty index stay through its first bulk build, which merges no items of its own")
    func keptByFirstBulkBuild() throws {
        let test = try TestIndex()
        _ = try test.index.addField("color", type: .string)
        let lines = (0..<3000).map { number in
            #"{"canonicalIdentifier":"bulk/\#(number)","title":"Bulk paint \#(String(repeating: "pigment ", count: 40))","color":"\#(number % 3 == 0 ? "teal" : "ochre")"}"#
        }
        let report = try Indexer(jobs: 2, now: now).index(
            [.data(Data(lines.joined(separator: "\n").utf8), name: "bulk.jsonl", format: .lines)], into: test.index)
        #expect(report.added == 3000)
        #expect(test.index.generation == 1)
        #expect(try test.index.fields().map(\.name) == ["color"])
        #expect(try test.index.search(SearchQuery("color:teal"), now: now).total == 1000)
    }

    @Test("a field added to more items than one pass reads reaches every carrier, once, and only them")
    func addedOverManyPasses() throws {
        let test = try TestIndex()
        // Adding a field reads the stored items 10,000 at a time: three passes.
        let count = 20_500
        var lines = ""
        for number in 0..<count {
            // One item in ten carries nothing: every other one is a carrier, so that an item
            // skipped or written twice where one pass ends and the next begins shows in the count.
            let shelf = number % 10 == 9 ? "" : #","shelf":"S\#(number % 7)""#
            lines += #"{"canonicalIdentifier":"many/\#(number)","title":"Item \#(number)"\#(shelf)}"# + "\n"
        }
        let report = try Indexer(jobs: 2, now: now).index(
            [.data(Data(lines.utf8), name: "many.jsonl", format: .lines)], into: test.index)
        #expect(report.added == count)
        let carriers = (0..<count).filter { $0 % 10 != 9 }
        #expect(try test.index.addField("shelf", type: .string).items == carriers.count)
        #expect(
            try test.index.search(SearchQuery("shelf:s3", limit: 0), now: now).total
                == carriers.filter { $0 % 7 == 3 }.count)
        let counted = try test.index.search(SearchQuery("", limit: 0, facets: ["shelf"]), now: now)
        #expect(counted.facets.first?.values.map(\.count).reduce(0, +) == carriers.count)
    }

    @Test("a removed field is cleared from every item and no longer a field; added again, it is filled again")
    func removed() throws {
        let test = try paints()
        _ = try test.index.addField("color", type: .string)
        #expect(try test.index.removeField("COLOR") == FieldReport(name: "color", type: .string, items: 4))
        #expect(try test.index.fields().isEmpty)
        // No longer a field: its name and value are read as text (SPEC §2.1), and the reading says so.
        #expect(try test.index.search(SearchQuery("color:red"), now: now).readAs != nil)
        _ = try test.index.addField("litres", type: .number)
        // The freed slot is taken again: nothing of the old field shows through it.
        let litres = try #require(
            try test.index.search(SearchQuery("paint", facets: ["litres"]), now: now).facets.first)
        #expect(litres.buckets.map(\.count).reduce(0, +) == 3)
        #expect(litres.minimum == 1)
        #expect(try test.index.addField("color", type: .string).items == 4)
        #expect(try test.index.ids("color:blue") == ["blue"])
    }

    @Test(
        "bad names, a field added twice, an unknown field removed, sorting by a text field: each refused",
        arguments: [
            ("Colour!", "cannot name a field"), ("1color", "cannot name a field"), ("price", "already means"),
            ("title", "already means"), ("domain", "already means"), ("relevance", "already means"),
            (String(repeating: "a", count: 33), "cannot name a field"),
        ])
    func refusedNames(name: String, message: String) throws {
        let test = try TestIndex()
        let error = #expect(throws: SearchlightError.self) { try test.index.addField(name, type: .string) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
        #expect(try test.index.fields().isEmpty)
    }

    @Test("a field added twice, an unknown field removed, a text field sorted: refused, nothing changed")
    func refusedChanges() throws {
        let test = try paints()
        _ = try test.index.addField("color", type: .string)
        let twice = #expect(throws: SearchlightError.self) { try test.index.addField("color", type: .number) }
        #expect(twice?.code == .fieldConflict)
        #expect(twice?.message.contains("already has the field") == true)
        let unknown = #expect(throws: SearchlightError.self) { try test.index.removeField("shade") }
        #expect(unknown?.code == .fieldNotFound)
        #expect(unknown?.message.contains("no field \"shade\"") == true)
        let sorted = #expect(throws: SearchlightError.self) {
            try test.index.search(SearchQuery("paint", sort: SearchQuery.SortKey.list("color")), now: now)
        }
        #expect(sorted?.code == .invalidArgument)
        #expect(try test.index.fields() == [FieldReport(name: "color", type: .string)])
    }
}
