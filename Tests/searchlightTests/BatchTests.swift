import Foundation
import SearchlightTesting
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A writer's topology of three local shards, and numbered batches written to it: batch `b` is a
/// file of ``size`` items and three markers (new items in a row, so one lands on each shard), each
/// carrying the field `batch` = `b<b>`. Batches are small (one transaction a shard) or `large`,
/// 1.4 MB, which the writer builds with bulk builders into each shard's next generation.
struct Batches: Sendable {
    static let size = 1_000
    let workspace: Workspace
    let large: Bool
    /// The writer's topology file, in the folder `xapian-replicate-server` serves.
    let writer: String
    /// Every process that commits to the shards keeps changesets for their replicas.
    static let changesets = ["XAPIAN_MAX_CHANGESETS": "100"]

    init(_ workspace: Workspace, large: Bool = false) throws {
        self.workspace = workspace
        self.large = large
        try FileManager.default.createDirectory(atPath: workspace.path + "/writer", withIntermediateDirectories: true)
        writer = try workspace.write("writer/cluster", "auto shard-1\nauto shard-2\nauto shard-3\n")
        let field = try workspace.run(
            ["fields", "add", "batch", "--type", "string", "--index", writer], environment: Self.changesets)
        try #require(field.status == 0, "\(field.stderr)")
    }

    /// The file of batch `batch`.
    func file(_ batch: Int) throws -> String {
        let name = "batch-\(batch).jsonl"
        if FileManager.default.fileExists(atPath: workspace.path + "/" + name) { return workspace.path + "/" + name }
        let lines = self.lines(batch)
        return try workspace.write(name, lines.joined(separator: "\n") + "\n")
    }

    /// The lines of batch `batch`'s file.
    private func lines(_ batch: Int) -> [String] {
        func line(_ identifier: String, _ title: String, _ number: Int) -> String {
            let description =
                large
                ? "One of a batch, " + (0..<160).map { "word\(($0 * 7 + number) % 211)" }.joined(separator: " ")
                : "One of a batch"
            return
                #"{"canonicalIdentifier":"\#(identifier)","title":"\#(title)","contentDescription":"\#(description)","#
                + #""contentIndexMode":"public","contentMetadata":{"customMetadata":{"batch":"b\#(batch)"}}}"#
        }
        return (1...Self.size).map { line("b\(batch)/\($0)", "item \($0 % 50)", $0) }
            + (1...3).map { line("marker/b\(batch)/\($0)", "marker", $0) }
    }

    /// Starts `searchlight index` of batch `batch` into `index` (the writer's topology).
    func start(_ batch: Int, into index: String? = nil) throws -> BackgroundRun {
        try startBinary(["index", try file(batch), "--index", index ?? writer], environment: Self.changesets)
    }

    /// Indexes batch `batch` into `index` to the end.
    func write(_ batch: Int, into index: String? = nil) throws {
        let run = try workspace.run(
            ["index", try file(batch), "--index", index ?? writer], environment: Self.changesets)
        #expect(run.status == 0, "batch \(batch): \(run.stderr)")
    }

    /// The batches a search of `index` sees, each with how many of its items: from a fresh reader.
    func seen(in index: String) throws -> [String: Int] {
        try #require(try seenIfAnswered(in: index), "the search of \(index) failed (its error is printed above)")
    }

