import Foundation
import SearchlightTesting
import Testing

let hostileInputFolder = repositoryRoot + "/Tests/hostile-input"

/// Writes `files` JSON Lines files of `items` items each; item j of file i is `f<i>/<j>`. `filler`
/// words lengthen each description, so that a run passes the limit of direct writes and is built
/// in segments.
func writeBatch(
    _ workspace: Workspace, folder: String, files: Int, items: Int, version: String = "one", filler: Int = 0
) throws {
    let padding = (0..<filler).map { " filler\($0)" }.joined()
    for file in 0..<files {
        let lines = (0..<items).map { item in
            #"{"$canonical_identifier":"f\#(file)/\#(item)","$og_title":"title \#(version) \#(item)","#
                + #""$og_description":"description \#(version) of file \#(file)\#(padding)","#
                + #""$publicly_indexable":true}"#
        }
        try workspace.write("\(folder)/f\(String(format: "%03d", file)).jsonl", lines.joined(separator: "\n") + "\n")
    }
}

/// Each result of a search page is whole: its title and description of one version (`writeBatch`).
func expectWholeItems(_ page: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) {
    for result in page["results"] as? [[String: Any]] ?? [] {
        let title = result["title"] as? String ?? ""
        let description = result["contentDescription"] as? String ?? ""
        let version = title.hasPrefix("title two") ? "two" : "one"
        #expect(
            description.hasPrefix("description \(version) "), "\(title) / \(description)",
            sourceLocation: sourceLocation)
    }
}

