import CXapian
import Foundation
import SearchlightTesting
import Testing

/// Vectors of 384 dimensions in clusters: each item near one of the clusters' centres (about 0.6
/// from the others of its cluster, about 0 from the rest), as the items of a catalogue are near
/// those on the same subject.
private struct Clusters {
    static let dimensions = 384
    var random: SeededGenerator
    var centres: [[Float]] = []

    init(count: Int, seed: UInt64) {
        random = SeededGenerator(seed: seed)
        centres = (0..<count).map { _ in randomUnit() }
    }

    /// A unit vector of roughly normal components (the sum of four uniform ones).
    mutating func randomUnit() -> [Float] {
        unit(
            (0..<Self.dimensions).map { _ in
                (0..<4).reduce(Float(0)) { sum, _ in sum + Float(random.next() % 2001) / 1000 - 1 }
            })
    }

    /// Cluster `cluster`'s centre plus `spread` times a random unit vector, made a unit vector.
    mutating func near(_ cluster: Int, spread: Float) -> [Float] {
        let noise = randomUnit()
        return unit(zip(centres[cluster], noise).map { $0 + spread * $1 })
    }

    func unit(_ vector: [Float]) -> [Float] {
        let norm = vector.reduce(Float(0)) { $0 + $1 * $1 }.squareRoot()
        return vector.map { $0 / norm }
    }
}

/// Stores `vectors` for the items at storage positions `positions`, in `writer`'s transaction.
private func setMeaning(_ writer: OpaquePointer, _ vectors: [UInt32: [Float]]) throws {
    var digests: [UInt32: UInt64] = [:]
    var cursor: OpaquePointer?
    #expect(call { cx_cursor_open(writer, 1, false, &cursor, $0) }.status == CX_OK)
    defer { cx_cursor_free(cursor) }
    var data = cx_text(), source = cx_text(), expiration: Int64 = 0, views: Int64 = 0, done = false
    while true {
        #expect(call { cx_cursor_next(cursor, &data, &expiration, &views, &source, &done, $0) }.status == CX_OK)
        if done { break }
        let position = cx_cursor_position(cursor)
        if vectors[position] != nil { digests[position] = cx_cursor_digest(cursor) }
    }
    let positions = vectors.keys.sorted()
    let flat = positions.flatMap { vectors[$0]! }
    var stored = 0
    #expect(
        call {
            cx_database_set_meaning(
                writer, positions, positions.map { digests[$0] ?? 0 }, flat, positions.count,
                UInt32(Clusters.dimensions), &stored, $0)
        }.status == CX_OK)
    #expect(stored == positions.count)
}

/// A page by meaning alone (every item selected, semantic ratio 1) for `vector`: each result's
/// id and percent, and the total; or the items nearest to item `similar` when it is given.
private func nearest(
    _ database: OpaquePointer, _ vector: [Float], similar: String? = nil, scope: cx_scope = CX_SCOPE_ALL,
    keeping: Bool, limit: UInt32 = 10
) -> [String] {
    let node = [
        cx_query_node(
            kind: CX_NODE_ALL, field: CX_FIELD_ANY, text: cx_text(), child_count: 0, slot: 0, low: 0, high: 0,
            radius: 0)
    ]
    return node.withUnsafeBufferPointer { nodes in
        vector.withUnsafeBufferPointer { meaning in
            var request = cx_search_request(
                nodes: nodes.baseAddress, node_count: 1, domain: cx_text(), all_domains: true, scope: scope,
                now_ms: 0, offset: 0, limit: limit, relax: false, sort_keys: nil, sort_key_count: 0, facets: nil,
                facet_count: 0, keep_fields_in_memory: keeping, meaning: meaning.baseAddress,
                meaning_dimensions: UInt32(meaning.count), semantic_ratio: 1, meaning_finds: true, typos: false,
                languages: cx_text())
            var results: OpaquePointer?
            let status =
                if let similar {
                    call { error in
                        withText("app") { domain in
                            withText(similar) { cx_search_similar(database, &request, domain, $0, &results, error) }
                        }
                    }.status
                } else {
                    call { cx_search(database, &request, &results, $0) }.status
                }
            #expect(status == CX_OK)
            defer { cx_results_free(results) }
            guard let results else { return [] }
            // The data is {"id":"…"}.
            return page(results).map { "\(string($0.data).split(separator: "\"")[3]) \($0.percent)" }
                + ["total \(cx_results_total(results))"]
        }
    }
}

