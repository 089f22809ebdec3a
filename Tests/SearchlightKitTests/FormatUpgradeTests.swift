import Foundation
import SearchlightKit
import SearchlightTesting
import Testing

/// An index written by an earlier release (Tests/fixtures/format-N-index, N 5 to 9), copied
/// into the test's folder.
func earlierFormatIndex(_ format: String = "5", _ name: String = "old") throws -> String {
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fixtures/format-\(format)-index").path
    let copy = try TemporaryFolder.subfolder(name) + "/index"
    try FileManager.default.copyItem(atPath: fixture, toPath: copy)
    return copy
}

@Suite("Index format 13: earlier formats read, and rebuilt by their next writer", .temporaryFolder)
struct FormatUpgradeTests {
    /// Queries of every kind, from every domain the fixtures hold.
    static let queries: [(String, String?)] = [
        ("tarte", "fr.example.cuisine"), ("tar", "fr.example.cuisine"), ("title:tatin", "fr.example.cuisine"),
        ("pommes terre", "fr.example.cuisine"), ("\"pommes de terre\"", "fr.example.cuisine"),
        ("description:crème", "fr.example.cuisine"), ("description:pomme*", "fr.example.cuisine"),
        ("description:\"pommes de terre\"", "fr.example.cuisine"), ("keyword:dessert", "fr.example.cuisine"),
        ("深度", "cn.example.docs"), ("description:链接", "cn.example.docs"), ("链接", nil), ("welcome", nil),
        ("gratin -parmentier", nil),
    ]

    /// What each query finds in `path`: identifiers and scores, in order.
    private func answers(_ path: String) throws -> [[String]] {
        let reader = try SearchableIndex(path: path, access: .readOnly)
        return try Self.queries.map { text, domain in
            try reader.search(SearchQuery(text, domainIdentifier: domain, limit: 20), now: now).results.map {
                "\($0.canonicalIdentifier) \($0.score)"
            }
        }
    }

    /// Every item `path` holds, as an export writes it, by domain and identifier.
    private func items(_ path: String) throws -> [String: [String: JSONValue]] {
        var items: [String: [String: JSONValue]] = [:]
        try SearchableIndex(path: path, access: .readOnly).forEachItem(domainIdentifier: nil, now: now) {
            items[$0.domainIdentifier + " " + $0.uniqueIdentifier] = $0.exportedDictionary
        }
        return items
    }

    /// An index of the same items (with their views), indexed afresh.
    private func indexedAfresh(from path: String) throws -> String {
        var items: [SearchableItem] = []
        try SearchableIndex(path: path, access: .readOnly).forEachItem(domainIdentifier: nil, now: now) {
            items.append($0)
        }
        let fresh = try TemporaryFolder.subfolder("fresh") + "/index"
        let index = try SearchableIndex(path: fresh, access: .readWrite(lockTimeout: .seconds(5)))
        try index.indexSearchableItems(items, now: now)
        try index.close()
        return fresh
    }