/// Every item of the index, from `searchlight export --all-domains`.
func exportedItems(_ workspace: Workspace, index: String? = nil) throws -> [[String: Any]] {
    let run = try workspace.run(["export", "--all-domains", "--index", index ?? workspace.index])
    #expect(run.status == 0, "\(run.stderr)")
    return try run.stdout.split(separator: "\n").map {
        try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
}

/// The generation folders in an index folder.
func generationFolders(_ index: String) -> Set<String> {
    Set(((try? FileManager.default.contentsOfDirectory(atPath: index)) ?? []).filter { $0.hasPrefix("gen-") })
}

/// Runs `search` again and again while `run` is running; how many of them started while it ran.
/// The last one may start as it ends, so at least one search always runs.
func searchWhile(_ run: BackgroundRun, _ search: () throws -> Void) rethrows -> Int {
    var overlapping = 0
    repeat {
        let running = run.isRunning
        try search()
        if running { overlapping += 1 }
    } while run.isRunning
    return overlapping
}

@Suite("Reliability", .temporaryFolder)
struct ReliabilityTests {
    @Test("killed with SIGKILL mid-write, the index stays whole: the run is all there or absent")
    func killedMidWrite() throws {
        let workspace = try Workspace()
        let files = 60
        let perFile = 40
        try writeBatch(workspace, folder: "in", files: files, items: perFile)
        var random = SystemRandomNumberGenerator()
        for run in 0..<20 {
            let process = try startBinary(
                ["index", workspace.path + "/in", "--index", workspace.index])
            Thread.sleep(forTimeInterval: Double.random(in: 0.02...1.5, using: &random))
            kill(process.processIdentifier, SIGKILL)
            process.finish()
            guard FileManager.default.fileExists(atPath: workspace.index + "/iamglass") else { continue }
            try checkWithXapian(workspace.index)
            var perFileCounts: [String: Int] = [:]
            for item in try exportedItems(workspace) {
                let id = try #require(item["$canonical_identifier"] as? String)
                perFileCounts[String(id.split(separator: "/")[0]), default: 0] += 1
            }
            for (file, count) in perFileCounts {
                #expect(count == perFile, "run \(run): file \(file) has \(count) of \(perFile) items")
            }
            #expect(perFileCounts.isEmpty || perFileCounts.count == files, "run \(run): \(perFileCounts.count) files")
            // The run's commit chose the index's common words (2,400 items) and gave every item its
            // pairs with it: a phrase of them is found in every item, or the run is absent.
            if !perFileCounts.isEmpty { try expectPhrasesEverywhere(workspace, items: files * perFile, "run \(run)") }
        }
        let finish = try workspace.run(["index", workspace.path + "/in", "--json"])
        #expect(finish.status == 0)
        #expect(try exportedItems(workspace).count == files * perFile)
        try checkWithXapian(workspace.index)
        try expectPhrasesEverywhere(workspace, items: files * perFile, "finished")
    }

    /// Phrases every item of `writeBatch` holds, of words the index chose as common, are counted in
    /// every item.
    private func expectPhrasesEverywhere(_ workspace: Workspace, items: Int, _ when: String) throws {
        #expect(try indexMetadata(workspace.index, "cx.common-words").hasPrefix("2\n"), "\(when)")
        for phrase in ["description one", "one of file"] {
            let search = try workspace.run(["search", "\"\(phrase)\"", "--all-domains", "--limit", "0", "--json"])
            #expect(try search.object()["total"] as? Int == items, "\(when): \(phrase)")
        }
    }

    @Test("killed with SIGKILL while an index is rebuilt into format 13, the old generation stays whole")
    func killedWhileUpgrading() throws {
        let workspace = try Workspace()
        let words = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta"]
        var seed: UInt64 = 0x2545
        func text(_ count: Int) -> String {
            (0..<count).map { _ in
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return words[Int(seed >> 33) % words.count]
            }.joined(separator: " ")
        }
        let lines = (0..<6_000).map { item in
            #"{"$canonical_identifier":"a/\#(item)","$og_title":"\#(text(4))","#
                + #""$og_description":"\#(text(30))","$publicly_indexable":true}"#
        }.joined(separator: "\n")
        #expect(try workspace.run(["index", try workspace.write("a.jsonl", lines + "\n")]).status == 0)
        let phrases = ["alpha beta", "gamma delta eps"]
        func totals() throws -> [Int] {
            try phrases.map { phrase in
                let search = try workspace.run(["search", "\"\(phrase)\"", "--limit", "0", "--json"])
                #expect(search.status == 0, "\(search.stderr)")
                return try search.object()["total"] as? Int ?? -1
            }
        }
        let expected = try totals()
        // Recorded as format 5, as an earlier release wrote it: the next writer rebuilds it.
        try setIndexFormat(workspace.index, "5")
        let before = workspace.path + "/before"
        try FileManager.default.copyItem(atPath: workspace.index, toPath: before)
        var random = SystemRandomNumberGenerator()
        var formats: Set<String> = []
        for run in 0..<8 {
            try? FileManager.default.removeItem(atPath: workspace.index)
            try FileManager.default.copyItem(atPath: before, toPath: workspace.index)
            let process = try startBinary(["compact", "--index", workspace.index])
            Thread.sleep(forTimeInterval: Double.random(in: 0.05...1.2, using: &random))
            kill(process.processIdentifier, SIGKILL)
            process.finish()
            try checkWithXapian(workspace.index)
            let format = try indexFormat(workspace.index)
            formats.insert(format)
            #expect(try exportedItems(workspace).count == 6_000, "run \(run)")
            if format == "13" {
                #expect(try totals() == expected, "run \(run)")
            } else {
                // Still the old generation: read, not searched until rebuilt.
                let search = try workspace.run(["search", "alpha"])
                #expect(search.status == 1 && search.stderr.contains("searchlight compact"), "\(search.stderr)")
            }
        }
        #expect(formats.isSubset(of: ["5", "13"]), "\(formats)")
        // A run that is not killed rebuilds it, and says so.
        let upgrade = try workspace.run(["compact"])
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        #expect(try indexFormat(workspace.index) == "13")
        #expect(try totals() == expected)
    }

    @Test(
        "an index written by an earlier release (format 5) is exported but not searched, saying how to rebuild it; the next write rebuilds it, and says so"
    )
    func upgradeFromFormatFive() throws {
        let workspace = try Workspace()
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("fixtures/format-5-index").path
        try? FileManager.default.removeItem(atPath: workspace.index)
        try FileManager.default.copyItem(atPath: fixture, toPath: workspace.index)
        let search = ["search", "tarte", "--domain", "fr.example.cuisine", "--json"]
        let before = try workspace.run(search)
        #expect(before.status == 1)
        #expect(
            before.stderr.contains("it is in index format 5, which its next writer rebuilds into format 13")
                && before.stderr.contains("rebuild it by writing it once, for example with searchlight compact"),
            "\(before.stderr)")
        #expect(try exportedItems(workspace).count == 70)
        let file = try workspace.write("new.json", #"{"$canonical_identifier":"new/1","$og_title":"Nouvelle tarte"}"#)
        let write = try workspace.run(["index", file, "--domain", "fr.example.cuisine"])
        #expect(write.status == 0, "\(write.stderr)")
        #expect(
            write.stderr.contains("Upgraded the index at \(workspace.index) from format 5 to format 13 (70 items)"),
            "\(write.stderr)")
        #expect(try indexFormat(workspace.index) == "13")
        try checkWithXapian(workspace.index)
        let after = try workspace.run(search).object()
        let ids = (after["results"] as? [[String: Any]] ?? []).compactMap { $0["canonicalIdentifier"] as? String }
        #expect(ids.contains("recette/01-classique") && ids.contains("new/1"), "\(ids)")
        // The next write has nothing to rebuild.
        #expect(try workspace.run(["index", file, "--domain", "fr.example.cuisine"]).stderr.isEmpty)
    }

    @Test("killed with SIGKILL mid bulk build, the index is exactly the old content or the new; strays go")
    func killedMidBulkBuild() throws {
        let workspace = try Workspace()
        // 3 files of 1,500 items, 1.9 MB: past the direct-write limit, so built in segments and merged.
        try writeBatch(workspace, folder: "v1", files: 3, items: 1_500, version: "one", filler: 40)
        try writeBatch(workspace, folder: "v2", files: 3, items: 1_500, version: "two", filler: 40)
        // The first build, timed under the machine's load now: the kills fall within twice that,
        // so that some land before the swap and some after however fast the machine is.
        let started = Date()
        #expect(try workspace.run(["index", workspace.path + "/v1"]).status == 0)
        var window = max(0.2, 2 * Date().timeIntervalSince(started))
        var random = SystemRandomNumberGenerator()
        var versions: Set<String> = []
        var current = "title one"
        for run in 0..<12 {
            // Alternate the versions, so that every run replaces every item.
            let version = current == "title one" ? "v2" : "v1"
            let process = try startBinary(["index", workspace.path + "/" + version, "--index", workspace.index])
            Thread.sleep(forTimeInterval: Double.random(in: 0.05...window, using: &random))
            let finished = !process.isRunning
            kill(process.processIdentifier, SIGKILL)
            process.finish()
            try checkWithXapian(workspace.index)
            let titles = Set(try exportedItems(workspace).map { ($0["$og_title"] as? String ?? "").prefix(9) })
            #expect(titles == ["title one"] || titles == ["title two"], "run \(run): \(titles)")
            versions.formUnion(titles.map(String.init))
            // The window follows the machine's load: longer after a kill before the swap, shorter
            // after a build that had finished, so that the kills keep falling on both sides.
            let swapped = titles != [Substring(current)]
            if finished { window = max(0.2, window * 0.75) } else if !swapped { window *= 1.25 }
            current = titles.first.map(String.init) ?? current
            #expect(try exportedItems(workspace).count == 4_500, "run \(run)")
            // The next write removes what the killed build left.
            let write = try workspace.write("one.json", #"{"$canonical_identifier":"extra","$og_title":"extra"}"#)
            #expect(try workspace.run(["index", write]).status == 0)
            let names = try FileManager.default.contentsOfDirectory(atPath: workspace.index)
            #expect(names.allSatisfy { !$0.hasPrefix("build-") }, "run \(run): \(names)")
            #expect(generationFolders(workspace.index).count <= 1, "run \(run): \(names)")
            #expect(try workspace.run(["remove", "extra"]).status == 0)
        }
        #expect(versions.count == 2, "the kills all fell on one side of the swap: \(versions)")
    }

    @Test("bulk builds that delete replaced items from the merged generation, or copy the others, leave it sound")
    func bulkMergesAreSound() throws {
        let workspace = try Workspace()
        try writeBatch(workspace, folder: "v1", files: 3, items: 1_500, version: "one", filler: 40)
        try writeBatch(workspace, folder: "v2", files: 3, items: 1_500, version: "two", filler: 40)
        #expect(try workspace.run(["index", workspace.path + "/v1"]).status == 0)
        // A third of the items change: the merge deletes the replaced ones. Then the other two
        // thirds change: it copies the 1,500 unchanged ones into the segments (each segment its
        // share, in parallel) and compacts the segments alone.
        for (files, updated) in [(["f000"], 1_500), (["f001", "f002"], 3_000)] {
            for file in files {
                try FileManager.default.removeItem(atPath: workspace.path + "/v1/\(file).jsonl")
                try FileManager.default.copyItem(
                    atPath: workspace.path + "/v2/\(file).jsonl", toPath: workspace.path + "/v1/\(file).jsonl")
            }
            let run = try workspace.run(["index", workspace.path + "/v1", "--json"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try run.object()["updated"] as? Int == updated)
            try checkWithXapian(workspace.index)
            #expect(try exportedItems(workspace).count == 4_500)
        }
        #expect(
            try exportedItems(workspace).allSatisfy { ($0["$og_title"] as? String)?.hasPrefix("title two") == true })
    }

    @Test("searches during bulk builds and their swaps never fail and see each item whole, old or new")
    func readersDuringBulkBuilds() throws {
        let workspace = try Workspace()
        try writeBatch(workspace, folder: "v1", files: 2, items: 2_000, version: "one", filler: 40)
        try writeBatch(workspace, folder: "v2", files: 2, items: 2_000, version: "two", filler: 40)
        #expect(try workspace.run(["index", workspace.path + "/v1"]).status == 0)
        // Builds alternate the versions until at least 4 searches ran during them, however fast
        // this machine builds.
        var searches = 0
        var round = 0
        while searches < 4 && round < 20 {
            let writer = try startBinary([
                "index", workspace.path + (round % 2 == 0 ? "/v2" : "/v1"), "--index", workspace.index,
            ])
            searches += try searchWhile(writer) {
                let run = try workspace.run(["search", "file", "--all-domains", "--limit", "50", "--json"])
                #expect(run.status == 0, "\(run.stderr)")
                let page = try run.object()
                #expect(page["total"] as? Int == 4_000)
                expectWholeItems(page)
            }
            let (status, stderr) = writer.finish()
            #expect(status == 0, "\(stderr)")
            round += 1
        }
        #expect(searches >= 4)
        #expect(generationFolders(workspace.index).count == 1)
    }

    @Test("killed with SIGKILL mid-compaction, the index is the old generation or the new, whole; strays go")
    func killedMidCompaction() throws {
        let workspace = try Workspace()
        try writeBatch(workspace, folder: "in", files: 20, items: 100)
        #expect(try workspace.run(["index", workspace.path + "/in"]).status == 0)
        let reference = try exportedItems(workspace).count
        var random = SystemRandomNumberGenerator()
        for run in 0..<20 {
            let process = try startBinary(["compact", "--index", workspace.index])
            Thread.sleep(forTimeInterval: Double.random(in: 0.0...0.25, using: &random))
            kill(process.processIdentifier, SIGKILL)
            process.finish()
            try checkWithXapian(workspace.index)
            #expect(try exportedItems(workspace).count == reference, "run \(run)")
            // The next write removes whatever the killed compaction left.
            let write = try workspace.write("one.json", #"{"$canonical_identifier":"f0/0","$og_title":"title one 0"}"#)
            #expect(try workspace.run(["index", write]).status == 0)
            let current = URL(fileURLWithPath: currentDatabase(workspace.index)).lastPathComponent
            let kept = generationFolders(workspace.index)
            if current.hasPrefix("gen-") {
                #expect(kept == [current], "run \(run): \(kept)")
            } else {
                #expect(kept.isEmpty, "run \(run): \(kept)")
            }
        }
        let finish = try workspace.run(["compact", "--json"])
        #expect(finish.status == 0, "\(finish.stderr)")
        #expect(try exportedItems(workspace).count == reference)
        try checkWithXapian(workspace.index)
        #expect(generationFolders(workspace.index).count == 1)
    }

    @Test("searches during compactions never fail and always see every item")
    func readersDuringCompactions() throws {
        let workspace = try Workspace()
        try writeBatch(workspace, folder: "in", files: 10, items: 60)
        #expect(try workspace.run(["index", workspace.path + "/in"]).status == 0)
        var searches = 0
        var compactions = 0
        while compactions < 8 || (searches < 2 && compactions < 40) {
            let compaction = try startBinary(["compact", "--index", workspace.index])
            searches += try searchWhile(compaction) {
                let run = try workspace.run(["search", "--all-domains", "--limit", "0", "--json"])
                #expect(run.status == 0, "\(run.stderr)")
                #expect(try run.object()["total"] as? Int == 600)
            }
            let (status, stderr) = compaction.finish()
            #expect(status == 0, "\(stderr)")
            compactions += 1
        }
        #expect(searches >= 2)
        #expect(generationFolders(workspace.index) == [String(format: "gen-%06d", compactions)])
    }

    @Test("two writers at once both succeed: the second waits for the first")
    func twoWriters() throws {
        let workspace = try Workspace()
        try writeBatch(workspace, folder: "a", files: 10, items: 100)
        for file in 0..<10 {
            let lines = (0..<100).map { #"{"$canonical_identifier":"b\#(file)/\#($0)","$og_title":"second writer"}"# }
            try workspace.write("b/b\(file).jsonl", lines.joined(separator: "\n"))
        }
        let processes = try ["a", "b"].map { folder in
            try startBinary([
                "index", workspace.path + "/" + folder, "--index", workspace.index,
            ])
        }
        for process in processes {
            let (status, stderr) = process.finish()
            #expect(status == 0, "\(stderr)")
        }
        #expect(try exportedItems(workspace).count == 2000)
        #expect(FileManager.default.fileExists(atPath: workspace.index + "/flintlock"))
    }

    /// A file of identifiers for `view -`: each of `writeBatch`'s 300 items of file 0, 200 times
    /// (60,000 views, about half a second of writing in a debug build).
    func viewList(_ workspace: Workspace) throws -> String {
        try workspace.write("views.txt", (0..<200).map { _ in (0..<300).map { "f0/\($0)\n" }.joined() }.joined())
    }

    /// Every item's recorded views, from export.
    func viewCounts(_ workspace: Workspace) throws -> [Int] {
        try exportedItems(workspace).map { $0["searchlight:views"] as? Int ?? 0 }
    }

    @Test("killed with SIGKILL mid-view, a call's views are all recorded or none; the index stays sound")
    func killedMidView() throws {
        let workspace = try Workspace()
        try writeBatch(workspace, folder: "in", files: 1, items: 300)
        #expect(try workspace.run(["index", workspace.path + "/in"]).status == 0)
        let list = try viewList(workspace)
        // One whole call, timed under the machine's load now: the kills fall within twice that,
        // so that some land before the commit and some after however fast the machine is.
        let started = Date()
        #expect(try startBinary(["view", "-", "--index", workspace.index], stdin: list).finish().status == 0)
        let window = max(0.1, 2 * Date().timeIntervalSince(started))
        var random = SystemRandomNumberGenerator()
        var outcomes: Set<Bool> = []
        var last = 200
        for run in 0..<16 {
            let process = try startBinary(["view", "-", "--index", workspace.index], stdin: list)
            Thread.sleep(forTimeInterval: Double.random(in: 0.02...window, using: &random))
            kill(process.processIdentifier, SIGKILL)
            process.finish()
            try checkWithXapian(workspace.index)
            // Each call adds 200 views to every item, in one transaction.
            let counts = Set(try viewCounts(workspace))
            #expect(counts == [last] || counts == [last + 200], "run \(run): \(counts) after \(last)")
            outcomes.insert(counts == [last])
            last = counts.first ?? last
        }
        #expect(outcomes.count == 2, "the kills all fell on one side of the commit")
        let (status, stderr) = try startBinary(["view", "-", "--index", workspace.index], stdin: list).finish()
        #expect(status == 0, "\(stderr)")
        #expect(Set(try viewCounts(workspace)) == [last + 200])
    }

    @Test("searches and exports while views are recorded never fail and see each call's views whole")
    func readersDuringViews() throws {
        let workspace = try Workspace()
        try writeBatch(workspace, folder: "in", files: 1, items: 300)
        #expect(try workspace.run(["index", workspace.path + "/in"]).status == 0)
        let list = try viewList(workspace)
        var overlapping = 0
        var round = 0
        while overlapping < 2 && round < 20 {
            let writer = try startBinary(["view", "-", "--index", workspace.index], stdin: list)
            overlapping += try searchWhile(writer) {
                let search = try workspace.run(["search", "title", "--json", "--limit", "0"])
                #expect(search.status == 0, "\(search.stderr)")
                #expect(try search.object()["total"] as? Int == 300)
                let counts = Set(try viewCounts(workspace))
                #expect(counts.count == 1 && (counts.first ?? 1) % 200 == 0, "\(counts)")
            }
            let (status, stderr) = writer.finish()
            #expect(status == 0, "\(stderr)")
            round += 1
        }
        #expect(overlapping >= 2)
        #expect(Set(try viewCounts(workspace)) == [200 * round])
    }

    @Test("searches during a long transaction never fail and see each item whole, old or new")
    func readersDuringWrites() throws {
        let workspace = try Workspace()
        // 6,000 items, 0.8 MB: under the direct-write limit, so one transaction on the current
        // generation, long enough for several searches.
        try writeBatch(workspace, folder: "v1", files: 30, items: 200, version: "one")
        try writeBatch(workspace, folder: "v2", files: 30, items: 200, version: "two")
        #expect(try workspace.run(["index", workspace.path + "/v1"]).status == 0)
        // Writes alternate the versions until at least 2 searches ran during them.
        var searches = 0
        var round = 0
        while searches < 2 && round < 20 {
            let version = round % 2 == 0 ? "two" : "one"
            let writer = try startBinary(
                ["index", workspace.path + (version == "two" ? "/v2" : "/v1"), "--index", workspace.index])
            searches += try searchWhile(writer) {
                let run = try workspace.run(["search", "--all-domains", "--limit", "1000", "--json"])
                #expect(run.status == 0, "\(run.stderr)")
                let page = try run.object()
                #expect(page["total"] as? Int == 6_000)
                expectWholeItems(page)
            }
            let (status, stderr) = writer.finish()
            #expect(status == 0, "\(stderr)")
            let last = try workspace.run(["search", "title \(version)", "--all-domains", "--json", "--limit", "0"])
            #expect(try last.object()["total"] as? Int == 6_000)
            round += 1
        }
        #expect(searches >= 2)
    }

    @Test(
        "a full disk fails the batch with a clear error and keeps the previous content",
        .enabled(if: getuid() == 0, "mounting a small tmpfs needs root; run the tests as root to cover this")
    )
    func fullDisk() throws {
        let workspace = try Workspace()
        let mountPoint = workspace.path + "/small"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let mount = try runCommand("/bin/mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mountPoint])
        try #require(mount == 0, "mount failed: this machine does not allow tmpfs mounts")
        defer { _ = try? runCommand("/bin/umount", [mountPoint]) }
        let index = mountPoint + "/index"
        let small = try workspace.write("small.json", #"{"$canonical_identifier":"keep","$og_title":"Still here"}"#)
        #expect(try workspace.run(["index", small, "--index", index]).status == 0)
        // Unique words, so that the postings cannot compress: far more than 2 MB of index.
        var lines: [String] = []
        for item in 0..<6000 {
            let words = (0..<30).map { "w\(item)x\($0)" }.joined(separator: " ")
            lines.append(
                #"{"$canonical_identifier":"big/\#(item)","$og_title":"\#(words)","$og_description":"\#(words)"}"#)
        }
        let big = try workspace.write("big.jsonl", lines.joined(separator: "\n"))
        let run = try workspace.run(["index", big, "--index", index, "--json"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("code 2007"), "\(run.stderr)")
        #expect(run.stderr.contains("nothing of this batch was committed"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: index).allSatisfy { !$0.hasPrefix("build-") })
        let search = try workspace.run(["search", "still", "--index", index, "--json"])
        #expect(search.status == 0)
        #expect(try search.object()["total"] as? Int == 1)

        // A compaction on the full disk fails the same way and leaves no partial generation.
        _ = FileManager.default.createFile(atPath: mountPoint + "/filler", contents: nil)
        let filler = try #require(FileHandle(forWritingAtPath: mountPoint + "/filler"))
        while (try? filler.write(contentsOf: Data(count: 16 * 1024))) != nil {}
        try? filler.close()
        let compact = try workspace.run(["compact", "--index", index])
        #expect(compact.status == 1, "\(compact.stdout) \(compact.stderr)")
        #expect(compact.stderr.contains("code 2007"), "\(compact.stderr)")
        #expect(generationFolders(index).isEmpty)
        let after = try workspace.run(["search", "still", "--index", index, "--json"])
        #expect(try after.object()["total"] as? Int == 1)
    }

    @Test("an index of an older format is refused for search and writes with how to rebuild; export still works")
    func olderFormat() throws {
        let workspace = try indexedWorkspace()
        // Format 1 indexes carry no format stamp.
        #expect(try runCommand("/usr/bin/xapian-metadata", ["set", workspace.index, "searchlight.format", ""]) == 0)
        for arguments in [["search", "deep"], ["index", workspace.path + "/fixture.json"]] {
            let run = try workspace.run(arguments)
            #expect(run.status == 1, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("code 1010"), "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("index format 1"), "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("searchlight export"), "\(arguments): \(run.stderr)")
        }
        let export = try workspace.run(["export", "--all-domains", "--include-expired"])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdout.split(separator: "\n").count == 2)
    }

    @Test("a damaged index gives 1010 naming the path and how to recover, never a crash")
    func corruptIndex() throws {
        let workspace = try indexedWorkspace()
        for name in try FileManager.default.contentsOfDirectory(atPath: workspace.index) where name.hasSuffix(".glass")
        {
            try Data(repeating: 0x5A, count: 16384).write(to: URL(fileURLWithPath: workspace.index + "/" + name))
        }
        for arguments in [
            ["search", "deep"], ["stats"], ["get", "a1"], ["export"], ["index", workspace.path + "/fixture.json"],
        ] {
            let run = try workspace.run(arguments)
            #expect(run.status == 1, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("code 1010"), "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(workspace.index))
            #expect(run.stderr.contains("re-index"), "\(arguments): \(run.stderr)")
        }
    }

    @Test("a truncated table is damage to rebuild from (code 1010), not a full disk")
    func truncatedTable() throws {
        let workspace = try Workspace()
        #expect(try workspace.run(["index", repositoryRoot + "/corpus"]).status == 0)
        try FileHandle(forWritingTo: URL(fileURLWithPath: workspace.index + "/postlist.glass")).truncate(atOffset: 8192)
        for arguments in [["search", "deep"], ["index", repositoryRoot + "/corpus"]] {
            let run = try workspace.run(arguments)
            #expect(run.status == 1, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("is damaged") && run.stderr.contains("code 1010"), "\(run.stderr)")
            #expect(!run.stderr.contains("disk space"), "\(run.stderr)")
        }
    }

    @Test(
        "hostile input gets its documented outcome and never crashes or hangs",
        arguments: [
            ("truncated.json", 0, [2002]),
            ("wrong-types.json", 0, [2001, 2001, 2001, 2001, 2001, 2001, 2001, 2001]),
            ("invalid-utf8.json", 0, [2002]),
            ("nul-raw.json", 0, [2002]),
            ("nul-escaped.json", 1, []),
            ("long-ids.jsonl", 3, []),
            ("duplicates.json", 2, []),
            ("bom.json", 1, []),
            ("empty.json", 0, [2002]),
            ("whitespace.json", 0, [2002]),
            ("out-of-range.json", 0, [2002]),
            ("out-of-range-dates.jsonl", 1, [2001, 2001, 2001, 2001]),
            ("nan.json", 0, [2002]),
            ("not-objects.jsonl", 1, [2009, 2009, 2009, 2009]),
        ])
    func hostileInput(file: String, indexed: Int, codes: [Int]) throws {
        let workspace = try Workspace()
        let run = try workspace.run(["index", hostileInputFolder + "/" + file, "--json"], timeout: 60)
        #expect(run.status == (codes.isEmpty ? 0 : 1), "\(run.stderr)")
        let report = try run.object()
        #expect(report["indexed"] as? Int == indexed)
        let errors = report["errors"] as? [[String: Any]] ?? []
        #expect(errors.map { $0["code"] as? Int } == codes)
        for error in errors {
            #expect((error["message"] as? String)?.isEmpty == false)
            #expect(error["path"] as? String == hostileInputFolder + "/" + file)
        }
    }

    @Test("hostile input: NUL characters, long identifiers and duplicates are stored as given")
    func hostileContent() throws {
        let workspace = try Workspace()
        for file in ["nul-escaped.json", "long-ids.jsonl", "duplicates.json", "wrong-types.json"] {
            _ = try workspace.run(["index", hostileInputFolder + "/" + file])
        }
        #expect(try workspace.run(["get", "nul\u{0}id"]).status != 0)  // a NUL cannot pass through argv
        #expect(try workspace.run(["search", "before", "--json"]).object()["total"] as? Int == 1)
        #expect(try workspace.run(["get", String(repeating: "b", count: 1000)]).status == 0)
        let duplicate = try workspace.run(["get", "dup", "--json"]).object()
        #expect(duplicate["$og_title"] as? String == "last version")
        // A key twice in one object: the last occurrence counts, nested and escaped keys too.
        for file in ["duplicate-keys.json", "duplicate-keys.jsonl"] {
            #expect(try workspace.run(["index", hostileInputFolder + "/" + file]).status == 0)
        }
        let keys = try workspace.run(["get", "keys", "--json"]).object()
        #expect(keys["$og_title"] as? String == "escaped last title")
        #expect(keys["$og_description"] as? String == "last description")
        #expect(keys["$keywords"] as? [String] == ["last"])
        #expect(keys["$sku"] as? String == "last")
        #expect(
            try workspace.run(["get", "line-keys", "--json"]).object()["$og_title"] as? String == "last line title")
        // An overridden member that itself repeats a key.
        #expect(
            try workspace.run(["get", "nested-keys", "--json"]).object()["$og_title"] as? String == "nested last title")
        #expect(try workspace.run(["get", "t1"]).status == 1)  // rejected items are never written
    }

    @Test(
        "hostile input: an item over a limit is rejected alone, naming file, item and field; nesting 10,000 deep",
        arguments: ["item", "title", "keywords", "keyword", "nesting"])
    func largeInput(kind: String) throws {
        let workspace = try Workspace()
        let item: String
        switch kind {
        case "item":
            // 10 MB in custom metadata: over the item's 1 MiB.
            item = #"{"$canonical_identifier":"huge","note":"\#(String(repeating: "x", count: 10_000_000))"}"#
        case "title":
            item = #"{"$canonical_identifier":"huge","$og_title":"\#(String(repeating: "keeper ", count: 1_000))"}"#
        case "keywords":
            let keywords = (0..<1_001).map { #""k\#($0)""# }.joined(separator: ",")
            item = #"{"$canonical_identifier":"many","$keywords":[\#(keywords)]}"#
        case "keyword":
            item = #"{"$canonical_identifier":"long","$keywords":["ok","\#(String(repeating: "k", count: 1_025))"]}"#
        default:
            item =
                #"{"$canonical_identifier":"deep","x":"# + String(repeating: #"{"a":"#, count: 10_000) + "1"
                + String(repeating: "}", count: 10_000) + "}"
        }
        let normal = #"{"$canonical_identifier":"normal","$og_title":"Lighthouse"}"#
        let file = try workspace.write("\(kind).json", "[\(normal),\n\(item)]")
        let run = try workspace.run(["index", file, "--json"], timeout: 120)
        let report = try run.object()
        #expect(run.status == 1)
        let error = try #require((report["errors"] as? [[String: Any]])?.first)
        if kind == "nesting" {
            #expect(error["code"] as? Int == 2002)
            #expect((error["message"] as? String)?.contains("too many nested arrays or objects") == true)
            return
        }
        // The other item is indexed; the message names the file, the item and the field.
        #expect(report["added"] as? Int == 1)
        #expect(try workspace.run(["search", "lighthouse", "--json"]).object()["total"] as? Int == 1)
        #expect(error["code"] as? Int == 2019)
        #expect(error["path"] as? String == file)
        #expect(error["item"] as? Int == 2)
        let message = try #require(error["message"] as? String)
        switch kind {
        case "item": #expect(message.contains("The item's JSON is 9.5 MiB; an item may be at most 1 MiB"))
        case "title": #expect(message.contains(#""$og_title" is 6.8 KiB long; it may be at most 4 KiB"#))
        case "keywords": #expect(message.contains(#""$keywords" holds 1001 keywords; an item may have at most 1000"#))
        default: #expect(message.contains(#""$keywords[1]" is 1 KiB long; it may be at most 1 KiB"#))
        }
    }

    @Test("a 100 MB line, 96 MB of white space in a document, and 100 MB from standard input: bounded memory")
    func boundedMemory() throws {
        let workspace = try Workspace()
        let normal = #"{"$canonical_identifier":"normal","$og_title":"Lighthouse"}"#
        let huge =
            #"{"$canonical_identifier":"huge","$og_description":""# + String(repeating: "a", count: 100 << 20) + #""}"#
        let lines = try workspace.write("items.jsonl", normal + "\n" + huge + "\n")
        let spaces = workspace.path + "/spaces.json"
        _ = FileManager.default.createFile(atPath: spaces, contents: Data(("[" + normal).utf8))
        let handle = try #require(FileHandle(forWritingAtPath: spaces))
        try handle.seekToEnd()
        let block = Data(repeating: UInt8(ascii: " "), count: 1 << 20)
        // Held, the white space alone would take the run past the bound.
        for _ in 0..<96 { handle.write(block) }
        handle.write(Data("]".utf8))
        try handle.close()
        for (arguments, input) in [([lines], nil), ([spaces], nil), (["-"], "[" + normal + ",\n" + huge + "]")] {
            let run = try workspace.run(["index"] + arguments + ["--json"], stdin: input, timeout: 300)
            #expect(run.peakMemoryBytes < 100 << 20, "\(arguments): \(run.peakMemoryBytes >> 20) MiB at most")
            let report = try run.object()
            #expect(report["indexed"] as? Int == 1)
            if arguments != [spaces] {
                let error = try #require((report["errors"] as? [[String: Any]])?.first)
                #expect(error["code"] as? Int == 2019)
                #expect(error["item"] as? Int == 2)
            }
        }
    }
}

/// Runs a system command, returning its exit status.
func runCommand(_ path: String, _ arguments: [String]) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}
