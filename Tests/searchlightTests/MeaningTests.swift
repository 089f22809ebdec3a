import Foundation
import SearchlightTesting
import Testing

/// The environment of a run that uses the installed meaning model (other tests run without it).
let withMeaning = ["SEARCHLIGHT_MODEL": ""]

/// Items whose words and meanings part ways (the kettle and the teapot share no word with "a pot
/// to heat water"), one of them another domain's private item.
private func writeKitchen(_ workspace: Workspace) throws -> String {
    let lines = [
        #"{"$canonical_identifier":"kettle","$og_title":"Copper kettle","$og_description":"Boils water on the stove for tea in three minutes.","$keywords":["kitchen"],"$publicly_indexable":true}"#,
        #"{"$canonical_identifier":"teapot","$og_title":"Porcelain teapot","$og_description":"Brews loose leaves; keeps the infusion hot.","$keywords":["kitchen"],"$publicly_indexable":true}"#,
        #"{"$canonical_identifier":"bike","$og_title":"Mountain bicycle","$og_description":"Twenty-one gears, front suspension, disc brakes.","$keywords":["sport"],"$publicly_indexable":true}"#,
        #"{"$canonical_identifier":"secret-kettle","$og_title":"Electric kettle","$og_description":"Heats water for tea fast.","domain":"com.other","$publicly_indexable":false}"#,
    ]
    return try workspace.write("kitchen.jsonl", lines.joined(separator: "\n") + "\n")
}

@Suite("Meaning through the command line: embed, hybrid search, similar, kill -9", .temporaryFolder)
struct MeaningTests {
    @Test("index gives items vectors; search ranks by meaning; similar finds neighbours; visibility first")
    func indexSearchSimilar() throws {
        let workspace = try Workspace()
        let file = try writeKitchen(workspace)
        let indexed = try workspace.run(["index", file, "--json"], environment: withMeaning)
        #expect(indexed.status == 0, "\(indexed.stderr)")
        #expect(try indexed.object()["embedded"] as? Int == 4)

        let found = try workspace.run(
            ["search", "--json", "--semantic-ratio", "1", "--", "a pot to heat water"], environment: withMeaning)
        #expect(found.status == 0, "\(found.stderr)")
        let ids = (try found.object()["results"] as? [[String: Any]] ?? []).compactMap {
            $0["canonicalIdentifier"] as? String
        }
        #expect(ids.first == "kettle" || ids.first == "teapot", "\(ids)")
        #expect(!ids.contains("secret-kettle"), "another domain's private item: \(ids)")

        let words = try workspace.run(
            ["search", "--format", "ids", "--semantic-ratio", "0", "--", "a pot to heat water"],
            environment: withMeaning)
        #expect(!words.stdout.contains("teapot"))
        // A script's list is what the words select, unless it names a ratio (SPEC §2.4): piped into
        // `remove`, it removes nothing found by meaning alone.
        let script = try workspace.run(
            ["search", "--format", "ids", "--", "a pot to heat water"], environment: withMeaning)
        #expect(
            script.status == 0 && !script.stdout.contains("teapot"),
            "\(script.stdout)")
        let named = try workspace.run(
            ["search", "--format", "ids", "--semantic-ratio", "0.5", "--", "a pot to heat water"],
            environment: withMeaning)
        #expect(named.stdout.contains("teapot"), "\(named.stdout)")