@Suite("Compact codes of vectors of meaning, compared first by a service's readers", .temporaryFolder)
struct MeaningCodesTests {
    /// 3,000 items in 60 clusters of 50, some public, every one with a vector; their storage
    /// positions are 1 to 3,000 in the order of their ids `i0`…`i2999`. Returns the writer, and a
    /// reader opened after.
    private func catalogue(_ clusters: inout Clusters) throws -> (writer: OpaquePointer, reader: OpaquePointer) {
        let (database, _, _) = open(TemporaryFolder.path + "/db", CX_OPEN_WRITE)
        let writer = try #require(database)
        #expect(call { cx_database_begin(writer, $0) }.status == CX_OK)
        for number in 0..<3000 {
            #expect(store(writer, id: "i\(number)", title: "item \(number % 7)", public: number % 3 == 0) == CX_OK)
        }
        #expect(call { cx_database_commit(writer, $0) }.status == CX_OK)
        #expect(call { cx_database_begin(writer, $0) }.status == CX_OK)
        var vectors: [UInt32: [Float]] = [:]
        for number in 0..<3000 { vectors[UInt32(number + 1)] = clusters.near(number % 60, spread: 0.8) }
        try setMeaning(writer, vectors)
        #expect(call { cx_database_commit(writer, $0) }.status == CX_OK)
        let (opened, _, _) = open(TemporaryFolder.path + "/db", CX_OPEN_READ)
        return (writer, try #require(opened))
    }

    @Test("the kept codes find the pages and totals the full comparison finds, with and without the matcher")
    func samePagesAsFullComparison() throws {
        var clusters = Clusters(count: 60, seed: 71)
        let (writer, reader) = try catalogue(&clusters)
        defer {
            cx_database_free(reader)
            cx_database_free(writer)
        }
        for round in 0..<20 {
            let query = clusters.near(round * 3 % 60, spread: 0.5)
            // Scope public goes through the scan with the public items' bits, private through the matcher.
            for scope in [CX_SCOPE_ALL, CX_SCOPE_PUBLIC, CX_SCOPE_PRIVATE] {
                let kept = nearest(reader, query, scope: scope, keeping: true)
                #expect(kept.count == 11, "\(kept)")
                #expect(nearest(reader, query, scope: scope, keeping: false) == kept, "round \(round) \(scope)")
            }
            let item = "i\(round * 149)"
            let similar = nearest(reader, [], similar: item, keeping: true, limit: 20)
            #expect(similar.count == 21 && similar.last != "total 0", "\(similar)")
            #expect(nearest(reader, [], similar: item, keeping: false, limit: 20) == similar, "\(item)")
        }
    }

    @Test("a reader's codes follow each commit: vectors changed, items added and removed")
    func codesFollowCommits() throws {
        var clusters = Clusters(count: 60, seed: 72)
        let (writer, reader) = try catalogue(&clusters)
        defer {
            cx_database_free(reader)
            cx_database_free(writer)
        }
        let query = clusters.near(5, spread: 0.5)
        let before = nearest(reader, query, keeping: true)
        let first = try #require(before.first?.split(separator: " ").first.map(String.init))
        #expect(first != "i1")
        // The nearest item removed, a far one given the query's own vector, a new one near it.
        #expect(call { cx_database_begin(writer, $0) }.status == CX_OK)
        #expect(deleteItem(writer, id: first) == CX_OK)
        #expect(store(writer, id: "new", title: "item new") == CX_OK)
        #expect(call { cx_database_commit(writer, $0) }.status == CX_OK)
        #expect(call { cx_database_begin(writer, $0) }.status == CX_OK)
        try setMeaning(
            writer, [2: query, 3001: clusters.unit(zip(query, clusters.randomUnit()).map { $0 + 0.1 * $1 })])
        #expect(call { cx_database_commit(writer, $0) }.status == CX_OK)
        #expect(call { cx_database_reopen(reader, $0) }.status == CX_OK)
        let after = nearest(reader, query, keeping: true)
        // Equal scores in storage order: i1 (position 2), then the new item (3,001).
        #expect(after.prefix(2) == ["i1 100", "new 100"], "\(after)")
        #expect(!after.contains { $0.hasPrefix(first + " ") }, "\(after)")
        #expect(nearest(reader, query, keeping: false) == after)
    }
}