    @Test(
        "an index of format 5, 6, 7, 8, 9, 10, 11 or 12 is read but not searched, saying how to rebuild it; opened for writing, it is rebuilt into format 13 and searched as if indexed afresh",
        arguments: [("5", 70), ("6", 70), ("7", 133), ("8", 133), ("9", 133), ("10", 133), ("11", 133)])
    func upgrade(format: String, count: Int) throws {
        let old = try earlierFormatIndex(format)
        let given = try items(old)
        #expect(given.count == count)
        #expect(try indexFormat(old) == format)
        let reader = try SearchableIndex(path: old, access: .readOnly)
        #expect(reader.formatUpgrades.isEmpty)
        let error = #expect(throws: SearchlightError.self) {
            try reader.search(SearchQuery("tarte", domainIdentifier: nil), now: now)
        }
        #expect(error?.code == .indexUnavailable && error?.failure == .earlierFormat)
        #expect(
            error?.message.contains("index format \(format), which its next writer rebuilds into format 13") == true,
            "\(error?.message ?? "")")
        try reader.close()

        let writer = try SearchableIndex(path: old, access: .readWrite(lockTimeout: .seconds(5)))
        #expect(
            writer.formatUpgrades == [FormatUpgrade(path: old, fromFormat: format, toFormat: "13", items: count)])
        #expect(writer.generation == 2)
        try writer.close()
        #expect(try indexFormat(old) == "13")
        #expect(try items(old) == given)
        let rebuilt = try answers(old)
        #expect(rebuilt.allSatisfy { !$0.isEmpty }, "\(rebuilt)")
        #expect(try rebuilt == answers(try indexedAfresh(from: old)))

        // Written again, it is not rebuilt again.
        let again = try SearchableIndex(path: old, access: .readWrite(lockTimeout: .seconds(5)))
        #expect(again.formatUpgrades.isEmpty)
        #expect(again.generation == 2)
        try again.close()
    }

    @Test(
        "an index of format 9, whose values alone hold some attributes, reads back the items of the format 8 index it was rebuilt from"
    )
    func valuesGiveBack() throws {
        let nine = try items(try earlierFormatIndex("9", "nine"))
        #expect(nine == (try items(try earlierFormatIndex("8", "eight"))))
        #expect(nine.values.contains { $0["$price"] != nil && $0["$product_category"] != nil })
    }

    @Test(
        "an index of format 7, rebuilt, has its items' attributes and views as if indexed afresh"
    )
    func attributes() throws {
        let old = try earlierFormatIndex("7")
        try SearchableIndex(path: old, access: .readWrite(lockTimeout: .seconds(5))).close()
        let fresh = try indexedAfresh(from: old)
        func answers(_ path: String) throws -> [[String]] {
            let reader = try SearchableIndex(path: path, access: .readOnly)
            let queries = [
                SearchQuery("price:<50 rating:>=4", domainIdentifier: nil, limit: 100),
                SearchQuery("category:running", domainIdentifier: nil, limit: 100, sort: [.init("-price")]),
                SearchQuery("", domainIdentifier: nil, limit: 3, sort: [.init("-views")]),
                SearchQuery("", domainIdentifier: nil, limit: 0, facets: ["category", "brand", "price", "rating"]),
            ]
            return try queries.map { query in
                let page = try reader.search(query, now: now)
                return page.results.map(\.canonicalIdentifier) + page.facets.map { "\($0)" }
            }
        }
        let upgraded = try answers(old)
        #expect(upgraded == (try answers(fresh)))
        #expect(upgraded[0].count > 3)
        #expect(upgraded[2].first == "product/run-0001")
        #expect(upgraded[3].count == 4)
    }

    @Test("a topology whose shards are in different formats is refused, naming the shard; writing rebuilds them")
    func mixedShards() throws {
        let folder = try TemporaryFolder.subfolder("cluster")
        let newer = try SearchableIndex(path: folder + "/new", access: .readWrite(lockTimeout: .seconds(5)))
        try newer.indexSearchableItems([item("n/1", title: "Copper kettle")], now: now)
        try newer.close()
        try FileManager.default.moveItem(atPath: try earlierFormatIndex(), toPath: folder + "/old")
        let topology = try TemporaryFolder.write("shards", "auto new\nauto old\n", in: folder)
        #expect {
            try SearchableIndex(path: topology, access: .readOnly)
        } throws: { error in
            let message = (error as? SearchlightError)?.message ?? ""
            return message.contains("shard \(folder)/old is in format 5") && message.contains("shard \(folder)/new")
        }
        let writer = try SearchableIndex(path: topology, access: .readWrite(lockTimeout: .seconds(5)))
        #expect(writer.formatUpgrades.map(\.path) == [folder + "/old"])
        try writer.close()
        let reader = try SearchableIndex(path: topology, access: .readOnly)
        #expect(try reader.ids("kettle", domain: nil) == ["n/1"])
        #expect(try reader.ids("tarte", domain: "fr.example.cuisine").first == "recette/01-classique")
    }
}
