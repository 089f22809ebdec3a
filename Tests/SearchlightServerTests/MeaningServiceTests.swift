import Foundation
import Logging
import SearchlightKit
import SearchlightTesting
import Testing

@testable import SearchlightServer

@Suite("The service gives vectors of meaning to what its writes add and change", .temporaryFolder)
struct MeaningServiceTests {
    private static let now = Int64(Date().timeIntervalSince1970 * 1000)

    private static func item(_ id: String, _ title: String, _ description: String) -> SearchableItem {
        var object = BranchUniversalObject(canonicalIdentifier: id)
        object.title = title
        object.contentDescription = description
        object.contentIndexMode = .public
        return SearchableItem(object: object, domainIdentifier: "com.example.shop")
    }

    /// Waits, up to `within`, until every item of `pool`'s index has a vector; its last status.
    private static func everyItemEmbedded(
        _ pool: IndexPool, within: Duration = .seconds(60)
    ) async throws -> MeaningReport {
        let deadline = ContinuousClock.now + within
        while true {
            let status = try await pool.read { index throws(SearchlightError) in try index.meaningStatus() }
            if status.withMeaning == status.items || ContinuousClock.now > deadline { return status }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test(
        "new items, and an item changed behind where the service last looked, get their vectors, in a folder and over local shards",
        arguments: ["folder", "shards"])
    func newAndChangedItems(storage: String) async throws {
        let folder = try TemporaryFolder.subfolder("meaning-service")
        let path =
            storage == "folder"
            ? folder + "/index"
            : try TemporaryFolder.write("cluster", "auto shard-1\nauto shard-2\nauto shard-3\n", in: folder)
        let pool = try IndexPool(path: path, readers: 2)
        let model = try MeaningModel.installed()
        // At the idle priority, the model waits for every other suite of the test process, and a
        // loaded run left an item without its vector for over a minute: this test is about which
        // items get vectors, not about yielding.
        let service = Task {
            try await MeaningService(index: pool, model: model, logger: Logger(label: "test"), atIdlePriority: false)
                .run()
        }
        _ = try await pool.write { batch throws(SearchlightError) in
            try batch.indexSearchableItems(
                [
                    Self.item("kettle", "Copper kettle", "Boils water on the stove for tea."),
                    Self.item("bike", "Mountain bicycle", "Twenty-one gears and disc brakes."),
                ], now: Self.now)
        }
        #expect(try await Self.everyItemEmbedded(pool).items == 2)
        // Then one more item, written after where the service's last look ended.
        _ = try await pool.write { batch throws(SearchlightError) in
            try batch.indexSearchableItems(
                [Self.item("teapot", "Porcelain teapot", "Brews loose leaves.")], now: Self.now)
        }
        #expect(try await Self.everyItemEmbedded(pool).withMeaning == 3)
        // A changed item keeps its place, before where the service looks for new items; its vector
        // is made anew, of its new text: a search by meaning for a sofa finds it first.
        _ = try await pool.write { batch throws(SearchlightError) in
            try batch.indexSearchableItems(
                [Self.item("bike", "Linen sofa", "A deep three-seat sofa for reading.")], now: Self.now)
        }
        let status = try await Self.everyItemEmbedded(pool)
        #expect(status.withMeaning == 3 && status.items == 3)
        let found = try await pool.read { index throws(SearchlightError) in
            try index.search(SearchQuery("couch", limit: 1, semanticRatio: 1))
        }
        #expect(found.results.map(\.canonicalIdentifier) == ["bike"])
        service.cancel()
        _ = await service.result
        try await pool.close()
    }

    @Test("a shutdown while the model runs stops it soon, the vectors made stored; the next run makes the rest")
    func stopsWhileEmbedding() async throws {
        let path = try TemporaryFolder.subfolder("meaning-service-stop") + "/index"
        let pool = try IndexPool(path: path, readers: 2)
        let model = try MeaningModel.installed()
        // 160 items of 30 words, one batch: ten calls of the model, which the stop finds running
        // (with 200 words, a debug build took three minutes alone, and past the bounds below
        // beside the other suites on a slow machine). Stopped, the batch is cut within a layer.
        let words = (0..<30).map { "word\($0)" }.joined(separator: " ")
        _ = try await pool.write { batch throws(SearchlightError) in
            try batch.indexSearchableItems(
                (0..<160).map { Self.item("item-\($0)", "Item \($0)", words) }, now: Self.now)
        }
        // At the normal priority: at the idle one, the layer in flight runs only when the other suites
        // of the test process leave a core free (a loaded run took 18 s to stop).
        let service = MeaningService(
            index: pool, model: model, logger: Logger(label: "test"), itemsPerBatch: 160, atIdlePriority: false)
        let running = Task { try await service.run() }
        try await Task.sleep(for: .seconds(2))
        let stopping = ContinuousClock.now
        running.cancel()
        _ = await running.result
        let took = ContinuousClock.now - stopping
        print("MeaningServiceTests.stopsWhileEmbedding: stopping took \(took)")
        // About 10 ms on an idle machine (the model stops between two steps of a layer); beside the
        // other suites of this process, which share its two cooperative threads and the cores, 13 s
        // in a CI run. The batch cut below shows that the stop took effect; the bound, that the
        // service returned without waiting long after it.
        #expect(took < .seconds(30), "stopping took \(took)")
        let stopped = try await pool.read { index throws(SearchlightError) in try index.meaningStatus() }
        #expect(stopped.withMeaning < 160, "the batch in flight was cut: \(stopped)")

        let again = Task { try await service.run() }
        let status = try await Self.everyItemEmbedded(pool, within: .seconds(300))
        #expect(status.withMeaning == 160 && status.items == 160, "\(status)")
        again.cancel()
        _ = await again.result
        try await pool.close()
    }
}
