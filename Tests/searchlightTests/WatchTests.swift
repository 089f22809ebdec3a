import Foundation
import SearchlightTesting
import Testing

/// A `searchlight index --watch … --json` process: its JSON lines (one per batch) and its stderr
/// kept in files.
private final class Watching {
    let process = Process()
    let outputPath: String
    let errorPath: String

    init(_ arguments: [String]) throws {
        outputPath = TemporaryFolder.path + "/watch-" + UUID().uuidString + ".jsonl"
        errorPath = outputPath + ".err"
        for path in [outputPath, errorPath] { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        process.executableURL = URL(fileURLWithPath: binaryPath)
        process.arguments = ["index", "--watch", "--json"] + arguments
        // By words alone (as `runBinary`): a batch's vectors would hold the watcher meanwhile.
        process.environment = ProcessInfo.processInfo.environment.merging(["SEARCHLIGHT_MODEL": "none"]) { $1 }
        process.standardOutput = try #require(FileHandle(forWritingAtPath: outputPath))
        process.standardError = try #require(FileHandle(forWritingAtPath: errorPath))
        try process.run()
    }

    /// The batches reported so far.
    var batches: [[String: Any]] {
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    var log: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    /// Waits until `condition` holds, for at most `seconds`; whether it held.
    @discardableResult
    func wait(seconds: Double = 30, until condition: () throws -> Bool) rethrows -> Bool {
        try Self.polling(seconds: seconds, until: condition)
    }

    /// Waits until `condition` holds, for at most `seconds`; whether it held.
    static func polling(seconds: Double = 30, until condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return try condition()
    }

    /// Waits for the `count`th batch.
    func waitForBatches(_ count: Int) -> Bool { wait { batches.count >= count } }

    /// Stops with `signal` and returns the exit status.
    func stop(_ signal: Int32 = SIGTERM) -> Int32 {
        if process.isRunning { kill(process.processIdentifier, signal) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit { if process.isRunning { process.terminate() } }
}

private func item(_ id: String, _ title: String) -> String {
    #"{"$canonical_identifier":"\#(id)","$og_title":"\#(title)","$publicly_indexable":true}"#
}

@Suite("searchlight index --watch (reference: index)", .temporaryFolder)
struct WatchTests {
    @Test("a file written, an editor's save by rename, a new folder: each searchable after the change; SIGTERM exits 0")
    func followsChanges() throws {
        let workspace = try Workspace()
        let folder = workspace.path + "/in"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try workspace.write("in/first.json", item("first", "Lighthouse keeper"))
        let watching = try Watching([folder, "--index", workspace.index])
        #expect(watching.waitForBatches(1), "\(watching.log)")
        #expect((watching.batches.first?["indexing"] as? [String: Any])?["added"] as? Int == 1)

        func finds(_ query: String) throws -> [String] {
            let run = try workspace.run(["search", query, "--json"])
            let results = try run.object()["results"] as? [[String: Any]] ?? []
            return results.compactMap { $0["canonicalIdentifier"] as? String }
        }
        // Written and closed.
        try workspace.write("in/kettle.json", item("kettle", "Blue kettle"))
        #expect(try watching.wait { try finds("kettle") == ["kettle"] }, "\(watching.log)")
        // An editor's save: a hidden temporary file renamed over the old one.
        try workspace.write("in/.kettle.json.swp", item("kettle", "Red kettle"))
        try FileManager.default.moveItem(atPath: folder + "/.kettle.json.swp", toPath: folder + "/kettle2.json")
        #expect(try watching.wait { try finds("red") == ["kettle"] }, "\(watching.log)")
        // A folder made, and files written in it at once.
        try FileManager.default.createDirectory(atPath: folder + "/new/deeper", withIntermediateDirectories: true)
        try workspace.write("in/new/deeper/lamp.jsonl", item("lamp", "Desk lamp") + "\n" + item("lamp2", "Floor lamp"))
        #expect(try watching.wait { try Set(finds("lamp")) == ["lamp", "lamp2"] }, "\(watching.log)")
        // Files of other kinds are not read.
        try workspace.write("in/notes.txt", "lighthouse")
        // Another writer can write while the watcher waits for changes.
        try workspace.write("other.json", item("other", "Written by another command"))
        let other = try workspace.run(["index", workspace.path + "/other.json", "--lock-timeout", "5"])
        #expect(other.status == 0, "\(other.stderr)")
        #expect(watching.stop() == 0, "\(watching.log)")
        #expect(watching.log.contains("Stopped watching"))
        let sources = watching.batches.flatMap { $0["files"] as? [String] ?? [] }
        #expect(!sources.contains { $0.hasSuffix(".txt") || $0.contains("/.") })
    }

    @Test("--mirror removes the items of files deleted and moved away, and those a file no longer holds")
    func mirrors() throws {
        let workspace = try Workspace()
        let folder = workspace.path + "/in"
        try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
        try workspace.write("in/a.jsonl", item("a1", "Alpha one") + "\n" + item("a2", "Alpha two"))
        try workspace.write("in/sub/b.json", item("b1", "Beta one"))
        try workspace.write("in/gone.json", item("gone", "Deleted while nothing watched"))
        try workspace.write("outside.json", item("outside", "Not under the watched folder"))
        #expect(try workspace.run(["index", folder, workspace.path + "/outside.json"]).status == 0)
        // The items of a file deleted while nothing watched go on the first run.
        try FileManager.default.removeItem(atPath: folder + "/gone.json")
        let watching = try Watching([folder, "--mirror", "--index", workspace.index])
        #expect(watching.waitForBatches(1), "\(watching.log)")

        func count() throws -> Int { try workspace.run(["stats", "--json"]).object()["documents"] as? Int ?? -1 }
        #expect(try count() == 4)
        // A file that no longer holds one of its items.
        try workspace.write("in/a.jsonl", item("a1", "Alpha one"))
        #expect(try watching.wait { try count() == 3 }, "\(watching.log)")
        let get = try workspace.run(["get", "a1", "--json"])
        #expect(try get.object()["source"] as? String == folder + "/a.jsonl")
        // A file deleted.
        try FileManager.default.removeItem(atPath: folder + "/a.jsonl")
        #expect(try watching.wait { try count() == 2 }, "\(watching.log)")
        // A folder moved out of the watched one.
        try FileManager.default.moveItem(atPath: folder + "/sub", toPath: workspace.path + "/away")
        #expect(try watching.wait { try count() == 1 }, "\(watching.log)")
        #expect(try workspace.run(["get", "outside"]).status == 0)
        #expect(watching.stop(SIGINT) == 0, "\(watching.log)")
        let removed = watching.batches.map { $0["removed"] as? Int ?? 0 }.reduce(0, +)
        #expect(removed == 4)
    }

    @Test("a backup restored from an export keeps its items' files: --mirror of their folder removes them when they go")
    func restoredBackup() throws {
        let workspace = try Workspace()
        let folder = workspace.path + "/in"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try workspace.write("in/a.json", item("a1", "Alpha one"))
        try workspace.write("in/b.jsonl", item("b1", "Beta one") + "\n" + item("b2", "Beta two"))
        #expect(try workspace.run(["index", folder]).status == 0)
        let backup = try workspace.write("backup.jsonl", try workspace.run(["export"]).stdout)
        let restored = workspace.path + "/restored"
        #expect(try workspace.run(["index", backup, "--index", restored]).status == 0)
        let get = try workspace.run(["get", "b2", "--json", "--index", restored])
        #expect(try get.object()["source"] as? String == folder + "/b.jsonl")

        let watching = try Watching([folder, "--mirror", "--index", restored])
        #expect(watching.waitForBatches(1), "\(watching.log)")
        try FileManager.default.removeItem(atPath: folder + "/b.jsonl")
        func count() throws -> Int {
            try workspace.run(["stats", "--json", "--index", restored]).object()["documents"] as? Int ?? -1
        }
        #expect(try watching.wait { try count() == 1 }, "\(watching.log)")
        #expect(try workspace.run(["get", "a1", "--index", restored]).status == 0)
        #expect(watching.stop(SIGINT) == 0, "\(watching.log)")
    }

    @Test("a file that cannot be read keeps its items until it reads cleanly")
    func brokenFileKeepsItems() throws {
        let workspace = try Workspace()
        try workspace.write("in/a.json", "[" + item("a1", "Alpha") + "," + item("a2", "Alpha two") + "]")
        let watching = try Watching([workspace.path + "/in", "--mirror", "--index", workspace.index])
        #expect(watching.waitForBatches(1), "\(watching.log)")
        try workspace.write("in/a.json", "[" + item("a1", "Alpha") + ",")
        #expect(watching.waitForBatches(2), "\(watching.log)")
        #expect((watching.batches[1]["indexing"] as? [String: Any])?["rejected"] as? Int == 1)
        #expect(try workspace.run(["stats", "--json"]).object()["documents"] as? Int == 2)
        try workspace.write("in/a.json", item("a1", "Alpha"))
        #expect(watching.waitForBatches(3), "\(watching.log)")
        #expect(try workspace.run(["stats", "--json"]).object()["documents"] as? Int == 1)
        #expect(watching.stop() == 0)
    }

    @Test("a burst of 2,000 files is gathered into few batches, and every item is indexed")
    func burst() throws {
        let workspace = try Workspace()
        try FileManager.default.createDirectory(atPath: workspace.path + "/in", withIntermediateDirectories: true)
        let watching = try Watching([workspace.path + "/in", "--index", workspace.index])
        #expect(watching.wait { watching.log.contains("Watching") })
        for number in 0..<2_000 { try workspace.write("in/item-\(number).json", item("n\(number)", "Burst \(number)")) }
        #expect(
            try watching.wait(seconds: 120) {
                try workspace.run(["stats", "--json"]).object()["documents"] as? Int == 2_000
            }, "\(watching.log)")
        #expect(watching.stop() == 0)
        #expect(watching.batches.count < 100, "\(watching.batches.count) batches")
    }

    @Test(
        "when the kernel's queue overflows, every watched path is read again",
        .enabled(if: getuid() == 0, "lowering fs.inotify.max_queued_events needs root"))
    func overflow() throws {
        let workspace = try Workspace()
        try FileManager.default.createDirectory(atPath: workspace.path + "/in", withIntermediateDirectories: true)
        let setting = "/proc/sys/fs/inotify/max_queued_events"
        let saved = try String(contentsOfFile: setting, encoding: .utf8)
        // A new watcher gets the limit in force when it starts.
        try "16\n".write(toFile: setting, atomically: false, encoding: .utf8)
        let watching: Watching
        do {
            defer { try? saved.write(toFile: setting, atomically: false, encoding: .utf8) }
            watching = try Watching([workspace.path + "/in", "--index", workspace.index])
            #expect(watching.wait { watching.log.contains("Watching") })
        }
        // Stopped, it reads no events: 200 files overflow its queue of 16.
        kill(watching.process.processIdentifier, SIGSTOP)
        for number in 0..<200 {
            try workspace.write("in/item-\(number).json", item("n\(number)", "Overflow \(number)"))
        }
        kill(watching.process.processIdentifier, SIGCONT)
        #expect(
            try watching.wait {
                try workspace.run(["stats", "--json"]).object()["documents"] as? Int == 200
            }, "\(watching.log)")
        #expect(watching.batches.contains { $0["rescanned"] as? Bool == true })
        #expect(watching.stop() == 0)
    }

    @Test("serve --watch indexes the folder through its writer, and stops cleanly on SIGTERM")
    func serveWatches() throws {
        let workspace = try Workspace()
        try workspace.write("in/first.json", item("first", "Lighthouse keeper"))
        let server = try RunningServer(
            index: workspace.index, extra: ["--watch", workspace.path + "/in", "--mirror"])
        // Read beside the service, as any reader may.
        func ids(_ query: String) throws -> [String] {
            let results = try workspace.run(["search", query, "--json"]).object()["results"]
            return (results as? [[String: Any]] ?? []).compactMap { $0["canonicalIdentifier"] as? String }
        }
        #expect(try Watching.polling { try ids("lighthouse") == ["first"] }, "\(server.log)")
        try workspace.write("in/kettle.json", item("kettle", "Blue kettle"))
        #expect(try Watching.polling { try ids("kettle") == ["kettle"] }, "\(server.log)")
        try FileManager.default.removeItem(atPath: workspace.path + "/in/first.json")
        #expect(try Watching.polling { try ids("lighthouse").isEmpty }, "\(server.log)")
        #expect(server.stop() == 0, "\(server.log)")
        #expect(server.log.contains("Indexed changed files"))
    }

    @Test("--watch is refused with standard input, and --mirror without --watch")
    func refusals() throws {
        let workspace = try Workspace()
        let stdin = try workspace.run(["index", "-", "--watch"], stdin: "")
        #expect(stdin.status == 64 && stdin.stderr.contains("not standard input"))
        let mirror = try workspace.run(["index", workspace.path, "--mirror"])
        #expect(mirror.status == 64 && mirror.stderr.contains("--mirror needs --watch"))
        let missing = try workspace.run(["index", workspace.path + "/nowhere", "--watch"])
        #expect(missing.status != 0 && missing.stderr.contains("No such file or directory"))
    }
}
