import Foundation
import SearchlightTesting
import Testing

/// The repository's root, for `corpus/`.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

/// The corpus's reference "now": 2026-11-20 00:00 UTC, in epoch ms.
let corpusNow = "1795132800000"

/// The built `searchlight` binary: beside the test bundle, or $SEARCHLIGHT_BINARY.
let binaryPath: String = {
    if let path = ProcessInfo.processInfo.environment["SEARCHLIGHT_BINARY"] { return path }
    let bundle = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
    return bundle.deletingLastPathComponent().appendingPathComponent("searchlight").path
}()

/// What a run of the binary printed and how it ended.
struct Run {
    var status: Int32
    var stdout: String
    var stderr: String
    /// The most memory the run held at once (its resident set's high-water mark), in bytes.
    var peakMemoryBytes = 0

    /// stdout parsed as JSON.
    func json(sourceLocation: SourceLocation = #_sourceLocation) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(stdout.utf8), options: [.fragmentsAllowed])
    }

    func object(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        try #require(
            try json() as? [String: Any], "stdout is not a JSON object: \(stdout)", sourceLocation: sourceLocation)
    }
}

/// A folder in the test's temporary folder (its suite has the `.temporaryFolder` trait), with an
/// index path inside.
final class Workspace: Sendable {
    let path: String
    var index: String { path + "/index" }

    init() throws { path = try TemporaryFolder.subfolder("workspace") }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        try TemporaryFolder.write(name, text, in: path)
    }

    /// Runs `searchlight SUBCOMMAND --index <this index> ARGUMENTS…` unless the arguments name their own.
    func run(
        _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], useIndex: Bool = true,
        timeout: Double = 120
    ) throws -> Run {
        var arguments = arguments
        if useIndex, !arguments.contains("--index"), !(arguments.first?.hasPrefix("-") ?? true) {
            // Right after the subcommand (`fields add`'s too), so that it stays an option when the
            // arguments hold `--`.
            let nested = arguments.first == "fields" && ["list", "add", "remove"].contains(arguments.dropFirst().first)
            arguments.insert(contentsOf: ["--index", index], at: nested ? 2 : 1)
        }
        return try runBinary(arguments, stdin: stdin, environment: environment, timeout: timeout)
    }
}

/// Runs the binary to completion with the given standard input.
/// A run that outlives `timeout` seconds is killed, and its status is then SIGKILL's.
func runBinary(
    _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], timeout: Double = 120
) throws -> Run {
    var env = ProcessInfo.processInfo.environment
    env["NO_COLOR"] = "1"
    // By words alone, unless a test of meaning names the model: embedding the thousands of items
    // other tests write would take minutes (MeaningTests).
    env["SEARCHLIGHT_MODEL"] = "none"
    for (key, value) in environment { env[key] = value }
    return try runProgram(binaryPath, arguments, stdin: stdin, environment: env, timeout: timeout)
}

/// Runs `program` to completion in `directory` (the test's own when nil) with exactly
/// `environment`. A run that outlives `timeout` seconds is killed, and its status is then SIGKILL's.
func runProgram(
    _ program: String, _ arguments: [String], stdin: String? = nil, environment: [String: String],
    directory: String? = nil, timeout: Double = 120
) throws -> Run {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    process.environment = environment
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    // Output goes to files, so that a large output cannot fill a pipe and stall the child.
    let base = TemporaryFolder.path + "/run-" + UUID().uuidString
    _ = FileManager.default.createFile(atPath: base + ".out", contents: nil)
    _ = FileManager.default.createFile(atPath: base + ".err", contents: nil)
    defer {
        try? FileManager.default.removeItem(atPath: base + ".out")
        try? FileManager.default.removeItem(atPath: base + ".err")
    }
    let output = try #require(FileHandle(forWritingAtPath: base + ".out"))
    let errors = try #require(FileHandle(forWritingAtPath: base + ".err"))
    let input = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try input.fileHandleForWriting.close()
    let deadline = Date().addingTimeInterval(timeout)
    var peak = 0
    while process.isRunning, Date() < deadline {
        peak = max(peak, highWaterMark(of: process.processIdentifier))
        Thread.sleep(forTimeInterval: 0.005)
    }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    try output.close()
    try errors.close()
    let outData = try Data(contentsOf: URL(fileURLWithPath: base + ".out"))
    let errData = try Data(contentsOf: URL(fileURLWithPath: base + ".err"))
    return Run(
        status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errData, as: UTF8.self), peakMemoryBytes: peak)
}

/// A running process's resident set high-water mark (`VmHWM`), in bytes; 0 once it has ended.
private func highWaterMark(of process: Int32) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    else { return 0 }
    return kilobytes << 10
}

/// A JSON text in a canonical form (sorted keys, pretty), for comparing whole outputs.
func canonicalJSON(_ text: String) throws -> String {
    let value = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    let data = try JSONSerialization.data(
        withJSONObject: value, options: [.sortedKeys, .prettyPrinted, .fragmentsAllowed])
    return String(decoding: data, as: UTF8.self)
}

/// A run of the binary in the background. Its standard output is discarded; its standard error
/// is kept in a file, to say why it failed.
final class BackgroundRun {
    private let process: Process
    private let errorPath: String

    fileprivate init(process: Process, errorPath: String) {
        self.process = process
        self.errorPath = errorPath
    }

    var isRunning: Bool { process.isRunning }
    var processIdentifier: Int32 { process.processIdentifier }

    /// Waits for it to end: its exit status and what it wrote to standard error.
    @discardableResult
    func finish() -> (status: Int32, stderr: String) {
        process.waitUntilExit()
        let errors = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: errorPath)
        return (process.terminationStatus, errors)
    }
}

/// Starts the binary in the background, its standard input read from the file `stdin` if given.
func startBinary(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws
    -> BackgroundRun
{
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binaryPath)
    process.arguments = arguments
    // By words alone, unless a test of meaning names the model (as `runBinary`).
    process.environment = ProcessInfo.processInfo.environment.merging(
        ["SEARCHLIGHT_MODEL": "none"].merging(environment) { $1 }
    ) { $1 }
    if let stdin { process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: stdin)) }
    let errorPath = TemporaryFolder.path + "/background-" + UUID().uuidString + ".err"
    _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
    let errors = try #require(FileHandle(forWritingAtPath: errorPath))
    defer { try? errors.close() }
    process.standardOutput = FileHandle.nullDevice
    process.standardError = errors
    try process.run()
    return BackgroundRun(process: process, errorPath: errorPath)
}
