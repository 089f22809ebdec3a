import Foundation
import Synchronization
import SearchlightKit
import SearchlightTesting
import Testing

@Suite("The index pool: one writer, pooled readers, threads of their own", .temporaryFolder)
struct IndexPoolTests {
    private func pool() throws -> IndexPool {
        try IndexPool(path: try TemporaryFolder.subfolder("pool") + "/index", readers: 3)
    }

    @Test("concurrent writes share commits, and every one of them is searchable once it returns")
    func coalescedWrites() async throws {
        let pool = try pool()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for number in 0..<60 {
                group.addTask {
                    try await pool.write { batch throws(SearchlightError) in
                        try batch.indexSearchableItems([item("w/\(number)", title: "pooled \(number)")], now: now)
                    }.added
                }
            }
            var added = 0
            for try await count in group { added += count }
            #expect(added == 60)
        }
        #expect(pool.writeCounts.writes == 60)
        #expect(pool.writeCounts.batches < 60)
        let total = try await pool.read { index throws(SearchlightError) in
            try index.search(SearchQuery("pooled", limit: 0), now: now).total
        }
        #expect(total == 60)
        try await pool.close()
    }

    @Test("a write that fails in a batch fails alone; the others are committed")
    func failureStaysAlone() async throws {
        let pool = try pool()
        let good = Task {
            try await pool.write { batch throws(SearchlightError) in
                try batch.indexSearchableItems([item("good", title: "kept")], now: now)
            }
        }
        let bad = Task {
            try await pool.write { batch throws(SearchlightError) in
                try batch.deleteSearchableItems(withIdentifiers: [], domainIdentifier: "default")
            }
        }
        #expect(try await good.value.added == 1)
        await #expect(throws: SearchlightError.self) { _ = try await bad.value }
        let kept = try await pool.read { index throws(SearchlightError) in
            try index.search(SearchQuery("kept"), now: now).results.map(\.canonicalIdentifier)
        }
        #expect(kept == ["good"])
        try await pool.close()
    }

    @Test("reads and writes run on the pool's own threads, not Swift's cooperative pool")
    func ownThreads() async throws {
        let pool = try pool()
        let reader = try await pool.read { _ throws(SearchlightError) in Thread.current.name ?? "" }
        let writer = try await pool.write { _ throws(SearchlightError) in Thread.current.name ?? "" }
        let alone = try await pool.writeAlone { _ throws(SearchlightError) in Thread.current.name ?? "" }
        #expect(reader.hasPrefix("index-reader-"))
        #expect(writer == "index-writer-1" && alone == writer)
        try await pool.close()
    }

    @Test("readers follow a bulk build run on the writer alone")
    func readersFollowBulkBuilds() async throws {
        let pool = try pool()
        let lines = (0..<3_000).map { number in
            #"{"canonicalIdentifier":"bulk/\#(number)","title":"bulk \#(number)","#
                + #""contentDescription":"\#(String(repeating: "padding words ", count: 30))"}"#
        }
        let body = Data((lines.joined(separator: "\n") + "\n").utf8)
        let before = try await pool.read { index throws(SearchlightError) in
            try index.search(SearchQuery("bulk", limit: 0), now: now).total
        }
        let report = try await pool.writeAlone { index throws(SearchlightError) in
            try Indexer(jobs: 2, now: now).index([.data(body, name: "body", format: .lines)], into: index)
        }
        #expect(before == 0 && report.added == 3_000)
        for _ in 0..<3 {
            let total = try await pool.read { index throws(SearchlightError) in
                try index.search(SearchQuery("bulk", limit: 0), now: now).total
            }
            #expect(total == 3_000)
        }
        try await pool.close()
    }

    @Test("a second pool on the same index waits for the first, then fails with indexLocked")
    func secondPoolWaits() async throws {
        let folder = try TemporaryFolder.subfolder("pool") + "/index"
        let first = try IndexPool(path: folder, readers: 1)
        #expect {
            _ = try IndexPool(path: folder, readers: 1, lockTimeout: .milliseconds(200))
        } throws: { error in
            (error as? SearchlightError)?.code == .indexLocked
        }
        try await first.close()
        let second = try IndexPool(path: folder, readers: 1, lockTimeout: .seconds(5))
        try await second.close()
    }

    @Test("one caller's reads hold at most half the readers; another caller's search runs meanwhile")
    func fairReaders() async throws {
        let pool = try IndexPool(path: try TemporaryFolder.subfolder("pool") + "/index", readers: 4)
        // The heavy caller's reads each hold their reader until released (or 10 s pass).
        let release = DispatchSemaphore(value: 0)
        let heavy = ReadTally()
        let reads = (0..<8).map { _ in
            Task {
                try await pool.read(as: "heavy") { _ throws(SearchlightError) in
                    heavy.counts.withLock {
                        $0.running += 1; $0.most = max($0.most, $0.running)
                    }
                    _ = release.wait(timeout: .now() + 10)
                    heavy.counts.withLock {
                        $0.running -= 1; $0.finished += 1
                    }
                }
            }
        }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(5)
        while heavy.counts.withLock({ $0.running }) < 2 && clock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let light = try await pool.read(as: "light") { index throws(SearchlightError) in
            try index.search(SearchQuery("anything"), now: now).total
        }
        let during = heavy.counts.withLock { $0 }
        for _ in reads { release.signal() }
        for read in reads { try await read.value }
        #expect(light == 0)
        #expect(during.finished == 0, "the light caller waited for the heavy caller's reads")
        #expect(during.most == 2)
        try await pool.close()
    }

    @Test(
        "readers of one revision that need the same kept column, ranks or lengths at once get what a lone search gives")
    func keptOnceUnderConcurrency() async throws {
        let folder = try TemporaryFolder.subfolder("kept") + "/index"
        let writer = try SearchableIndex(path: folder, access: .readWrite(lockTimeout: .seconds(5)))
        let items = (0..<400).map { number in
            var object = object(
                "p/\(number)", title: "kettle \(number % 7 == 0 ? "copper" : "steel") \(number)",
                description: "boils water \(number % 3 == 0 ? "fast" : "slowly")",
                expiration: number % 5 == 0 ? now + day : nil)
            object.contentMetadata.price = Double(number % 50)
            object.contentMetadata.productCategory = number % 2 == 0 ? "Kitchen" : "Garden"
            return SearchableItem(object: object, domainIdentifier: "default")
        }
        try writer.indexSearchableItems(items, now: now)
        try writer.close()
        let queries = [
            SearchQuery("kettle", facets: ["price", "category"]),
            SearchQuery("kettle", sort: SearchQuery.SortKey.list("-price")),
            SearchQuery("boils water", limit: 10), SearchQuery("price:10..20 kettle"),
        ]
        // What one search alone gives, reading nothing kept; and later than every expiration, for
        // the kept expirations.
        let alone = try SearchableIndex(path: folder, access: .readOnly)
        let times = [now, now + 2 * day]
        var expected: [SearchResults] = []
        for time in times { for query in queries { expected.append(try alone.search(query, now: time)) } }
        let pool = try IndexPool(path: folder, readers: 4)
        // Enough rounds at once that the lengths and expirations are kept (from a revision's 16th
        // search) while others ask for them.
        for _ in 0..<3 {
            try await withThrowingTaskGroup(of: (Int, SearchResults).self) { group in
                for (position, time) in times.enumerated() {
                    for (index, query) in queries.enumerated() {
                        for _ in 0..<4 {
                            group.addTask {
                                let results = try await pool.read { reader throws(SearchlightError) in
                                    try reader.search(query, now: time)
                                }
                                return (position * queries.count + index, results)
                            }
                        }
                    }
                }
                for try await (slot, results) in group {
                    #expect(
                        results.results.map(\.canonicalIdentifier) == expected[slot].results.map(\.canonicalIdentifier))
                    #expect(results.facets == expected[slot].facets, "\(queries[slot % queries.count].text)")
                    #expect(results.total == expected[slot].total || results.totalIsEstimate)
                }
            }
        }
        try await pool.close()
    }
}

