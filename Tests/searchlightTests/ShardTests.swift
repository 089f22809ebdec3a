import Foundation
import SearchlightTesting
import Testing

/// `xapian-tcpsrv --writable` serving one shard's folder on a loopback port.
final class ShardServer {
    let folder: String
    private(set) var port: Int32 = 0
    private var process: Process?

    init(folder: String) throws {
        self.folder = folder
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try start()
    }

    /// Starts the server on a free port, or on the port it had, and waits until it accepts.
    func start() throws {
        for _ in 0..<20 {
            let candidate = port != 0 ? port : Int32.random(in: 20_000..<60_000)
            let server = Process()
            server.executableURL = URL(fileURLWithPath: "/usr/bin/xapian-tcpsrv")
            server.arguments = ["--writable", "--interface", "127.0.0.1", "--port", String(candidate), "-q", folder]
            server.standardOutput = FileHandle.nullDevice
            server.standardError = FileHandle.nullDevice
            try server.run()
            let deadline = Date().addingTimeInterval(10)
            while server.isRunning, Date() < deadline, !Self.accepts(port: candidate) {
                Thread.sleep(forTimeInterval: 0.02)
            }
            if server.isRunning, Self.accepts(port: candidate) {
                process = server
                port = candidate
                return
            }
            server.waitUntilExit()  // the port was taken: try another
            if port != 0 { Thread.sleep(forTimeInterval: 0.2) }
        }
        throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "xapian-tcpsrv did not start"])
    }

    /// Kills the server and the processes it forked for its connections, as a machine's crash
    /// would: nothing of theirs runs on.
    func kill() {
        guard let process else { return }
        let children = Process()
        children.executableURL = URL(fileURLWithPath: "/usr/bin/pkill")
        children.arguments = ["-KILL", "-P", String(process.processIdentifier)]
        try? children.run()
        children.waitUntilExit()
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    var line: String { "remote 127.0.0.1:\(port)" }

    private static func accepts(port: Int32) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    deinit { kill() }
}

/// Three shards served on loopback, and a topology file naming them.
struct Cluster {
    let servers: [ShardServer]
    let topology: String

    init(in workspace: Workspace) throws {
        servers = try (1...3).map { try ShardServer(folder: workspace.path + "/shard-\($0)") }
        topology = try workspace.write("cluster", servers.map(\.line).joined(separator: "\n") + "\n")
    }
}

@Suite("An index made of shards", .temporaryFolder, .serialized)
struct ShardTests {
    /// Queries of every kind, in both scopes of visibility.
    static let queries: [[String]] = [
        ["deep linking"], ["crème brûlée"], ["sho"], ["link*"], ["title:deep"], ["\"deep linking\""],
        ["recette"], ["deep -universal"], ["深度"], ["deep OR video"], [""],
    ].flatMap {
        [$0 + ["--all-domains"], $0 + ["--domain", "com.example.blog"], $0 + ["--domain", "com.example.shop"]]
    }

    /// Each query's answer: its total, and its results' identifiers and scores in order.
    func answers(_ workspace: Workspace, index: String) throws -> [(total: Int, ids: [String], scores: [Int])] {
        try Self.queries.map { query in
            let run = try workspace.run(
                ["search"] + query + ["--index", index, "--now", corpusNow, "--limit", "400", "--json"])
            #expect(run.status == 0, "\(query): \(run.stderr)")
            let answer = try run.object()
            let results = answer["results"] as? [[String: Any]] ?? []
            return (
                answer["total"] as? Int ?? -1,
                results.map { "\($0["domain"] ?? "")/\($0["canonicalIdentifier"] ?? "")" },
                results.map { $0["score"] as? Int ?? -1 }
            )
        }
    }

    @Test("three remote shards answer as the same shards held locally, and as one index of the same items")
    func sameAsOneIndex() throws {
        let workspace = try Workspace()
        let cluster = try Cluster(in: workspace)
        let one = try workspace.write("one", "auto one-index\n")
        let local = try workspace.write("local", "auto local-1\nauto local-2\nauto local-3\n")
        for index in [cluster.topology, one, local] {
            let run = try workspace.run(["index", repositoryRoot + "/corpus", "--index", index, "--now", corpusNow])
            #expect(run.status == 0, "\(run.stderr)")
        }
        // The remote backend is transparent: the same items on the same shards answer alike.
        let remote = try answers(workspace, index: cluster.topology)
        let sameShards = try answers(workspace, index: local)
        for (query, (a, b)) in zip(Self.queries, zip(remote, sameShards)) {
            #expect(a.total == b.total && a.ids == b.ids && a.scores == b.scores, "\(query)")
        }
        // One index of the same items finds the same items with the same scores; items of equal
        // score may come in another order (Xapian sums a word's expansions in another order).
        let single = try answers(workspace, index: one)
        for (query, (a, b)) in zip(Self.queries, zip(remote, single)) {
            #expect(a.total == b.total && a.scores == b.scores && a.ids.sorted() == b.ids.sorted(), "\(query)")
        }

        let stats = try workspace.run(["stats", "--index", cluster.topology, "--now", corpusNow, "--json"]).object()
        let shards = try #require(stats["shards"] as? [[String: Any]])
        #expect(shards.map { $0["shard"] as? String } == cluster.servers.map { "127.0.0.1:\($0.port)" })
        let counts = shards.compactMap { $0["documents"] as? Int }
        #expect(counts.reduce(0, +) == stats["documents"] as? Int)
        #expect(counts.allSatisfy { $0 > 50 }, "the items spread over the shards: \(counts)")
        let text = try workspace.run(["stats", "--index", cluster.topology, "--now", corpusNow])
        #expect(text.stdout.contains("Shards:"))
        #expect(text.stdout.contains("127.0.0.1:\(cluster.servers[0].port)"))
    }