    /// The batches a search of `index` sees, as ``seen(in:)``, or `nil` when the search fails: a
    /// replica still catching up (a shard behind for longer than a search waits) is not yet an
    /// answer. The failure is printed, to be read beside a test that then fails.
    func seenIfAnswered(in index: String) throws -> [String: Int]? {
        let run = try workspace.run(["search", "", "--facet", "batch", "--limit", "0", "--json", "--index", index])
        guard run.status == 0 else {
            print("Batches.seenIfAnswered: exit \(run.status): \(run.stderr)")
            return nil
        }
        let facets = try #require((try run.object()["facets"] as? [String: Any])?["batch"] as? [String: Any])
        let values = facets["values"] as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: values.map { ($0["value"] as? String ?? "", $0["count"] as? Int ?? 0) })
    }

    /// What a search service over the shards shows when asked for its batches.
    enum Shown: Sendable {
        /// Every batch it shows, whole.
        case whole
        /// Part of a batch, which it must never show: a batch counted with other than all of its
        /// items, or with some of its three markers.
        case partOfABatch(String)
        /// No answer, or an error: the status and body.
        case failed(String)
    }

    /// Asks a search service over the shards what it shows (``Shown``). Blocks the calling thread.
    static func shown(at service: String) -> Shown {
        var failure: String?
        func counts(_ query: String) -> [String: Int]? {
            guard let answer = blockingGet(service + "/v1/search?q=\(query)&limit=0&facets=batch") else {
                failure = failure ?? "no answer"
                return nil
            }
            guard answer.status == 200,
                let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
            else {
                failure = failure ?? "\(answer.status): \(String(decoding: answer.body, as: UTF8.self))"
                return nil
            }
            let values = ((object["facets"] as? [String: Any])?["batch"] as? [String: Any])?["values"]
            return Dictionary(
                uniqueKeysWithValues: (values as? [[String: Any]] ?? []).map {
                    ($0["value"] as? String ?? "", $0["count"] as? Int ?? 0)
                })
        }
        guard let items = counts(""), let markers = counts("marker") else { return .failed(failure ?? "") }
        if let partial = items.first(where: { $0.value != size + 3 }) {
            return .partOfABatch("batch \(partial.key) counted with \(partial.value) items")
        }
        if let partial = markers.first(where: { $0.value != 3 }) {
            return .partOfABatch("batch \(partial.key) shows \(partial.value) of its 3 markers")
        }
        return .whole
    }

    /// What a ``Watcher`` saw: how many times it asked, every part of a batch shown, every failure.
    struct Watched: Sendable {
        var checks = 0
        var partial: [String] = []
        var failed: [String] = []
    }

    /// Asks `service` every 100 ms, until stopped, what it shows (``Shown``): on a thread of its
    /// own (``OnThread``), as ``BatchWriter`` writes, so that the tests' blocking work beside it (kills,
    /// `xapian-check`) cannot starve it of Swift's two cooperative threads, and pausing so that it
    /// leaves the writers it watches their share of the two cores.
    final class Watcher: Sendable {
        private let stopped = Flag()
        private let asked = Counter()
        private let asking: OnThread<Watched>

        init(_ service: String) {
            let stopped = stopped
            let asked = asked
            asking = OnThread {
                var watched = Watched()
                while !stopped.isSet {
                    switch Batches.shown(at: service) {
                    case .whole: break
                    case .partOfABatch(let found): watched.partial.append(found)
                    case .failed(let failure): watched.failed.append(failure)
                    }
                    watched.checks += 1
                    asked.set(watched.checks)
                    usleep(100_000)
                }
                return watched
            }
        }

        /// How many times it has asked so far: a service whose view waits for its shards to agree
        /// answers slowly while replicas catch up.
        var checks: Int { asked.current }

        /// Stops asking, once the question being asked is answered: what it saw.
        func stop() throws -> Watched {
            stopped.set()
            return try asking.value()
        }
    }

    /// Checks that `index` holds what one index written with the batches it shows, in order, holds:
    /// the same items, stored the same (`export`), numbered the same (ties come in document order).
    func expectSameAsOneIndex(_ index: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let seen = try self.seen(in: index)
        let batches = seen.keys.compactMap { Int($0.dropFirst()) }.sorted()
        #expect(seen.values.allSatisfy { $0 == Self.size + 3 }, "\(seen)", sourceLocation: sourceLocation)
        let one = workspace.path + "/one-\(UUID().uuidString)"
        #expect(
            try workspace.run(["fields", "add", "batch", "--type", "string", "--index", one]).status == 0)
        // The batches' files in one run, with one segment builder: one index numbering the items
        // in the order they are read, as a topology does (several builders number each one's
        // items in turn).
        let written = try workspace.run(
            ["index"] + (try batches.map { try file($0) }) + ["--jobs", "1", "--index", one],
            environment: Self.changesets)
        #expect(written.status == 0, "\(written.stderr)", sourceLocation: sourceLocation)
        try expect(index, holdingWhat: one, sourceLocation: sourceLocation)
    }

    /// Checks that `index` holds what `reference` holds: the same items, stored the same
    /// (`export`), numbered the same (ties come in document order).
    func expect(_ index: String, holdingWhat reference: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        func export(_ index: String) throws -> [String] {
            let run = try workspace.run(["export", "--all-domains", "--index", index])
            #expect(run.status == 0, "\(run.stderr)", sourceLocation: sourceLocation)
            return run.stdout.split(separator: "\n").map(String.init).sorted()
        }
        #expect(try export(index) == export(reference), sourceLocation: sourceLocation)
        for query in [["marker"], ["item", "--offset", "300"]] {
            let search = ["search"] + query + ["--limit", "100", "--json", "--index"]
            let answers = try [index, reference].map { try workspace.run(search + [$0]).stdout }
            #expect(answers[0] == answers[1], "\(query)", sourceLocation: sourceLocation)
        }
    }
}

