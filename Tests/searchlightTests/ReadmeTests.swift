import Foundation
import SearchlightTesting
import Testing

/// One command of a README example and what the README shows it printing.
struct ReadmeExample: CustomStringConvertible {
    var line: Int
    var command: String
    var expected: [String]
    var description: String { "README.md:\(line): $ \(command)" }
}

/// The README's examples that run here, in order: each `$ searchlight …` (or `$ printf … |
/// searchlight …`) command of a code block, with the lines after it up to the next command or the
/// block's end. A block after a `<!-- not run: … -->` line is left out (it starts the service, or
/// needs what a test folder lacks), and so are commands of other programs (`curl`, `scripts/…`).
func readmeExamples() throws -> [ReadmeExample] {
    let lines = try String(contentsOfFile: repositoryRoot + "/README.md", encoding: .utf8)
        .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var examples: [ReadmeExample] = []
    var inBlock = false
    var skipped = false
    var index = 0
    while index < lines.count {
        let line = lines[index]
        if line.hasPrefix("<!-- not run") { skipped = true }
        if line.hasPrefix("```") {
            inBlock.toggle()
            if !inBlock { skipped = false }
        } else if inBlock, !skipped, line.hasPrefix("$ searchlight ") || line.hasPrefix("$ printf ") {
            let start = index + 1
            var command = String(line.dropFirst(2))
            while command.hasSuffix("\\"), index + 1 < lines.count {
                index += 1
                command = String(command.dropLast()) + "\n" + lines[index]
            }
            var expected: [String] = []
            while index + 1 < lines.count, !lines[index + 1].hasPrefix("$ "), !lines[index + 1].hasPrefix("```") {
                index += 1
                expected.append(lines[index])
            }
            while expected.last == "" { expected.removeLast() }
            examples.append(ReadmeExample(line: start, command: command, expected: expected))
        }
        index += 1
    }
    return examples
}

@Suite("The README's examples", .temporaryFolder)
struct ReadmeTests {
    /// The subcommands that take `--now`.
    static let clockCommands = ["index", "search", "similar", "get", "prune", "stats", "export", "view"]

    /// `command` with `--now` after each subcommand that depends on the clock, unless it names a time.
    static func atCorpusTime(_ command: String) -> String {
        guard !command.contains("--now") else { return command }
        var result = command + " "
        for subcommand in clockCommands {
            result = result.replacingOccurrences(
                of: "searchlight \(subcommand) ", with: "searchlight \(subcommand) --now \(corpusNow) ")
        }
        return String(result.dropLast())
    }

    @Test("every example of the README prints what the README shows, run in order on the sample corpus")
    func examples() throws {
        let examples = try readmeExamples()
        #expect(examples.count >= 15, "\(examples.count) examples found")
        // A folder as the README's reader has it: a home of Maya's with the default index, and her
        // copy of the project (corpus/, the broken file), where the commands run; `searchlight` on
        // PATH.
        // At the same place on every run: items remember the absolute path of their file, and the
        // index's bytes, which the README shows, follow from it.
        let root = "/tmp/searchlight-readme-example"
        try? FileManager.default.removeItem(atPath: root)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let folder = root + "/home/maya/searchlight"
        let bin = root + "/bin"
        for path in [bin, folder] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        try FileManager.default.createSymbolicLink(atPath: bin + "/searchlight", withDestinationPath: binaryPath)
        try FileManager.default.createSymbolicLink(
            atPath: folder + "/corpus", withDestinationPath: repositoryRoot + "/corpus")
        try TemporaryFolder.write(
            "broken.jsonl",
            """
            {"$canonical_identifier":"ok/1","$og_title":"Fine"}
            {"$og_title":"No identifier"}
            {"$canonical_identifier":"bad/3","$keywords":42}

            """, in: folder)
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = bin + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["XDG_DATA_HOME"] = root + "/home/maya/.local/share"
        environment["HOME"] = root + "/home/maya"
        environment["NO_COLOR"] = "1"
        environment["SEARCHLIGHT_INDEX"] = nil
        for example in examples {
            let run = try runProgram(
                "/bin/sh", ["-c", Self.atCorpusTime(example.command)], environment: environment, directory: folder)
            // What a terminal shows: the report on stdout, then what went to stderr.
            let printed = (run.stdout + run.stderr).replacingOccurrences(of: root, with: "")
            var lines = printed.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            while lines.last == "" { lines.removeLast() }
            #expect(lines == example.expected, "\(example)\nprinted:\n\(lines.joined(separator: "\n"))")
        }
    }
}
