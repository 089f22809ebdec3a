import Foundation
import SearchlightKit
import SearchlightTesting
import Testing

/// The items of page `page` of a catalogue: `page/<page>/<i>`.
private func page(_ page: Int, items: Int = 3, domain: String = "com.example.shop") -> [SearchableItem] {
    (0..<items).map { item("page/\(page)/\($0)", title: "kettle \(page) \($0)", domain: domain) }
}

private func state(_ text: String) -> Data { Data(text.utf8) }

/// Expects `body` to throw a ``SearchlightError`` of `code`.
private func expectCode(
    _ code: SearchlightError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) {
    let error = #expect(throws: SearchlightError.self, sourceLocation: sourceLocation) { try body() }
    #expect(error?.code == code, "\(error?.message ?? "")", sourceLocation: sourceLocation)
}

@Suite("Batches with client state (reference: SPEC 2.6)", .temporaryFolder)
struct ClientStateTests {
    @Test("a batch commits its items with its state, and fetchLastClientState reads it back")
    func commitsTogether() throws {
        let test = try TestIndex()
        #expect(try test.index.fetchLastClientState(domainIdentifier: "com.example.shop") == nil)
        let batch = test.index.beginIndexBatch(domainIdentifier: "com.example.shop")
        batch.indexSearchableItems(page(1))
        batch.deleteSearchableItems(withIdentifiers: ["page/0/0"])
        let report = try batch.endIndexBatch(expectedClientState: nil, newClientState: state("page-1"), now: now)
        #expect(report.indexing.added == 3 && report.removal.notFound == ["page/0/0"])
        #expect(try test.index.fetchLastClientState(domainIdentifier: "com.example.shop") == state("page-1"))
        #expect(try test.index.ids("kettle", domain: "com.example.shop").count == 3)

        // A reader opened afterwards sees the committed state.
        let reader = try SearchableIndex(path: test.path, access: .readOnly)
        #expect(try reader.fetchLastClientState(domainIdentifier: "com.example.shop") == state("page-1"))

        // A batch ends once.
        expectCode(.invalidArgument) {
            try batch.endIndexBatch(clientState: state("again"), now: now)
        }
    }

    @Test("a batch whose expected state is not the stored one commits nothing, and says which is stored")
    func compareAndSet() throws {
        let test = try TestIndex()
        let shop = "com.example.shop"
        let first = test.index.beginIndexBatch(domainIdentifier: shop)
        first.indexSearchableItems(page(1))
        try first.endIndexBatch(clientState: state("page-1"), now: now)

        let stale = test.index.beginIndexBatch(domainIdentifier: shop)
        stale.indexSearchableItems(page(2))
        stale.deleteSearchableItems(withIdentifiers: ["page/1/0"])
        let error = try #require(throws: SearchlightError.self) {
            try stale.endIndexBatch(expectedClientState: state("page-0"), newClientState: state("page-2"), now: now)
        }
        #expect(error.code == .clientStateMismatch)
        #expect(error.message.contains(#"is "page-1", not the expected "page-0""#), "\(error.message)")
        #expect(try test.index.fetchLastClientState(domainIdentifier: shop) == state("page-1"))
        #expect(Set(try test.index.ids("kettle", domain: shop)) == Set(page(1).map(\.uniqueIdentifier)))