/// Writes batches one after another, each with `searchlight index`, on a thread of its own (a
/// test's tasks share the machine's two threads).
final class BatchWriter: Sendable {
    private final class State: Sendable {
        let progress = Mutex<(stop: Bool, last: Int, done: Bool)>((false, 0, false))
    }
    private let state = State()

    /// Writes batches from `first` on, one after another, `pause` seconds apart, through batch `last`
    /// at most.
    init(_ batches: Batches, from first: Int, through last: Int = .max, pause: Double = 0) {
        let state = state
        Thread.detachNewThread {
            var batch = first
            while batch <= last, !state.progress.withLock({ $0.stop }) {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: binaryPath)
                guard let file = try? batches.file(batch) else { break }
                process.arguments = ["index", file, "--index", batches.writer]
                // By words alone, as `startBinary` runs the binary: with the model, each batch would
                // also give its items vectors.
                process.environment = ProcessInfo.processInfo.environment.merging(
                    Batches.changesets.merging(["SEARCHLIGHT_MODEL": "none"]) { $1 }
                ) { $1 }
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                guard (try? process.run()) != nil else { break }
                process.waitUntilExit()
                guard process.terminationStatus == 0 else { break }
                state.progress.withLock { $0.last = batch }
                batch += 1
                if pause > 0 { Thread.sleep(forTimeInterval: pause) }
            }
            state.progress.withLock { $0.done = true }
        }
    }

    /// The number of the last batch written so far (0 before the first).
    var last: Int { state.progress.withLock { $0.last } }

    /// Stops after the batch being written: the number of the last batch written.
    func stop() -> Int {
        state.progress.withLock { $0.stop = true }
        while !state.progress.withLock({ $0.done }) { usleep(10_000) }
        return state.progress.withLock { $0.last }
    }
}

/// One HTTP GET, waited for on the calling thread (URLSession answers on threads of its own): the
/// status and body, or `nil` when there was no answer.
func blockingGet(_ url: String) -> (status: Int, body: Data)? {
    final class Answer: @unchecked Sendable {
        // Written by URLSession's handler before `done` is signalled; read after.
        var value: (status: Int, body: Data)?
        let done = DispatchSemaphore(value: 0)
    }
    guard let url = URL(string: url) else { return nil }
    let answer = Answer()
    URLSession.shared.dataTask(with: url) { data, response, _ in
        if let data, let response = response as? HTTPURLResponse { answer.value = (response.statusCode, data) }
        answer.done.signal()
    }.resume()
    answer.done.wait()
    return answer.value
}

/// A flag one task sets and another reads.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set() { value.store(true, ordering: .relaxed) }
}

/// A count that one thread sets and others read.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    var current: Int { value.load(ordering: .relaxed) }
    func set(_ count: Int) { value.store(count, ordering: .relaxed) }
}

/// One shard machine: a replica of its shard kept by `xapian-replicate`, served read-only by
/// `xapian-tcpsrv`.
final class ShardMachine {
    let replica: String
    let replicator: Replicator
    let server: LoopbackServer

    init(shard: Int, replicationPort: Int32, in workspace: Workspace) throws {
        replica = workspace.path + "/machine-\(shard)/shard"
        try FileManager.default.createDirectory(
            atPath: workspace.path + "/machine-\(shard)", withIntermediateDirectories: true)
        // The first copy, before the server opens it.
        let first = try runProgram(
            "/usr/bin/xapian-replicate",
            ["-h", "127.0.0.1", "-p", String(replicationPort), "-m", "shard-\(shard)", "-o", "-q", replica])
        try #require(first.status == 0, "\(first.output)")
        replicator = try Replicator(
            port: replicationPort, master: "shard-\(shard)", replica: replica,
            primary: workspace.path + "/writer/shard-\(shard)")
        server = try LoopbackServer.shard(folder: replica)
    }

