import Foundation
import SearchlightTesting
import Testing

/// The identifiers of a search answer's results, in order.
func resultIdentifiers(_ body: String) -> [String] {
    let answer = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
    return (answer?["results"] as? [[String: Any]] ?? []).compactMap { $0["canonicalIdentifier"] as? String }
}

/// Three shards served on loopback, and a topology file naming them.
struct Cluster {
    let servers: [LoopbackServer]
    let topology: String

    init(in workspace: Workspace) throws {
        servers = try (1...3).map { try LoopbackServer.shard(folder: workspace.path + "/shard-\($0)") }
        topology = try workspace.write("cluster", servers.map(\.shardLine).joined(separator: "\n") + "\n")
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
        let one = workspace.path + "/one-index"
        let local = try workspace.write("local", "auto local-1\nauto local-2\nauto local-3\n")
        for index in [cluster.topology, one, local] {
            let run = try workspace.run(["index", repositoryRoot + "/corpus", "--index", index, "--now", corpusNow])
            #expect(run.status == 0, "\(run.stderr)")
        }
        // The same totals, items, scores and order, ties included: a topology runs the query one
        // index runs, and its writer gives each item the document id one index gives it.
        let remote = try answers(workspace, index: cluster.topology)
        for other in [local, one] {
            for (query, (a, b)) in zip(Self.queries, zip(remote, try answers(workspace, index: other))) {
                #expect(a.total == b.total && a.ids == b.ids && a.scores == b.scores, "\(query) on \(other)")
            }
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

    /// Thirty queries of each kind made of the words of `titles`: one word (the last word of a query
    /// is also a beginning), its first two and first five letters, two words, a phrase, a title
    /// filter, an exclusion, an OR, sorted by one key (an empty query sorted too, where ties decide much), and counted by
    /// facets. Each is a query string for `/v1/search`.
    static func queriesOfEveryKind(titles: [String]) -> [String: [String]] {
        let words = titles.map { $0.lowercased().split { !$0.isLetter || !$0.isASCII }.map(String.init) }
        let pairs = words.flatMap { title in zip(title, title.dropFirst()).map { [$0, $1] } }
            .filter { $0[0].count > 2 && $0[1].count > 2 }
        let single = Array(Set(words.joined().filter { $0.count > 2 })).sorted()
        func thirty<T>(_ all: [T]) -> [T] {
            all.count <= 30 ? all : (0..<30).map { all[$0 * all.count / 30] }
        }
        func encoded(_ text: String) -> String {
            text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
        }
        let chosen = thirty(single), twos = thirty(pairs)
        return [
            "one word": chosen.map { "q=" + encoded($0) },
            "two letters": chosen.map { "q=" + encoded(String($0.prefix(2))) },
            "five letters": thirty(single.filter { $0.count > 5 }).map { "q=" + encoded(String($0.prefix(5))) },
            "two words": twos.map { "q=" + encoded($0.joined(separator: " ")) },
            "phrase": twos.map { "q=" + encoded("\"" + $0.joined(separator: " ") + "\"") },
            "title filter": twos.map { "q=" + encoded("title:\($0[0]) \($0[1].prefix(3))") },
            "exclusion and OR": twos.map { "q=" + encoded("\($0[0]) -\($0[1]) OR \($0[1])") },
            "sorted": chosen.enumerated().map { position, word in
                let keys = ["-created", "price", "expires", "-views", "relevance,-rating"]
                return "q=" + encoded(position % 3 == 0 ? "" : word) + "&sort=" + keys[position % keys.count]
                    + "&offset=\(position % 4 * 10)"
            },
            "counted": chosen.map { "q=" + encoded(String($0.prefix(4))) + "&facets=category,price,created" },
        ]
    }

    @Test("three remote shards answer thirty queries of every kind as one index of the same items, ties included")
    func sameRankingAsOneIndex() async throws {
        let workspace = try Workspace()
        let cluster = try Cluster(in: workspace)
        let one = workspace.path + "/one-index"
        for index in [cluster.topology, one] {
            let run = try workspace.run(["index", repositoryRoot + "/corpus", "--index", index, "--now", corpusNow])
            #expect(run.status == 0, "\(run.stderr)")
        }
        let tokens = try writeTokens(workspace)
        let servers = try [one, cluster.topology].map {
            try RunningServer(index: $0, tokens: tokens, extra: ["--prune-interval", "none"])
        }
        defer { for server in servers { _ = server.stop() } }
        let all = try await http("GET", servers[0].baseURL + "/v1/search?q=&limit=1000", token: shopToken)
        let listed = try JSONSerialization.jsonObject(with: Data(all.body.utf8)) as? [String: Any]
        let titles = (listed?["results"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
        #expect(titles.count > 100)
        /// What an answer says: its total, each result's item and score in order, and its counts.
        func answer(_ server: RunningServer, _ query: String, token: String?) async throws -> (
            text: String, ties: Bool
        ) {
            let response = try await http(
                "GET", server.baseURL + "/v1/search?" + query + "&limit=50&semanticRatio=0", token: token)
            #expect(response.status == 200, "\(query): \(response.body)")
            let object = try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any] ?? [:]
            let results = (object["results"] as? [[String: Any]] ?? []).map {
                "\($0["domain"] ?? "")/\($0["canonicalIdentifier"] ?? "") \($0["score"] ?? "")"
            }
            let facets = try JSONSerialization.data(withJSONObject: object["facets"] ?? [:], options: .sortedKeys)
            let scores = (object["results"] as? [[String: Any]] ?? []).compactMap { $0["score"] as? Int }
            let text =
                "total \(object["total"] ?? "none"); " + results.joined(separator: ", ") + "; "
                + String(decoding: facets, as: UTF8.self)
            return (text, Set(scores).count < scores.count)
        }
        var compared = 0, tied = 0
        for (kind, queries) in Self.queriesOfEveryKind(titles: titles) {
            #expect(queries.count == 30, "\(kind)")
            for query in queries {
                for token in [nil, shopToken] {
                    let single = try await answer(servers[0], query, token: token)
                    let sharded = try await answer(servers[1], query, token: token)
                    #expect(single.text == sharded.text, "\(kind): \(query)")
                    compared += 1
                    if single.ties { tied += 1 }
                }
            }
        }
        #expect(compared == 540)
        // Ties are common in these answers: their order is part of what is compared.
        #expect(tied > 100, "\(tied) answers with ties")
    }

    @Test("indexing the same files again through shards changes nothing")
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

    @Test("serve over shards answers 503 naming a shard that cannot be reached, and heals once it is back")
    func serviceUnavailable() async throws {
        let workspace = try Workspace()
        let cluster = try Cluster(in: workspace)
        #expect(
            try workspace.run(["index", repositoryRoot + "/corpus", "--index", cluster.topology, "--now", corpusNow])
                .status == 0)
        let service = try RunningServer(index: cluster.topology, tokens: try writeTokens(workspace))
        let search = service.baseURL + "/v1/search?q=deep&limit=100"
        let before = try await http("GET", search)
        #expect(before.status == 200)
        let down = cluster.servers[0]
        down.kill()
        // A write looks for its items on every shard.
        let during = "during/1"
        for (method, url, body) in [
            ("GET", search, nil), ("GET", service.baseURL + "/v1/stats", nil),
            ("POST", service.baseURL + "/v1/items", #"{"$canonical_identifier":"\#(during)","$og_title":"Down"}"#),
        ] {
            let response = try await http(method, url, body: body, token: shopToken)
            #expect(response.status == 503, "\(method) \(url): \(response.body)")
            #expect(response.body.contains(#""code":1010"#) && response.body.contains("127.0.0.1:\(down.port)"))
        }
        try down.start()
        let after = try await http("GET", search)
        #expect(after.status == 200 && resultIdentifiers(after.body) == resultIdentifiers(before.body))
        let write = try await http(
            "POST", service.baseURL + "/v1/items", body: #"{"$canonical_identifier":"after","$og_title":"Healed"}"#,
            token: shopToken)
        #expect(write.status == 200, "\(write.body)")
        let healed = try await http(
            "POST", service.baseURL + "/v1/items",
            body: #"{"$canonical_identifier":"\#(during)","$og_title":"Up"}"#,
            token: shopToken)
        #expect(healed.status == 200 && healed.body.contains(#""added":1"#), "\(healed.body)")
        #expect(!resultIdentifiers(before.body).isEmpty)
        #expect(service.stop() == 0)
    }

    @Test("serve reads and writes on after the shard servers close its idle connections")
    func idleConnections() async throws {
        let workspace = try Workspace()
        let servers = try (1...2).map {
            try LoopbackServer.shard(folder: workspace.path + "/shard-\($0)", idleTimeout: 300)
        }
        let topology = try workspace.write("cluster", servers.map(\.shardLine).joined(separator: "\n") + "\n")
        let service = try RunningServer(index: topology, tokens: try writeTokens(workspace))
        for round in 1...3 {
            let write = try await http(
                "POST", service.baseURL + "/v1/items",
                body: #"{"$canonical_identifier":"idle/\#(round)","$og_title":"Idle lantern"}"#, token: shopToken)
            #expect(write.status == 200, "\(write.body)")
            let search = try await http("GET", service.baseURL + "/v1/search?q=lantern", token: shopToken)
            #expect(search.status == 200 && resultIdentifiers(search.body).count == round, "\(search.body)")
            try await Task.sleep(for: .milliseconds(800))  // both connections are closed meanwhile
        }
        #expect(service.stop() == 0)
    }

    @Test("scripts/cluster-demo runs three shard servers and a replica, and stops them all")
    func clusterDemo() throws {
        // Below Linux's ephemeral range (32768 and up), where a concurrent test's client socket
        // could hold one of the demo's ports.
        let base = Int.random(in: 20_000..<32_000)
        let (status, printed) = try runProgram(
            repositoryRoot + "/scripts/cluster-demo", [],
            environment: ["SEARCHLIGHT_BINARY": binaryPath, "CLUSTER_PORT": String(base)])
        #expect(status == 0, "\(printed)")
        #expect(printed.contains("$ searchlight index corpus") && printed.contains("127.0.0.1:\(base + 3)"))
        #expect(printed.contains("the replica served it") && printed.contains("Replicated lighthouse"))
        #expect(printed.contains(#""code":2014"#) && printed.contains("http://127.0.0.1:\(base + 21)"))
        let ports = [1, 2, 3, 10, 20, 21].map { String(base + $0) }.joined(separator: "|")
        let left = try runProgram("/usr/bin/pgrep", ["-f", "(--port (\(ports))|-p \(base + 10))"])
        #expect(left.status == 1, "a process of the demo is still running: \(left.output)")
    }

    @Test(
        "a writer killed (-9) while writing through shards, searched meanwhile, leaves whole items, and a re-run completes it"
    )
    func writerKilled() throws {
        let workspace = try Workspace()
        let cluster = try Cluster(in: workspace)
        let lines = (1...6000).map {
            #"{"canonicalIdentifier":"item/\#($0)","title":"title one \#($0)","contentDescription":"description one \#($0)","contentIndexMode":"public"}"#
        }
        let file = try workspace.write("items.jsonl", lines.joined(separator: "\n") + "\n")
        let writer = try startBinary(["index", file, "--index", cluster.topology, "--now", corpusNow])
        let search = ["search", "title", "--all-domains", "--index", cluster.topology, "--now", corpusNow, "--json"]
        let killAt = Date().addingTimeInterval(Double.random(in: 0.1...0.8))
        while Date() < killAt {
            let run = try workspace.run(search)
            #expect(run.status == 0, "\(run.stderr)")
            if run.status == 0 { expectWholeItems(try run.object()) }
        }
        kill(writer.processIdentifier, SIGKILL)
        writer.finish()
        let after = try workspace.run(search)
        #expect(after.status == 0, "\(after.stderr)")
        expectWholeItems(try after.object())
        #expect(try workspace.run(["index", file, "--index", cluster.topology, "--now", corpusNow]).status == 0)
        let complete = try workspace.run(["stats", "--index", cluster.topology, "--now", corpusNow, "--json"]).object()
        #expect(complete["documents"] as? Int == 6000)
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