        let near = try workspace.run(["similar", "kettle", "--json"], environment: withMeaning)
        #expect(near.status == 0, "\(near.stderr)")
        let neighbours = (try near.object()["results"] as? [[String: Any]] ?? []).compactMap {
            $0["canonicalIdentifier"] as? String
        }
        #expect(neighbours.first == "teapot" && !neighbours.contains("kettle") && !neighbours.contains("secret-kettle"))
        let hidden = try workspace.run(["similar", "secret-kettle"], environment: withMeaning)
        #expect(hidden.status == 1 && hidden.stderr.contains("No item"), "\(hidden.stderr)")
    }

    @Test("made-up words and an explicit AND find nothing by meaning; JSON says what found each result")
    func meaningWithNothingToSay() throws {
        let workspace = try Workspace()
        let file = try writeKitchen(workspace)
        #expect(try workspace.run(["index", file], environment: withMeaning).status == 0)
        for text in ["blorft", "zxqvpl", "烧水的壶", "kettle AND bicycle"] {
            let found = try workspace.run(
                ["search", "--json", "--semantic-ratio", "1", "--", text], environment: withMeaning)
            #expect(found.status == 0, "\(found.stderr)")
            #expect(try found.object()["total"] as? Int == 0, "\(text): \(found.stdout)")
        }
        let found = try workspace.run(
            ["search", "--json", "--semantic-ratio", "0.5", "--", "kettle for boiling"], environment: withMeaning)
        let results = try found.object()["results"] as? [[String: Any]] ?? []
        let teapot = results.first { $0["canonicalIdentifier"] as? String == "teapot" }
        #expect(teapot?["matchedBy"] as? [String] == ["meaning"], "\(found.stdout)")
        let kettle = results.first { $0["canonicalIdentifier"] as? String == "kettle" }
        #expect(kettle?["matchedBy"] as? [String] == ["words", "meaning"], "\(found.stdout)")
        // The text output marks what meaning alone found.
        let text = try workspace.run(
            ["search", "--semantic-ratio", "0.5", "--", "kettle for boiling"], environment: withMeaning)
        let teapotLines = text.stdout.split(separator: "\n").drop { !$0.contains("Porcelain teapot") }.prefix(2)
        #expect(teapotLines.last?.contains("by meaning") == true, "\(text.stdout)")
        let kettleLines = text.stdout.split(separator: "\n").drop { !$0.contains("Copper kettle") }.prefix(2)
        #expect(kettleLines.last?.contains("by meaning") == false, "\(text.stdout)")
    }

    @Test(
        "the sample corpus's French and German recipes get no vector: English meaning never finds them; similar says why"
    )
    func otherLanguages() throws {
        let workspace = try Workspace()
        let indexed = try workspace.run(
            ["index", repositoryRoot + "/corpus", "--now", corpusNow, "--json"], environment: withMeaning)
        #expect(indexed.status == 0, "\(indexed.stderr)")
        for text in ["an apple cake for dessert", "a hearty winter soup", "Wetter"] {
            let found = try workspace.run(
                ["search", "--all-domains", "--now", corpusNow, "--json", "--semantic-ratio", "1", "--", text],
                environment: withMeaning)
            #expect(found.status == 0, "\(found.stderr)")
            // What meaning found: never a recipe (those their words find, `dessert`, stay).
            let byMeaning = (try found.object()["results"] as? [[String: Any]] ?? []).filter {
                ($0["matchedBy"] as? [String])?.contains("meaning") == true
            }.compactMap { $0["domain"] as? String }
            #expect(
                !byMeaning.contains("fr.example.cuisine") && !byMeaning.contains("de.example.kueche"),
                "\(text): \(byMeaning)")
        }
        // By words, the recipes are found as ever.
        let words = try workspace.run(
            ["search", "--all-domains", "--now", corpusNow, "--format", "ids", "Apfelstrudel"], environment: withMeaning
        )
        #expect(words.stdout.contains("rezept/02"), "\(words.stdout)")
        let similar = try workspace.run(
            ["similar", "rezept/02", "--all-domains", "--now", corpusNow], environment: withMeaning)
        #expect(similar.status == 1 && similar.stderr.contains("written in de"), "\(similar.stderr)")
    }

    @Test("words first, meaning later: --no-meaning, then embed; a ratio asked of an index without vectors says so")
    func embedLater() throws {
        let workspace = try Workspace()
        let file = try writeKitchen(workspace)
        let indexed = try workspace.run(["index", file, "--no-meaning", "--json"], environment: withMeaning)
        #expect(indexed.status == 0)
        #expect(try indexed.object()["embedded"] == nil)
        let refused = try workspace.run(["search", "--semantic-ratio", "0.5", "kettle"], environment: withMeaning)
        #expect(refused.status == 1, "\(refused.stdout)")
        #expect(refused.stderr.contains("searchlight embed"), "\(refused.stderr)")
        // Without a ratio, words alone.
        #expect(try workspace.run(["search", "kettle", "--format", "ids"], environment: withMeaning).status == 0)
        let embedded = try workspace.run(["embed", "--json"], environment: withMeaning)
        #expect(embedded.status == 0, "\(embedded.stderr)")
        let report = try embedded.object()
        #expect(report["embedded"] as? Int == 4 && report["withMeaning"] as? Int == 4 && report["items"] as? Int == 4)
        #expect(
            try workspace.run(["search", "--semantic-ratio", "0.5", "kettle"], environment: withMeaning).status == 0)
    }

    @Test("without the model, everything works by words, and asking for meaning says how to install it")
    func withoutModel() throws {
        let workspace = try Workspace()
        let file = try writeKitchen(workspace)
        let indexed = try workspace.run(["index", file], environment: ["SEARCHLIGHT_MODEL": "none"])
        #expect(indexed.status == 0)
        #expect(try workspace.run(["search", "kettle", "--format", "ids"]).stdout.contains("kettle"))
        let embed = try workspace.run(["embed"], environment: ["SEARCHLIGHT_MODEL": "none"])
        #expect(embed.status == 1 && embed.stderr.contains("SEARCHLIGHT_MODEL"), "\(embed.stderr)")
        let similar = try workspace.run(["similar", "kettle"], environment: ["SEARCHLIGHT_MODEL": "none"])
        #expect(similar.status == 1 && similar.stderr.contains("embed"), "\(similar.stderr)")
    }

    @Test(
        "SIGTERM or SIGINT stops embed, index and index --watch while they embed: soon, exit 0, the vectors made committed; the next run makes the rest"
    )
    func stoppedWhileEmbedding() throws {
        let workspace = try Workspace()
        // Long items: 600 of them take the model tens of seconds.
        try writeBatch(workspace, folder: "in", files: 4, items: 150, filler: 120)
        #expect(try workspace.run(["index", workspace.path + "/in", "--no-meaning"]).status == 0)
        var made = 0
        // Three seconds reach the model on an idle machine; a run that stopped before it had made a
        // vector leaves the next one longer. The first is stopped once its progress shows vectors
        // committed (a loaded CI run made none in the 3, 6, 9 and 12 s the four runs were given).
        var wait = 3.0
        let runs: [(arguments: [String], signal: Int32)] = [
            (["embed", "--json", "--progress"], SIGTERM), (["embed", "--json"], SIGINT),
            (["index", workspace.path + "/in", "--json"], SIGTERM),
            (["index", workspace.path + "/in", "--watch", "--json"], SIGTERM),
        ]
        for (arguments, signal) in runs {
            let run = try SignalledRun(arguments + ["--index", workspace.index], environment: withMeaning)
            Thread.sleep(forTimeInterval: wait)
            if arguments.contains("--progress") {
                let deadline = Date().addingTimeInterval(300)
                while run.errors.range(of: "Embedded [1-9]", options: .regularExpression) == nil, Date() < deadline {
                    Thread.sleep(forTimeInterval: 0.2)
                }
            }
            let (status, seconds) = run.stop(signal)
            #expect(status == 0, "\(arguments) \(signal): \(run.errors)")
            // About a second; the bound leaves room for a loaded machine, where all 600 would take
            // far longer.
            #expect(seconds < 5, "\(arguments) \(signal) took \(seconds) s to stop")
            // One JSON document, or a watch's JSON lines, one a batch.
            let documents = [run.output] + run.output.split(separator: "\n").map(String.init).reversed()
            let report = try #require(
                documents.lazy.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                    .first, "\(arguments): \(run.output) \(run.errors)")
            let before = made
            if arguments[0] == "embed" {
                #expect(report["stopped"] as? Bool == true, "\(report)")
                made += report["embedded"] as? Int ?? 0
                #expect(report["withMeaning"] as? Int == made, "\(report)")
            } else if !arguments.contains("--watch") {
                #expect(report["embeddingStopped"] as? Bool == true, "\(report)")
                made += report["embedded"] as? Int ?? 0
            }
            if made == before { wait += 3 }
            try checkWithXapian(workspace.index)
        }
        // What the runs left: a loaded machine has taken the model over two minutes for it.
        let rest = try workspace.run(["embed", "--json"], environment: withMeaning, timeout: 900)
        try #require(rest.status == 0, "\(rest.stderr)")
        let report = try rest.object()
        #expect(report["stopped"] as? Bool == false && report["withMeaning"] as? Int == 600, "\(report)")
        // Every vector a run reported is committed, with what the watch made (its lines report
        // batches of words), and some run was stopped while the model ran.
        let committed = 600 - (report["embedded"] as? Int ?? 0)
        #expect(committed >= made && committed > 0, "\(made), \(report)")
        let words = try workspace.run(["search", "title", "--json", "--limit", "0"])
        #expect(try words.object()["total"] as? Int == 600)
    }

    @Test("killed with SIGKILL while embedding, the index stays whole and searchable by words; embed completes it")
    func killedWhileEmbedding() throws {
        let workspace = try Workspace()
        try writeBatch(workspace, folder: "in", files: 4, items: 150)
        #expect(try workspace.run(["index", workspace.path + "/in", "--no-meaning"]).status == 0)
        var random = SystemRandomNumberGenerator()
        for _ in 0..<4 {
            let process = try startBinary(["embed", "--index", workspace.index], environment: withMeaning)
            Thread.sleep(forTimeInterval: Double.random(in: 0.3...2.5, using: &random))
            kill(process.processIdentifier, SIGKILL)
            process.finish()
            try checkWithXapian(workspace.index)
            let words = try workspace.run(["search", "title", "--json", "--limit", "0"])
            #expect(try words.object()["total"] as? Int == 600)
        }
        let finished = try workspace.run(["embed", "--json"], environment: withMeaning)
        #expect(finished.status == 0, "\(finished.stderr)")
        let report = try finished.object()
        #expect(report["withMeaning"] as? Int == 600 && report["items"] as? Int == 600, "\(report)")
        try checkWithXapian(workspace.index)
    }
}

/// A run of the binary that a test stops with a signal: its standard output and error kept.
private final class SignalledRun {
    private let process = Process()
    private let outputPath = TemporaryFolder.path + "/signalled-" + UUID().uuidString

    init(_ arguments: [String], environment: [String: String]) throws {
        for suffix in [".out", ".err"] {
            _ = FileManager.default.createFile(atPath: outputPath + suffix, contents: nil)
        }
        process.executableURL = URL(fileURLWithPath: binaryPath)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = try #require(FileHandle(forWritingAtPath: outputPath + ".out"))
        process.standardError = try #require(FileHandle(forWritingAtPath: outputPath + ".err"))
        try process.run()
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

    /// Sends `signal` and waits for the end: the exit status and the seconds it took.
    func stop(_ signal: Int32) -> (status: Int32, seconds: Double) {
        let sent = Date()
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        return (process.terminationStatus, Date().timeIntervalSince(sent))
    }

    var output: String { (try? String(contentsOfFile: outputPath + ".out", encoding: .utf8)) ?? "" }
    var errors: String { (try? String(contentsOfFile: outputPath + ".err", encoding: .utf8)) ?? "" }
}