    /// The replica's live copy, which its stub names (`auto replica_0` after Xapian's comments).
    var liveCopy: String {
        let stub = (try? String(contentsOfFile: replica + "/XAPIANDB", encoding: .utf8)) ?? ""
        let line = stub.split(separator: "\n").first { $0.hasPrefix("auto ") } ?? ""
        return replica + "/" + line.dropFirst(5)
    }
}

@Suite("A topology's batches are whole: on every shard or on none", .temporaryFolder, .serialized)
struct BatchTests {
    @Test(
        "a writer killed (-9) at random moments, 20 times: shards pass xapian-check, readers never see part of a batch, and the next writer completes it",
        arguments: [false, true])
    func writerKilled(large: Bool) async throws {
        let workspace = try Workspace()
        let batches = try Batches(workspace, large: large)
        // How long a batch takes to commit here: the kills fall late in it, where it commits.
        let started = Date()
        try batches.write(1)
        let duration = Date().timeIntervalSince(started)
        for shard in 1...3 {
            // A large batch is published as each shard's next generation.
            let stub = try? String(contentsOfFile: workspace.path + "/writer/shard-\(shard)/XAPIANDB", encoding: .utf8)
            #expect((stub == "auto gen-000001\n") == large, "shard \(shard): \(stub ?? "no stub")")
        }
        let service = try RunningServer(index: batches.writer, extra: ["--read-only"])
        defer { _ = service.stop() }
        let watcher = Batches.Watcher(service.baseURL)
        var journaled = 0
        let journal = batches.writer + ".journal"
        for batch in 2...21 {
            let writer = try batches.start(batch)
            if batch % 2 == 0 {
                // At any moment of its second half.
                try await Task.sleep(for: .seconds(Double.random(in: 0.4...1.05) * duration))
            } else {
                // While it commits: from its journal's writing on, when the shards commit.
                while writer.isRunning, !FileManager.default.fileExists(atPath: journal) { usleep(200) }
                usleep(UInt32.random(in: 0...3_000))
            }
            kill(writer.processIdentifier, SIGKILL)
            writer.finish()
            if FileManager.default.fileExists(atPath: journal) { journaled += 1 }
            for shard in 1...3 {
                let check = try runProgram(
                    "/usr/bin/xapian-check", [currentDatabase(workspace.path + "/writer/shard-\(shard)")])
                #expect(check.status == 0, "shard \(shard) after batch \(batch): \(check.output)")
            }
        }
        // The next writer completes a batch left journaled.
        try batches.write(22)
        #expect(!FileManager.default.fileExists(atPath: batches.writer + ".journal"))
        let watched = try watcher.stop()
        #expect(watched.partial.isEmpty, "\(watched.partial.prefix(5))")
        // The service answers every time, from the last batch every shard holds.
        #expect(watched.failed.isEmpty, "\(watched.failed.count) failed: \(watched.failed.prefix(3))")
        #expect(watched.checks > 20)
        try batches.expectSameAsOneIndex(batches.writer)
        // Kills that left a journal: their batches were completed, not lost.
        #expect(journaled > 0, "no kill fell while the shards committed")
        print(
            "BatchTests.writerKilled(large: \(large)): \(journaled) of 20 kills left a journaled batch; \(watched.checks) checks"
        )
    }