        // Expecting none stored is a mismatch too once a state is; the batch may then end rightly.
        expectCode(.clientStateMismatch) {
            try stale.endIndexBatch(expectedClientState: nil, newClientState: state("page-2"), now: now)
        }
        expectCode(.clientStateMismatch) {
            try stale.endIndexBatch(expectedClientState: Data(), newClientState: state("page-2"), now: now)
        }
        try stale.endIndexBatch(expectedClientState: state("page-1"), newClientState: state("page-2"), now: now)
        #expect(try test.index.fetchLastClientState(domainIdentifier: shop) == state("page-2"))
        #expect(try test.index.ids("kettle", domain: shop).count == 5)
    }

    @Test("a state holds 1 to 1,024 bytes, any bytes")
    func sizeLimit() throws {
        let test = try TestIndex()
        let bytes = Data((0..<1024).map { UInt8(truncatingIfNeeded: $0 * 7) })
        try test.index.beginIndexBatch().endIndexBatch(clientState: bytes, now: now)
        #expect(try test.index.fetchLastClientState() == bytes)
        for size in [0, 1025] {
            let batch = test.index.beginIndexBatch()
            batch.indexSearchableItems([item("a", title: "kettle")])
            expectCode(.invalidArgument) {
                try batch.endIndexBatch(clientState: Data(repeating: 1, count: size), now: now)
            }
        }
        #expect(try test.index.fetchLastClientState() == bytes)
        #expect(try test.index.ids("kettle").isEmpty)
    }

    @Test("each domain has its own state, and a batch writes only its own domain's items")
    func perDomain() throws {
        let test = try TestIndex()
        try test.index.beginIndexBatch(domainIdentifier: "com.example.shop").endIndexBatch(
            clientState: state("shop-7"), now: now)
        #expect(try test.index.fetchLastClientState(domainIdentifier: "com.example.blog") == nil)
        #expect(try test.index.fetchLastClientState(domainIdentifier: "com.example") == nil)
        // Another domain's expectation is checked against its own state, none.
        try test.index.beginIndexBatch(domainIdentifier: "com.example.blog").endIndexBatch(
            expectedClientState: nil, newClientState: state("blog-1"), now: now)
        #expect(try test.index.fetchLastClientState(domainIdentifier: "com.example.shop") == state("shop-7"))
        #expect(try test.index.fetchLastClientState(domainIdentifier: "com.example.blog") == state("blog-1"))

        let batch = test.index.beginIndexBatch(domainIdentifier: "com.example.shop")
        batch.indexSearchableItems(page(1) + page(2, domain: "com.example.blog"))
        let error = try #require(throws: SearchlightError.self) {
            try batch.endIndexBatch(clientState: state("shop-8"), now: now)
        }
        #expect(error.code == .invalidArgument && error.message.contains("com.example.blog"))
        #expect(try test.index.fetchLastClientState(domainIdentifier: "com.example.shop") == state("shop-7"))
        #expect(try test.index.ids("kettle", domain: nil).isEmpty)
    }

    @Test("an indexer's run commits its state, small or built in bulk, and a strict rejection commits neither")
    func indexerRuns() throws {
        let test = try TestIndex()
        let folder = try TemporaryFolder.subfolder("input")
        // Past the limit of direct writes: built in segments and merged into a new generation.
        let large = (0..<2_500).map { number in
            #"{"$canonical_identifier":"big/\#(number)","$og_title":"kettle \#(number)","#
                + #""$og_description":"\#(String(repeating: "a long description ", count: 25))"}"#
        }
        let bulk = try TemporaryFolder.write("large.jsonl", large.joined(separator: "\n"), in: folder)
        let small = try TemporaryFolder.write("small.json", #"{"$canonical_identifier":"small/1"}"#, in: folder)
        let broken = try TemporaryFolder.write("broken.json", #"[{"$og_title":"no identifier"}]"#, in: folder)
        func run(_ path: String, _ update: ClientStateUpdate, strict: Bool = false) throws -> IndexingReport {
            try Indexer(strict: strict, jobs: 2, now: now, clientState: update).index([.path(path)], into: test.index)
        }
        let domain = SearchableItem.defaultDomain
        #expect(try run(bulk, ClientStateUpdate(domainIdentifier: domain, newState: state("1"))).added == 2_500)
        #expect(test.index.generation != nil, "the large run was not published as a generation")
        #expect(try test.index.fetchLastClientState() == state("1"))

        // A run that changes no item still commits its state, in bulk and directly.
        let again = try run(
            bulk, ClientStateUpdate(domainIdentifier: domain, newState: state("2"), condition: .expecting(state("1"))))
        #expect(again.unchanged == 2_500)
        #expect(try test.index.fetchLastClientState() == state("2"))
        try run(
            small, ClientStateUpdate(domainIdentifier: domain, newState: state("3"), condition: .expecting(state("2"))))
        #expect(try test.index.fetchLastClientState() == state("3"))

        // A mismatch, in bulk or directly, writes nothing.
        let other = (0..<2_500).map {
            #"{"$canonical_identifier":"other/\#($0)","$og_title":"\#(String(repeating: "x", count: 500))"}"#
        }
        let otherBulk = try TemporaryFolder.write("other.jsonl", other.joined(separator: "\n"), in: folder)
        for path in [otherBulk, small] {
            expectCode(.clientStateMismatch) {
                try run(
                    path,
                    ClientStateUpdate(domainIdentifier: domain, newState: state("4"), condition: .expecting(state("2")))
                )
            }
        }
        #expect(try test.index.statistics(now: now).documents == 2_501)
        #expect(try test.index.fetchLastClientState() == state("3"))

        // --strict with a rejection writes neither the items nor the state.
        let rejected = try run(folder, ClientStateUpdate(domainIdentifier: domain, newState: state("5")), strict: true)
        #expect(rejected.rejected == 1)
        #expect(try test.index.fetchLastClientState() == state("3"))
        #expect(try test.index.statistics(now: now).documents == 2_501)
        _ = broken
    }

    @Test("the state survives compaction and is the same through a service's pool")
    func compactionAndPool() async throws {
        let test = try TestIndex()
        try test.index.beginIndexBatch(domainIdentifier: "com.example.shop").endIndexBatch(
            clientState: state("kept"), now: now)
        _ = try test.index.compact()
        #expect(try test.index.fetchLastClientState(domainIdentifier: "com.example.shop") == state("kept"))
        try test.index.close()

        let pool = try IndexPool(path: test.path, readers: 2)
        // Two writes expecting the same state join one batch: the second fails alone.
        @Sendable func write(_ name: String) async throws -> IndexingReport {
            try await pool.write { batch throws(SearchlightError) in
                try batch.index(
                    [decode(#"{"$canonical_identifier":"\#(name)"}"#)],
                    options: IndexingOptions(domainIdentifier: "com.example.shop"),
                    clientState: ClientStateUpdate(
                        domainIdentifier: "com.example.shop", newState: state(name),
                        condition: .expecting(state("kept"))),
                    now: now)
            }
        }
        async let first = write("one")
        async let second = write("two")
        let committed = [(try? await first) != nil, (try? await second) != nil]
        #expect(committed.filter { $0 }.count == 1)
        let stored = try await pool.read { reader throws(SearchlightError) in
            try reader.fetchLastClientState(domainIdentifier: "com.example.shop")
        }
        #expect(stored == state(committed[0] ? "one" : "two"))
        try await pool.close()
    }

    @Test("over a topology of three shards, every shard commits the state with the batch")
    func topology() throws {
        let folder = try TemporaryFolder.subfolder("shards")
        let path = try TemporaryFolder.write("cluster", "auto shard-1\nauto shard-2\nauto shard-3\n", in: folder)
        let index = try SearchableIndex(path: path, access: .readWrite(lockTimeout: .seconds(5)))
        let batch = index.beginIndexBatch(domainIdentifier: "com.example.shop")
        batch.indexSearchableItems(page(1, items: 12))
        try batch.endIndexBatch(expectedClientState: nil, newClientState: state("page-1"), now: now)
        expectCode(.clientStateMismatch) {
            try index.beginIndexBatch(domainIdentifier: "com.example.shop").endIndexBatch(
                expectedClientState: nil, newClientState: state("page-2"), now: now)
        }
        #expect(try index.fetchLastClientState(domainIdentifier: "com.example.shop") == state("page-1"))

        // A large run is built in bulk on each shard, merged into new generations and published;
        // one that changes no item commits only its state, on every shard.
        let lines = (0..<3_000).map { number in
            #"{"$canonical_identifier":"big/\#(number)","$og_title":"kettle \#(number)","#
                + #""$og_description":"\#(String(repeating: "a long description ", count: 25))"}"#
        }
        let large = try TemporaryFolder.write("large.jsonl", lines.joined(separator: "\n"), in: folder)
        func run(_ update: ClientStateUpdate) throws -> IndexingReport {
            try Indexer(
                options: IndexingOptions(domainIdentifier: "com.example.shop"), jobs: 2, now: now, clientState: update
            )
            .index([.path(large)], into: index)
        }
        expectCode(.clientStateMismatch) {
            _ = try run(
                ClientStateUpdate(
                    domainIdentifier: "com.example.shop", newState: state("page-2"), condition: .expecting(nil)))
        }
        #expect(try index.ids("kettle", domain: "com.example.shop").count == 12)
        #expect(
            try run(
                ClientStateUpdate(
                    domainIdentifier: "com.example.shop", newState: state("page-2"),
                    condition: .expecting(state("page-1")))
            ).added == 3_000)
        #expect(try index.fetchLastClientState(domainIdentifier: "com.example.shop") == state("page-2"))
        #expect(
            try run(ClientStateUpdate(domainIdentifier: "com.example.shop", newState: state("page-3"))).unchanged
                == 3_000)
        for shard in 1...3 {
            let alone = try SearchableIndex(path: folder + "/shard-\(shard)", access: .readOnly)
            #expect(alone.generation != nil, "shard \(shard) was not built in bulk")
        }
        let batch3 = index.beginIndexBatch(domainIdentifier: "com.example.shop")
        batch3.indexSearchableItems(page(1, items: 12))
        try batch3.endIndexBatch(expectedClientState: state("page-3"), newClientState: state("page-1"), now: now)
        try index.close()
        for shard in 1...3 {
            let alone = try SearchableIndex(path: folder + "/shard-\(shard)", access: .readOnly)
            #expect(try alone.fetchLastClientState(domainIdentifier: "com.example.shop") == state("page-1"))
        }
        let reader = try SearchableIndex(path: path, access: .readOnly)
        #expect(try reader.fetchLastClientState(domainIdentifier: "com.example.shop") == state("page-1"))
        #expect(
            try reader.search(SearchQuery("kettle", domainIdentifier: "com.example.shop", limit: 0), now: now).total
                == 3_012)
    }
}