    @Test("routing is stable across processes: indexing the same files again changes nothing")
    func stableRouting() throws {
        let workspace = try Workspace()
        let cluster = try Cluster(in: workspace)
        let arguments = [
            "index", repositoryRoot + "/corpus", "--index", cluster.topology, "--now", corpusNow, "--json",
        ]
        let first = try workspace.run(arguments).object()
        let stats = try workspace.run(["stats", "--index", cluster.topology, "--now", corpusNow, "--json"]).object()
        let again = try workspace.run(arguments).object()
        #expect(again["added"] as? Int == 0)
        #expect(again["updated"] as? Int == 0)
        #expect(again["unchanged"] as? Int == first["added"] as? Int)
        let after = try workspace.run(["stats", "--index", cluster.topology, "--now", corpusNow, "--json"]).object()
        #expect(after["shards"] as? [[String: AnyHashable]] == stats["shards"] as? [[String: AnyHashable]])

        // An item goes to one shard: removing it and getting it touch that shard.
        let removed = try workspace.run([
            "remove", "note/private-001", "--domain", "com.example.blog", "--index", cluster.topology, "--json",
        ])
        #expect(removed.status == 0 || removed.status == 1, "\(removed.stderr)")
    }

    @Test("a shard that cannot be reached is named, exits 69, and answers again once restarted")
    func unreachableShard() throws {
        let workspace = try Workspace()
        let cluster = try Cluster(in: workspace)
        #expect(
            try workspace.run(["index", repositoryRoot + "/corpus", "--index", cluster.topology, "--now", corpusNow])
                .status == 0)
        let search = ["search", "deep", "--all-domains", "--index", cluster.topology, "--now", corpusNow, "--json"]
        let before = try workspace.run(search).object()
        let down = cluster.servers[1]
        down.kill()
        for arguments in [
            search, ["stats", "--index", cluster.topology],
            ["index", repositoryRoot + "/corpus", "--index", cluster.topology, "--now", corpusNow],
        ] {
            let run = try workspace.run(arguments)
            #expect(run.status == 69, "\(arguments[0]): \(run.stderr)")
            #expect(run.stderr.contains("127.0.0.1:\(down.port)"), "\(arguments[0]): \(run.stderr)")
            #expect(run.stdout.isEmpty || !run.stdout.contains("results"))
        }
        try down.start()
        let after = try workspace.run(search).object()
        #expect(after["total"] as? Int == before["total"] as? Int)
    }

    @Test("a shard server killed during a write keeps all of that write or none of it")
    func killedDuringWrite() throws {
        let workspace = try Workspace()
        let cluster = try Cluster(in: workspace)
        let lines = (1...6000).map {
            #"{"canonicalIdentifier":"item/\#($0)","title":"Item \#($0)","contentDescription":"A shard write test item number \#($0).","contentIndexMode":"public"}"#
        }
        let file = try workspace.write("items.jsonl", lines.joined(separator: "\n") + "\n")
        let victim = cluster.servers[2]
        let writer = try startBinary(["index", file, "--index", cluster.topology, "--now", corpusNow])
        Thread.sleep(forTimeInterval: Double.random(in: 0.05...0.6))
        victim.kill()
        let (status, stderr) = writer.finish()
        #expect(status == 0 || status == 69, "\(stderr)")
        try victim.start()
        let stats = try workspace.run(["stats", "--index", cluster.topology, "--now", corpusNow, "--json"]).object()
        let shards = try #require(stats["shards"] as? [[String: Any]])
        let held = shards[2]["documents"] as? Int ?? -1
        // The items routed to that shard: what the others do not hold, once a re-run completes.
        #expect(try workspace.run(["index", file, "--index", cluster.topology, "--now", corpusNow]).status == 0)
        let complete = try workspace.run(["stats", "--index", cluster.topology, "--now", corpusNow, "--json"]).object()
        let routed = (complete["shards"] as? [[String: Any]])?[2]["documents"] as? Int ?? -2
        #expect(held == 0 || held == routed, "the killed shard holds \(held) of its \(routed) items")
        #expect(complete["documents"] as? Int == 6000)
    }
}
