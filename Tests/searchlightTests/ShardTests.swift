import Foundation
import SearchlightTesting
import Synchronization
import Testing

/// The identifiers of a search answer's results, in order.
func resultIdentifiers(_ body: String) -> [String] {
    let answer = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
    return (answer?["results"] as? [[String: Any]] ?? []).compactMap { $0["canonicalIdentifier"] as? String }
}

/// Three shards: the local folders of a writer's topology (`writer`), each served read-only on
/// loopback by `xapian-tcpsrv`, and the topology of those servers (`topology`), as a search
/// service on another machine names them.
struct Cluster {
    let servers: [LoopbackServer]
    let topology: String
    let writer: String

    init(in workspace: Workspace, idleTimeout: Int? = nil) throws {
        writer = try workspace.write("writer", "auto shard-1\nauto shard-2\nauto shard-3\n")
        // A server opens its shard's database, which the writer creates.
        let created = try workspace.run(["prune", "--index", writer])
        try #require(created.status == 0, "\(created.stderr)")
        servers = try (1...3).map {
            try LoopbackServer.shard(folder: workspace.path + "/shard-\($0)", idleTimeout: idleTimeout)
        }
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
    func answers(_ workspace: Workspace, index: String) throws -> [(
        total: Int, estimated: Bool, ids: [String], scores: [Int]
    )] {
        try Self.queries.map { query in
            // Exact words: a topology does not look for typos (docs/reference.md, *Typos*).
            let run = try workspace.run(
                ["search"] + query + [
                    "--index", index, "--now", corpusNow, "--limit", "400", "--json", "--typos", "off",
                ])
            #expect(run.status == 0, "\(query): \(run.stderr)")
            let answer = try run.object()
            let results = answer["results"] as? [[String: Any]] ?? []
            return (
                answer["total"] as? Int ?? -1,
                answer["totalIsEstimate"] as? Bool ?? true,
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
        let local = cluster.writer
        for index in [local, one] {
            let run = try workspace.run(["index", repositoryRoot + "/corpus", "--index", index, "--now", corpusNow])
            #expect(run.status == 0, "\(run.stderr)")
        }
        // Views, recorded alike in both: a viewed item gains as much, and every result is rated
        // alike, over shards (where Xapian's own posting sources read them) as on one index.
        for index in [local, one] {
            for (identifier, domain, count) in [
                ("article/deep-linking-005", "com.example.blog", 30), ("video/s1e02", "com.example.video", 5),
            ] {
                let identifiers = Array(repeating: identifier, count: count)
                let run = try workspace.run(
                    ["view"] + identifiers + ["--domain", domain, "--index", index, "--now", corpusNow])
                #expect(run.status == 0, "\(run.stderr)")
            }
        }
        // The same totals, items, scores and order, ties included: a topology runs the query one
        // index runs, and its writer gives each item the document id one index gives it.
        let remote = try answers(workspace, index: cluster.topology)
        // Views never lower a percentage: the best match, which nobody viewed, still rates 100.
        let deepLinking = try #require(Self.queries.firstIndex(of: ["deep linking", "--all-domains"]))
        #expect(remote[deepLinking].scores.first == 100 && remote[deepLinking].ids.first?.hasSuffix("-006") == true)
        #expect(remote[deepLinking].ids.contains("com.example.blog/article/deep-linking-005"))
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
        for index in [cluster.writer, one] {
            let run = try workspace.run(["index", repositoryRoot + "/corpus", "--index", index, "--now", corpusNow])
            #expect(run.status == 0, "\(run.stderr)")
        }
        let tokens = try writeTokens(workspace)
        let servers = try [
            RunningServer(index: one, tokens: tokens, extra: ["--prune-interval", "none"]),
            RunningServer(index: cluster.topology, tokens: tokens, extra: ["--read-only"]),
        ]
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
                // Exact words: a topology does not look for typos (docs/reference.md, *Typos*).
                "GET", server.baseURL + "/v1/search?" + query + "&limit=50&semanticRatio=0&typos=false", token: token)
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

    @Test(
        "a large file indexed through shards is built in bulk into each shard's next generation, and answers as one index of the same items, ties included"
    )
    func bulkBuiltAsOneIndex() throws {
        let workspace = try Workspace()
        let cluster = try Cluster(in: workspace)
        // The corpus eight times over (each copy's items named apart): 1.4 MB, and ties everywhere.
        let reference = workspace.path + "/corpus-index"
        #expect(try workspace.run(["index", repositoryRoot + "/corpus", "--index", reference]).status == 0)
        let exported = try workspace.run(["export", "--all-domains", "--index", reference])
        let items = exported.stdout.split(separator: "\n").map(String.init)
        let lines = (1...8).flatMap { copy in
            items.map {
                $0.replacingOccurrences(
                    of: #""$canonical_identifier":""#, with: #""$canonical_identifier":"c\#(copy)/"#)
            }
        }
        let large = try workspace.write("large.jsonl", lines.joined(separator: "\n") + "\n")
        let indexed = try workspace.run(["index", large, "--index", cluster.writer, "--now", corpusNow, "--json"])
        #expect(indexed.status == 0, "\(indexed.stderr)")
        #expect(try indexed.object()["added"] as? Int == lines.count)
        for shard in 1...3 {
            let stub = try? String(contentsOfFile: workspace.path + "/shard-\(shard)/XAPIANDB", encoding: .utf8)
            #expect(stub == "auto gen-000001\n", "shard \(shard) has a new generation")
        }
        // One index built with one segment builder numbers the items in the order read, as the
        // topology's writer does (several builders number each one's items in turn).
        let one = workspace.path + "/one-index"
        #expect(try workspace.run(["index", large, "--jobs", "1", "--index", one, "--now", corpusNow]).status == 0)
        // Totals the matcher estimates (an empty query seen by one domain, here) are estimated
        // from each shard's own figures, and may differ; so may whether one is exact.
        let single = try answers(workspace, index: one)
        for index in [cluster.topology, cluster.writer] {
            for (query, (a, b)) in zip(Self.queries, zip(try answers(workspace, index: index), single)) {
                #expect(a.ids == b.ids && a.scores == b.scores, "\(query) on \(index)")
                #expect(a.estimated || b.estimated || a.total == b.total, "\(query) on \(index)")
            }
        }
        // The same file again changes nothing: no shard commits.
        let again = try workspace.run(["index", large, "--index", cluster.writer, "--now", corpusNow, "--json"])
        #expect(try again.object()["unchanged"] as? Int == lines.count)
        let stats = try workspace.run(["stats", "--index", cluster.writer, "--json"]).object()
        let batches = (stats["shards"] as? [[String: Any]] ?? []).compactMap { $0["batch"] as? Int }
        #expect(batches == [1, 1, 1])
    }

    @Test(
        "a large file with a bad item, indexed through shards with --strict, writes nothing and leaves no build behind")
    func strictBulkWritesNothing() throws {
        let workspace = try Workspace()
        let cluster = try Cluster(in: workspace)
        let good = (1...2500).map {
            #"{"canonicalIdentifier":"item/\#($0)","title":"Item \#($0) \#(String(repeating: "padding ", count: 60))"}"#
        }
        let file = try workspace.write("large.jsonl", (good + [#"{"title":"no identifier"}"#]).joined(separator: "\n"))
        let run = try workspace.run(["index", file, "--index", cluster.writer, "--strict"])
        #expect(run.stdout.contains("--strict: nothing was written"), "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains("large.jsonl"), "the rejection names the file: \(run.stderr)")
        let stats = try workspace.run(["stats", "--index", cluster.writer, "--json"]).object()
        #expect(stats["documents"] as? Int == 0)
        #expect((stats["shards"] as? [[String: Any]] ?? []).compactMap { $0["batch"] as? Int } == [0, 0, 0])
        for shard in 1...3 {
            let names = try FileManager.default.contentsOfDirectory(atPath: workspace.path + "/shard-\(shard)")
            #expect(!names.contains { $0.hasPrefix("gen-") || $0.hasPrefix("build-") }, "shard \(shard): \(names)")
        }
        #expect(!FileManager.default.fileExists(atPath: cluster.writer + ".journal"))
        // Without --strict, the good items go in, built in bulk.
        let again = try workspace.run(["index", file, "--index", cluster.writer, "--json"])
        #expect(try again.object()["added"] as? Int == good.count)
        #expect(currentDatabase(workspace.path + "/shard-1").hasSuffix("gen-000001"))
    }

    @Test(
        "a topology ranks by meaning as one index of the same items: local shards, and shard servers with their vectors copies"
    )
    func meaningAsOneIndex() throws {
        let workspace = try Workspace()
        let cluster = try Cluster(in: workspace)
        let one = workspace.path + "/one-index"
        for index in [cluster.writer, one] {
            let run = try workspace.run(
                ["index", repositoryRoot + "/corpus", "--index", index, "--now", corpusNow, "--json"],
                environment: withMeaning)
            #expect(run.status == 0, "\(run.stderr)")
            #expect((try run.object()["embedded"] as? Int ?? 0) > 200, "\(run.stdout)")
        }
        /// A search's or similar's answer: its total, and each result's item, score and what found it.
        func answer(_ arguments: [String], index: String) throws -> String {
            let run = try workspace.run(
                arguments + ["--index", index, "--now", corpusNow, "--limit", "50", "--json"], environment: withMeaning)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            let object = try run.object()
            let results = (object["results"] as? [[String: Any]] ?? []).map {
                "\($0["domain"] ?? "")/\($0["canonicalIdentifier"] ?? "") \($0["score"] ?? "") \($0["matchedBy"] ?? "")"
            }
            return "total \(object["total"] ?? "none"): " + results.joined(separator: ", ")
        }
        // Shard servers run no code of Searchlight's: without their vectors copies, their topology is
        // searched by words alone, and a search that names a ratio, or similar, says so.
        let words = ["search", "deep linking", "--all-domains", "--typos", "off"]
        #expect(
            try answer(words, index: cluster.topology) == (try answer(words + ["--semantic-ratio", "0"], index: one)))
        for arguments in [words + ["--semantic-ratio", "0.5"], ["similar", "article/deep-linking-005"]] {
            let run = try workspace.run(arguments + ["--index", cluster.topology], environment: withMeaning)
            #expect(run.status == 1 && run.stderr.contains("code 2022"), "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("vectors copies"), "\(run.stderr)")
        }
        // The writer keeps each shard's vectors copy beside it; listed beside the servers' topology (here
        // the writer's own copies, as xapian-replicate would bring them), they rank it by meaning.
        let copies = workspace.path + "/cluster.meaning"
        try "auto shard-1.meaning\nauto shard-2.meaning\n".write(toFile: copies, atomically: true, encoding: .utf8)
        let short = try workspace.run(words + ["--index", cluster.topology], environment: withMeaning)
        #expect(short.status == 1 && short.stderr.contains("lists 2 copies for the 3 shards"), "\(short.stderr)")
        try "# the shards' vectors copies, in order\nauto shard-1.meaning\nauto shard-2.meaning\nauto shard-3.meaning\n"
            .write(toFile: copies, atomically: true, encoding: .utf8)

        // The shard tests' queries and questions nothing but meaning answers, at two ratios, in both
        // scopes; exact words, as a topology reads them (docs/reference.md, *Typos*).
        let questions = [["how do I send someone a link that opens the app"], ["a quick dinner for a weeknight"]]
            .flatMap { [$0 + ["--all-domains"], $0 + ["--domain", "com.example.blog"]] }
        var byMeaning = 0
        for query in Self.queries + questions {
            for ratio in ["0.3", "1"] {
                let arguments = ["search"] + query + ["--semantic-ratio", ratio, "--typos", "off"]
                let expected = try answer(arguments, index: one)
                #expect(try answer(arguments, index: cluster.writer) == expected, "local shards: \(arguments)")
                #expect(try answer(arguments, index: cluster.topology) == expected, "shard servers: \(arguments)")
                if expected.contains("meaning") { byMeaning += 1 }
            }
        }
        #expect(byMeaning > 10, "\(byMeaning) answers found by meaning")
        for (identifier, scope) in [
            ("article/deep-linking-005", ["--all-domains"]), ("video/s1e02", ["--domain", "com.example.video"]),
            ("article/link-attribution-050", ["--domain", "com.example.blog", "--query", "title:attribution"]),
        ] {
            let arguments = ["similar", identifier] + scope
            let expected = try answer(arguments, index: one)
            #expect(try answer(arguments, index: cluster.writer) == expected, "local shards: \(arguments)")
            #expect(try answer(arguments, index: cluster.topology) == expected, "shard servers: \(arguments)")
            #expect(expected.contains("meaning"), "\(arguments): \(expected)")
        }
        // Read-only services keep compact codes of the vectors: over the shard servers, one a copy,
        // estimated as one index's and the nearest by estimate across them compared in full.
        let services = try [one, cluster.topology].map {
            try RunningServer(index: $0, extra: ["--read-only"], environment: withMeaning)
        }
        defer { for service in services { _ = service.stop() } }
        let texts = [
            "deep linking", "how do I send someone a link that opens the app", "a quick dinner for a weeknight",
            "recette", "deep -universal", "title:deep", "\"deep linking\"",
        ]
        for text in texts {
            for ratio in ["0.3", "1"] {
                let query =
                    "/v1/search?typos=false&limit=50&semanticRatio=\(ratio)&q="
                    + (text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
                let pages = services.map { service -> String in
                    guard let answer = blockingGet(service.baseURL + query), answer.status == 200,
                        let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
                    else { return "no answer" }
                    return "\(object["total"] ?? "none"): "
                        + (object["results"] as? [[String: Any]] ?? []).map {
                            "\($0["canonicalIdentifier"] ?? "") \($0["score"] ?? "") \($0["matchedBy"] ?? "")"
                        }.joined(separator: ", ")
                }
                #expect(pages[0] == pages[1], "through services: \(text) at \(ratio)")
                #expect(pages[0] != "no answer")
            }
        }
    }

    @Test(
        "shard servers' vectors copies follow the writer, and a page is read from them as one index shows it: a removal, an item made private, an item's title changed, a bulk batch, a copy of the earlier form, a lost copy, a copy cut short"
    )
    func meaningCopiesFollowTheWriter() throws {
        let workspace = try Workspace()
        let cluster = try Cluster(in: workspace)
        let one = workspace.path + "/one-index"
        try "auto shard-1.meaning\nauto shard-2.meaning\nauto shard-3.meaning\n"
            .write(toFile: workspace.path + "/cluster.meaning", atomically: true, encoding: .utf8)
        func onBoth(_ arguments: [String]) throws {
            for index in [cluster.writer, one] {
                let run = try workspace.run(arguments + ["--index", index], environment: withMeaning)
                #expect(run.status == 0, "\(arguments): \(run.stderr)")
            }
        }
        /// Hybrid searches and similar, through the shard servers and their copies, and in one index.
        func expectSame(_ step: String) throws {
            let searches = [
                ["search", "deep linking", "--all-domains"],
                ["search", "link attribution", "--domain", "com.example.blog"],
                ["search", "link attribution", "--domain", "com.example.shop"],
                ["search", "how do I send someone a link that opens the app", "--all-domains"],
                ["search", "deep -universal", "--domain", "com.example.blog"],
                // After the bulk batch, items without vectors: read from their servers, which no copy holds.
                ["search", "description one file", "--all-domains"],
                ["similar", "video/s1e02", "--all-domains"],
            ]
            let asked = searches.map { $0[0] == "search" ? $0 + ["--semantic-ratio", "0.5", "--typos", "off"] : $0 }
            for arguments in asked {
                let page = { (index: String) throws -> String in
                    let run = try workspace.run(
                        arguments + ["--index", index, "--now", corpusNow, "--limit", "30", "--json"],
                        environment: withMeaning)
                    #expect(run.status == 0, "\(step), \(arguments): \(run.stderr)")
                    let object = try run.object()
                    return "\(object["total"] ?? "none") "
                        + (object["results"] as? [[String: Any]] ?? []).map {
                            "\($0["canonicalIdentifier"] ?? "") \($0["score"] ?? "") \($0["matchedBy"] ?? "") "
                                + "\($0["title"] ?? "") \($0["snippet"] ?? "") \($0["keywords"] ?? "")"
                        }.joined(separator: ", ")
                }
                #expect(try page(cluster.topology) == (try page(one)), "\(step): \(arguments)")
            }
        }
        try onBoth(["index", repositoryRoot + "/corpus", "--now", corpusNow])
        try expectSame("the corpus")
        try onBoth(["remove", "article/deep-linking-005", "--domain", "com.example.blog", "--include-public"])
        try expectSame("a removal")
        // An item made private: the copy's terms of visibility change with it.
        let articles =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: repositoryRoot + "/corpus/articles.json")))
            as? [[String: Any]]
        var item = try #require(
            articles?.first { $0["$canonical_identifier"] as? String == "article/link-attribution-050" })
        item["$publicly_indexable"] = false
        let changed = workspace.path + "/private.json"
        try JSONSerialization.data(withJSONObject: [item]).write(to: URL(fileURLWithPath: changed))
        try onBoth(["index", changed, "--now", corpusNow])
        try expectSame("an item made private")
        // A page shows what the item holds now: the copy's data follows the shard's.
        var retitled = try #require(
            articles?.first { $0["$canonical_identifier"] as? String == "article/deep-linking-004" })
        retitled["$og_title"] = "Deep linking, retitled for the shard copies"
        try JSONSerialization.data(withJSONObject: [retitled]).write(to: URL(fileURLWithPath: changed))
        try onBoth(["index", changed, "--now", corpusNow])
        try expectSame("an item's title changed")
        // A bulk batch publishes each shard's next generation, whose copy is compared whole.
        try writeBatch(workspace, folder: "bulk", files: 3, items: 1_500, filler: 40)
        try onBoth(["index", workspace.path + "/bulk", "--no-meaning", "--now", corpusNow])
        try expectSame("a bulk batch")
        let unembedded = try workspace.run(
            ["search", "description one file", "--all-domains", "--index", cluster.topology, "--json"],
            environment: withMeaning)
        let shown = (try unembedded.object()["results"] as? [[String: Any]] ?? []).compactMap {
            $0["title"] as? String
        }
        #expect(shown.contains { $0.hasPrefix("title one ") }, "\(shown)")
        // A copy of the earlier form (its items without their data) is compared item by item, and
        // written again in this form.
        let copy = workspace.path + "/shard-1.meaning"
        let earlier = try runProgram("/usr/bin/xapian-metadata", ["set", copy, "searchlight.meaning_copy.form", "1"])
        #expect(earlier.status == 0, "\(earlier.output)")
        let rewritten = try workspace.run(["prune", "--index", cluster.writer, "--now", corpusNow])
        #expect(rewritten.status == 0, "\(rewritten.stderr)")
        let form = try runProgram("/usr/bin/xapian-metadata", ["get", copy, "searchlight.meaning_copy.form"])
        #expect(form.output.trimmingCharacters(in: .whitespacesAndNewlines) == "2", "\(form.output)")
        try expectSame("a copy of the earlier form")
        // A lost copy is made again by the next writer.
        try FileManager.default.removeItem(atPath: workspace.path + "/shard-2.meaning")
        let prune = try workspace.run(["prune", "--index", cluster.writer, "--now", corpusNow])
        #expect(prune.status == 0, "\(prune.stderr)")
        try expectSame("a lost copy")
        // A copy whose making was cut short (its writer killed before Xapian wrote its version file)
        // is made again whole.
        try FileManager.default.removeItem(atPath: workspace.path + "/shard-3.meaning/iamglass")
        let remade = try workspace.run(["prune", "--index", cluster.writer, "--now", corpusNow])
        #expect(remade.status == 0, "\(remade.stderr)")
        try expectSame("a copy cut short")
    }

    @Test(
        "shard servers rank by meaning over the vectors copies xapian-replicate follows: their replicators killed (-9) while batches with vectors are written, no search fails or shows part of a batch, and the pages end as the writer's"
    )
    func meaningCopiesReplicated() async throws {
        let workspace = try Workspace()
        try FileManager.default.createDirectory(atPath: workspace.path + "/writer", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: workspace.path + "/search", withIntermediateDirectories: true)
        let writer = try workspace.write("writer/cluster", "auto shard-1\nauto shard-2\nauto shard-3\n")
        let environment = withMeaning.merging(Batches.changesets) { $1 }
        let corpus = try workspace.run(
            ["index", repositoryRoot + "/corpus", "--index", writer, "--now", corpusNow], environment: environment)
        try #require(corpus.status == 0, "\(corpus.stderr)")
        let master = try LoopbackServer(program: "/usr/bin/xapian-replicate-server") { port in
            ["--interface", "127.0.0.1", "--port", String(port), workspace.path + "/writer"]
        }
        let machines = try (1...3).map { try ShardMachine(shard: $0, replicationPort: master.port, in: workspace) }
        // The search service's machine follows each shard's vectors copy, as the shard machines follow
        // the shards.
        let copies = try (1...3).map { shard in
            let folder = workspace.path + "/search/shard-\(shard)"
            let first = try runProgram(
                "/usr/bin/xapian-replicate",
                ["-h", "127.0.0.1", "-p", String(master.port), "-m", "shard-\(shard).meaning", "-o", "-q", folder])
            try #require(first.status == 0, "\(first.output)")
            return try Replicator(
                port: master.port, master: "shard-\(shard).meaning", replica: folder,
                primary: workspace.path + "/writer/shard-\(shard).meaning")
        }
        let topology = try workspace.write("cluster", machines.map(\.server.shardLine).joined(separator: "\n") + "\n")
        _ = try workspace.write("cluster.meaning", (1...3).map { "auto search/shard-\($0)" }.joined(separator: "\n"))

        /// A hybrid search's page: each result's item, score and what found it.
        @Sendable func page(_ query: String, _ index: String) throws -> (status: Int32, ids: [String], text: String) {
            let run = try workspace.run(
                ["search", query, "--all-domains", "--semantic-ratio", "0.5", "--typos", "off", "--limit", "60"]
                    + ["--index", index, "--now", corpusNow, "--json"], environment: withMeaning)
            guard run.status == 0 else { return (run.status, [], run.stderr) }
            let results = try run.object()["results"] as? [[String: Any]] ?? []
            let ids = results.filter { "\($0["matchedBy"] ?? "")".contains("words") }
                .compactMap { $0["canonicalIdentifier"] as? String }
            let text = results.map {
                "\($0["canonicalIdentifier"] ?? "") \($0["score"] ?? "") \($0["matchedBy"] ?? "")"
            }
            return (0, ids, text.joined(separator: ", "))
        }
        // A read-only service over the shard servers and the copies searches throughout: a batch's three
        // items, matched by their words, come together.
        let service = try RunningServer(index: topology, extra: ["--read-only"], environment: withMeaning)
        defer { _ = service.stop() }
        let (stop, searches) = (Flag(), Counter())
        let url = service.baseURL + "/v1/search?q=lighthouse%20keeper&semanticRatio=0.5&limit=60"
        let reader = OnThread {
            var failures: [String] = []
            while !stop.isSet {
                let answer = blockingGet(url)
                guard let answer, answer.status == 200,
                    let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
                else {
                    failures.append(
                        answer.map { "\($0.status): \(String(decoding: $0.body, as: UTF8.self))" } ?? "no answer")
                    continue
                }
                let batch = (object["results"] as? [[String: Any]] ?? []).filter {
                    "\($0["matchedBy"] ?? "")".contains("words")
                        && ($0["canonicalIdentifier"] as? String ?? "").hasPrefix("replicated/")
                }
                if batch.count % 3 != 0 { failures.append("part of a batch: \(batch.count) items") }
                searches.set(searches.current + 1)
                usleep(100_000)
            }
            return failures
        }
        var written = 0
        var kills = 0
        while (kills < 10 || written < 4 || searches.current < 20) && written < 20 {
            written += 1
            let items = (1...3).map {
                #"{"$canonical_identifier":"replicated/\#(written)-\#($0)","$og_title":"Lighthouse keeper \#(written)","#
                    + #""$og_description":"Notes of a lighthouse keeper on the coast, batch \#(written)","#
                    + #""$publicly_indexable":true}"#
            }
            let file = try workspace.write("batch-\(written).jsonl", items.joined(separator: "\n") + "\n")
            let writing = try startBinary(
                ["index", file, "--index", writer, "--now", corpusNow], environment: environment)
            while writing.isRunning {
                try await Task.sleep(for: .milliseconds(Int.random(in: 50...400)))
                // A replicator is killed again once it has recovered (`Replicator.hasRecovered`).
                guard let copy = copies.filter(\.hasRecovered).randomElement() else { continue }
                copy.kill()
                kills += 1
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...300)))
                try copy.start()
            }
            let finished = writing.finish()
            #expect(finished.status == 0, "batch \(written): \(finished.stderr)")
            // Half a second apart, as `shardMachineKilled`'s small batches: readers wait for a batch
            // every shard and copy holds, which a batch every moment would keep them waiting for.
            try await Task.sleep(for: .milliseconds(500))
        }
        // The copies catch up, and the shard servers with them answer as the writer's shards.
        let expected = try page("lighthouse keeper", writer)
        let deadline = Date().addingTimeInterval(60)
        while try page("lighthouse keeper", topology).text != expected.text, Date() < deadline {
            try await Task.sleep(for: .milliseconds(200))
        }
        stop.set()
        let failures = try reader.value()
        print("ShardTests.meaningCopiesReplicated: \(written) batches, \(kills) kills, \(searches.current) searches")
        for replicator in copies + machines.map(\.replicator) {
            replicator.printExits(in: "ShardTests.meaningCopiesReplicated")
        }
        #expect(failures.isEmpty, "\(failures.count) of \(searches.current): \(failures.prefix(3))")
        #expect(searches.current > 10)
        #expect(expected.ids.filter { $0.hasPrefix("replicated/") }.count == 3 * written, "\(expected.ids)")
        for query in ["lighthouse keeper", "how do I send someone a link that opens the app", "deep -universal"] {
            #expect(try page(query, topology).text == (try page(query, writer)).text, "\(query)")
        }
        for copy in copies { copy.kill() }
        for shard in 1...3 {
            // The live copy the replica's stub names.
            let folder = workspace.path + "/search/shard-\(shard)"
            let stub = (try? String(contentsOfFile: folder + "/XAPIANDB", encoding: .utf8)) ?? ""
            let live = stub.split(separator: "\n").first { $0.hasPrefix("auto ") }?.dropFirst(5) ?? ""
            let check = try runProgram("/usr/bin/xapian-check", [folder + "/" + live])
            #expect(check.status == 0, "copy \(shard): \(check.output)")
        }
        withExtendedLifetime((master, machines)) {}
    }

    @Test("indexing the same files again through shards changes nothing")
    func stableRouting() throws {
        let workspace = try Workspace()
        let cluster = try Cluster(in: workspace)
        let arguments = [
            "index", repositoryRoot + "/corpus", "--index", cluster.writer, "--now", corpusNow, "--json",
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
            "remove", "note/private-001", "--domain", "com.example.blog", "--index", cluster.writer, "--json",
        ])
        #expect(removed.status == 0 || removed.status == 1, "\(removed.stderr)")
    }

    @Test("stats lists the shards at the batches they hold when these differ: a shard machine behind")
    func statsOfShardsAtDifferentBatches() throws {
        let workspace = try Workspace()
        let writer = try workspace.write("writer", "auto shard-1\nauto shard-2\nauto shard-3\n")
        let corpus = ["index", repositoryRoot + "/corpus", "--index", writer, "--now", corpusNow]
        #expect(try workspace.run(corpus).status == 0)
        let behind = workspace.path + "/shard-2"
        try FileManager.default.copyItem(atPath: behind, toPath: behind + ".batch-1")
        let more = try workspace.write(
            "more.jsonl",
            (1...30).map { #"{"canonicalIdentifier":"more/\#($0)","title":"More \#($0)"}"# }.joined(separator: "\n"))
        #expect(try workspace.run(["index", more, "--index", writer, "--now", corpusNow]).status == 0)
        // Shard 2 as a replica that has not yet followed batch 2.
        try FileManager.default.removeItem(atPath: behind)
        try FileManager.default.moveItem(atPath: behind + ".batch-1", toPath: behind)

        let stats = try workspace.run(["stats", "--index", writer, "--now", corpusNow, "--json"])
        #expect(stats.status == 0, "\(stats.stderr)")
        let shards = try #require(try stats.object()["shards"] as? [[String: Any]])
        #expect(shards.compactMap { $0["batch"] as? Int } == [2, 1, 2])
        let counts = shards.compactMap { $0["documents"] as? Int }
        #expect(counts.reduce(0, +) == (try stats.object()["documents"] as? Int))
        let text = try workspace.run(["stats", "--index", writer, "--now", corpusNow])
        #expect(text.status == 0 && text.stdout.contains("The shards hold different batches"), "\(text.stdout)")
        #expect(text.stdout.contains("batch 1") && text.stdout.contains("batch 2"))
    }

    @Test(
        "a shard that cannot be reached is named, exits 69, and answers again once restarted; remote shards refuse writes"
    )
    func unreachableShard() throws {
        let workspace = try Workspace()
        let cluster = try Cluster(in: workspace)
        #expect(
            try workspace.run(["index", repositoryRoot + "/corpus", "--index", cluster.writer, "--now", corpusNow])
                .status == 0)
        let search = ["search", "deep", "--all-domains", "--index", cluster.topology, "--now", corpusNow, "--json"]
        let before = try workspace.run(search).object()
        let down = cluster.servers[1]
        down.kill()
        for arguments in [search, ["stats", "--index", cluster.topology]] {
            let run = try workspace.run(arguments)
            #expect(run.status == 69, "\(arguments[0]): \(run.stderr)")
            #expect(run.stderr.contains("127.0.0.1:\(down.port)"), "\(arguments[0]): \(run.stderr)")
            #expect(run.stdout.isEmpty || !run.stdout.contains("results"))
        }
        try down.start()
        let after = try workspace.run(search).object()
        #expect(after["total"] as? Int == before["total"] as? Int)
        // A topology of remote shards is read: the writer's topology of local folders is written.
        let write = try workspace.run(["index", repositoryRoot + "/corpus", "--index", cluster.topology])
        #expect(write.status == 1 && write.stderr.contains("code 2014"), "\(write.stderr)")
        #expect(
            write.stderr.contains("127.0.0.1:\(cluster.servers[0].port)") && write.stderr.contains("xapian-replicate"))
    }

    @Test("serve over shards answers 503 naming a shard that cannot be reached, and heals once it is back")
    func serviceUnavailable() async throws {
        let workspace = try Workspace()
        let cluster = try Cluster(in: workspace)
        #expect(
            try workspace.run(["index", repositoryRoot + "/corpus", "--index", cluster.writer, "--now", corpusNow])
                .status == 0)
        let service = try RunningServer(
            index: cluster.topology, tokens: try writeTokens(workspace), extra: ["--read-only"])
        let search = service.baseURL + "/v1/search?q=deep&limit=100"
        let before = try await http("GET", search)
        #expect(before.status == 200)
        let down = cluster.servers[0]
        down.kill()
        for url in [search, service.baseURL + "/v1/stats"] {
            let response = try await http("GET", url, token: shopToken)
            #expect(response.status == 503, "\(url): \(response.body)")
            #expect(response.body.contains(#""code":1010"#) && response.body.contains("127.0.0.1:\(down.port)"))
        }
        try down.start()
        let after = try await http("GET", search)
        #expect(after.status == 200 && resultIdentifiers(after.body) == resultIdentifiers(before.body))
        #expect(!resultIdentifiers(before.body).isEmpty)
        #expect(service.stop() == 0)
    }

    @Test("serve reads on after the shard servers close its idle connections, and follows each write")
    func idleConnections() async throws {
        let workspace = try Workspace()
        let cluster = try Cluster(in: workspace, idleTimeout: 300)
        let service = try RunningServer(
            index: cluster.topology, tokens: try writeTokens(workspace), extra: ["--read-only"])
        for round in 1...3 {
            let file = try workspace.write(
                "idle-\(round).json", #"{"$canonical_identifier":"idle/\#(round)","$og_title":"Idle lantern"}"#)
            let write = try workspace.run(["index", file, "--index", cluster.writer, "--domain", "com.example.shop"])
            #expect(write.status == 0, "\(write.stderr)")
            let search = try await http("GET", service.baseURL + "/v1/search?q=lantern", token: shopToken)
            #expect(search.status == 200 && resultIdentifiers(search.body).count == round, "\(search.body)")
            try await Task.sleep(for: .milliseconds(800))  // every connection is closed meanwhile
        }
        #expect(service.stop() == 0)
    }

    @Test("scripts/cluster-demo runs a writer, three shard machines and a search service, and stops them all")
    func clusterDemo() throws {
        // Below Linux's ephemeral range (32768 and up), where a concurrent test's client socket
        // could hold one of the demo's ports.
        let base = Int.random(in: 20_000..<32_000)
        let (status, printed) = try runProgram(
            repositoryRoot + "/scripts/cluster-demo", [],
            environment: ["SEARCHLIGHT_BINARY": binaryPath, "CLUSTER_PORT": String(base)])
        #expect(status == 0, "\(printed)")
        #expect(printed.contains("$ searchlight index corpus") && printed.contains("127.0.0.1:\(base + 3)"))
        #expect(printed.contains("the search service served it") && printed.contains("Replicated lighthouse"))
        // The words are batch 1; the vectors of meaning, 128 items a batch, the batches after it.
        #expect(printed.contains("127.0.0.1:\(base + 1)") && printed.contains("given a vector of meaning"))
        #expect(printed.range(of: #"items \([^)]*\), batch [2-9]"#, options: .regularExpression) != nil, "\(printed)")
        #expect(printed.contains(#""code":2014"#) && printed.contains("http://127.0.0.1:\(base + 21)"))
        // The search service's machine follows the shards' vectors copies, and ranks by meaning over them.
        #expect(printed.contains("auto meaning/shard-3") && printed.contains("video/s1e12"), "\(printed)")
        let ports = [1, 2, 3, 10, 20, 21].map { String(base + $0) }.joined(separator: "|")
        let left = try runProgram("/usr/bin/pgrep", ["-f", "(--port (\(ports))|-p \(base + 10))"])
        #expect(left.status == 1, "a process of the demo is still running: \(left.output)")
    }
}