/// Counts a caller's reads: how many run now, the most at once, and how many have finished.
private final class ReadTally: Sendable {
    let counts = Mutex((running: 0, most: 0, finished: 0))
}

@Suite("The core budget (design: threads)")
struct CoreBudgetTests {
    @Test(
        "each kind of work gets its threads from the cores",
        arguments: [
            // cores, builders, service builders, readers, pipelined writes
            (0, 1, 1, 4, false), (1, 1, 1, 4, false), (2, 2, 1, 4, true), (8, 8, 7, 16, true),
            (100, 64, 63, 200, true),
        ])
    func shares(cores: Int, builders: Int, serviceBuilders: Int, readers: Int, pipelines: Bool) {
        let budget = CoreBudget(cores: cores)
        #expect(budget.cores == max(1, cores))
        #expect(budget.builders == builders && budget.serviceBuilders == serviceBuilders)
        #expect(budget.readers == readers && budget.pipelinesWrites == pipelines)
    }

    @Test("an indexer's and a pool's defaults come from the machine's budget")
    func defaults() {
        #expect(Indexer().jobs == CoreBudget.machine.builders)
        #expect(Indexer(jobs: 1_000).jobs == CoreBudget.maximumBuilders)
        #expect(CoreBudget.machine.cores == ProcessInfo.processInfo.activeProcessorCount)
    }
}