    @Test(
        "killed (-9) while it gives a topology's items vectors, each batch of vectors is on every shard or none; the next run completes it"
    )
    func killedWhileEmbeddingShards() throws {
        let workspace = try Workspace()
        let writer = try workspace.write("writer", "auto shard-1\nauto shard-2\nauto shard-3\n")
        try writeBatch(workspace, folder: "in", files: 4, items: 150)
        let words = try workspace.run(["index", workspace.path + "/in", "--no-meaning", "--index", writer])
        #expect(words.status == 0, "\(words.stderr)")
        let journal = writer + ".journal"
        var journaled = 0
        for _ in 0..<6 {
            let process = try startBinary(["embed", "--index", writer], environment: withMeaning)
            // While a batch of vectors commits: from its journal's writing on, when the shards commit.
            // A journal the last kill left goes first: the run completes its batch before any other.
            let deadline = Date().addingTimeInterval(120)
            while process.isRunning, FileManager.default.fileExists(atPath: journal), Date() < deadline {
                usleep(200)
            }
            while process.isRunning, !FileManager.default.fileExists(atPath: journal), Date() < deadline {
                usleep(200)
            }
            usleep(UInt32.random(in: 0...3_000))
            kill(process.processIdentifier, SIGKILL)
            _ = process.finish()
            if FileManager.default.fileExists(atPath: journal) { journaled += 1 }
            for shard in 1...3 { try checkWithXapian(workspace.path + "/shard-\(shard)") }
            // A reader sees the shards at one batch, each with the vectors of the batches it holds.
            let stats = try workspace.run(["stats", "--index", writer, "--json"])
            #expect(stats.status == 0, "\(stats.stderr)")
            #expect(try stats.object()["documents"] as? Int == 600)
        }
        #expect(journaled > 0, "no kill fell while the shards committed")
        // The next run completes a batch left journaled, then gives the rest theirs.
        let finished = try workspace.run(["embed", "--index", writer, "--json"], environment: withMeaning)
        #expect(finished.status == 0, "\(finished.stderr)")
        let report = try finished.object()
        #expect(report["withMeaning"] as? Int == 600 && report["items"] as? Int == 600, "\(report)")
        #expect(!FileManager.default.fileExists(atPath: journal))
        let stats = try workspace.run(["stats", "--index", writer, "--json"]).object()
        let batches = (stats["shards"] as? [[String: Any]] ?? []).compactMap { $0["batch"] as? Int }
        #expect(batches.count == 3 && Set(batches).count == 1, "\(batches)")
        for shard in 1...3 { try checkWithXapian(workspace.path + "/shard-\(shard)") }
        // Every item has its own text's vector: the one one index gives it.
        let one = workspace.path + "/one-index"
        #expect(
            try workspace.run(["index", workspace.path + "/in", "--index", one], environment: withMeaning).status == 0)
        let answers = try [writer, one].map { index in
            let similar = try workspace.run(
                ["similar", "f1/7", "--all-domains", "--limit", "20", "--json", "--index", index],
                environment: withMeaning)
            #expect(similar.status == 0, "\(similar.stderr)")
            return similar.stdout
        }
        #expect(answers[0] == answers[1])
        #expect(!resultIdentifiers(answers[0]).isEmpty)
    }

    enum Victim: String, CaseIterable, Sendable {
        case replicator = "a replicator"
        case shardServer = "a shard server"
    }

    @Test(
        "a replicator or a shard server killed (-9) at random moments, 20 times each, while batches are written: readers never see part of a batch, and the shard machines catch up whole",
        // A replicator also while large batches publish new generations, which it copies whole.
        arguments: zip([Victim.replicator, .shardServer, .replicator], [false, false, true]))
    func shardMachineKilled(_ victim: Victim, large: Bool) async throws {
        let workspace = try Workspace()
        let batches = try Batches(workspace, large: large)
        try batches.write(1)
        let master = try LoopbackServer(program: "/usr/bin/xapian-replicate-server") { port in
            ["--interface", "127.0.0.1", "--port", String(port), workspace.path + "/writer"]
        }
        let machines = try (1...3).map { try ShardMachine(shard: $0, replicationPort: master.port, in: workspace) }
        let topology = try workspace.write(
            "cluster", machines.map(\.server.shardLine).joined(separator: "\n") + "\n")
        let service = try RunningServer(index: topology, extra: ["--read-only"])
        defer { _ = service.stop() }
        let watcher = Batches.Watcher(service.baseURL)

        // The writer commits one batch after another meanwhile: 20 kills, and more until it has
        // written four batches under them (a large batch takes seconds on a busy machine) and the
        // watcher has asked 25 times (the service waits for its shards to agree while a replica
        // catches up, so an answer can take a second), while the batches stay fewer than the 100
        // values a count lists: small batches half a second apart. Bounded by time, not by a
        // count of kills: on a slow machine fewer batches, answers and new copies come per kill.
        // Each replica's switches to a whole new copy (its stub naming the other copy), counted as
        // they happen: with large batches, at least 20 under the watcher.
        let stubs = machines.map { $0.replica + "/XAPIANDB" }
        let (switching, switched) = (Flag(), Counter())
        let switches = OnThread {
            var named = stubs.map { try? String(contentsOfFile: $0, encoding: .utf8) }
            while !switching.isSet {
                for (index, stub) in stubs.enumerated() {
                    let now = try? String(contentsOfFile: stub, encoding: .utf8)
                    if let now, now != named[index] {
                        named[index] = now
                        switched.set(switched.current + 1)
                    }
                }
                usleep(5_000)
            }
            return switched.current
        }
        // Through batch 99 at most: a count lists 100 values, and a kill can outlast many batches.
        let writer = BatchWriter(batches, from: 2, through: 99, pause: large ? 0 : 0.5)
        var kills = 0
        let killing = Date().addingTimeInterval(300)
        // A replicator whose replica never catches up is never killed again: the 20 kills end too.
        let stalled = Date().addingTimeInterval(900)
        while (kills < 20 && Date() < stalled)
            || ((writer.last < 6 || watcher.checks < 25 || (large && switched.current < 20)) && Date() < killing
                && writer.last < 80)
        {
            try await Task.sleep(for: .milliseconds(Int.random(in: 50...500)))
            // A replicator is killed again once it has recovered (`Replicator.hasRecovered`).
            let victims = machines.filter { victim != .replicator || $0.replicator.hasRecovered }
            guard let machine = victims.randomElement() else { continue }
            kills += 1
            switch victim {
            case .replicator:
                machine.replicator.kill()
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...300)))
                try machine.replicator.start()
            case .shardServer:
                machine.server.kill()
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...300)))
                try machine.server.start()
            }
        }
        let last = writer.stop()
        #expect(kills >= 20, "\(kills) kills: a machine did not recover to be killed again")
        #expect(last > 5, "the writer wrote \(last) batches")
        switching.set()
        let copies = try switches.value()
        #expect(!large || copies >= 20, "the replicas switched to a new copy \(copies) times")

        // Every shard machine catches up with the writer, each replica whole.
        let deadline = Date().addingTimeInterval(60)
        let caughtUp = Date()
        while (try batches.seenIfAnswered(in: topology)?.count ?? 0) < last, Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        print(
            "BatchTests.shardMachineKilled(\(victim), large: \(large)): \(last) batches; caught up in \(Date().timeIntervalSince(caughtUp)) s"
        )
        for machine in machines { machine.replicator.printExits(in: "BatchTests.shardMachineKilled") }
        let watched = try watcher.stop()
        #expect(watched.partial.isEmpty, "\(watched.partial.prefix(5))")
        // A replica switching to a whole new copy, or catching up, is answered from the last batch
        // every shard holds; only a shard server that is down fails a search. But a replica of small
        // batches sent a whole copy stays behind until that copy has caught up: xapian-replicate's
        // server sends one when the changeset it needs is not there yet (the writer writes a
        // revision's changeset just after the revision, a moment a loaded machine widens). Once the
        // other shards have moved on, a search then waits 10 s for them to agree and fails cleanly,
        // naming each shard's batch (docs/operations.md).
        if victim == .replicator {
            if large || copies == 0 {
                #expect(watched.failed.isEmpty, "\(watched.failed.count) failed: \(watched.failed.prefix(3))")
            } else {
                let unclean = watched.failed.filter { !($0.contains("1010") && $0.contains("held different batches")) }
                #expect(unclean.isEmpty, "\(unclean.count) failed otherwise: \(unclean.prefix(3))")
            }
        }
        print(
            "BatchTests.shardMachineKilled(\(victim), large: \(large)): \(copies) switches to a new copy; "
                + "\(watched.failed.count) of \(watched.checks) checks failed \(watched.failed.prefix(3))"
        )
        #expect(watched.checks > 20)
        for machine in machines {
            machine.replicator.kill()  // it writes the live copy while it runs
        }
        for machine in machines {
            let check = try runProgram("/usr/bin/xapian-check", [machine.liveCopy])
            #expect(check.status == 0, "\(machine.liveCopy): \(check.output)")
        }
        let seen = try batches.seen(in: topology)
        #expect(seen.count == last, "\(seen.count) of \(last) batches served")
        // Each shard machine's replica holds what its shard on the writer holds (the writer's
        // shards `writerKilled` and `ShardTests` check against one index of the same items).
        for (number, machine) in machines.enumerated() {
            try batches.expect(machine.replica, holdingWhat: workspace.path + "/writer/shard-\(number + 1)")
        }
        withExtendedLifetime(master) {}
    }
}
