import Foundation
public import Testing

/// The database folder an index opens now: its current generation, or the folder itself.
public func currentDatabase(_ index: String) -> String {
    guard !FileManager.default.fileExists(atPath: index + "/iamglass"),
        let stub = try? String(contentsOfFile: index + "/XAPIANDB", encoding: .utf8),
        stub.hasPrefix("auto ")
    else { return index }
    return index + "/" + stub.dropFirst(5).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// The revision of the index's current database, as `xapian-delve` reports it; nil when it cannot
/// be read.
public func revision(of index: String) -> Int? {
    guard let run = try? runProgram("/usr/bin/xapian-delve", [currentDatabase(index)]), run.status == 0 else {
        return nil
    }
    let line = run.output.split(separator: "\n").first { $0.hasPrefix("revision = ") }
    return line.flatMap { Int($0.dropFirst("revision = ".count)) }
}

/// Runs a program to completion, in `directory` when given: its exit status and what it printed on
/// standard output and error together.
public func runProgram(
    _ path: String, _ arguments: [String], environment: [String: String] = [:], in directory: String? = nil
) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, text)
}

/// `xapian-check` (Debian's xapian-tools) on the index's current database: no error. Run through the
/// shell, as `xapian-metadata` is, so that the Kit's tests may call it under LeakSanitizer.
public func checkWithXapian(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let output = path + ".xapian-check"
    let status = system("/usr/bin/xapian-check '\(currentDatabase(path))' > '\(output)' 2>&1")
    let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    #expect(status == 0, "xapian-check: \(text)", sourceLocation: sourceLocation)
    #expect(text.contains("No errors found"), "xapian-check: \(text)", sourceLocation: sourceLocation)
}

/// The index format recorded in the index's current database (`xapian-metadata get`).
public func indexFormat(_ index: String) throws -> String { try indexMetadata(index, "searchlight.format") }

/// What the index's current database records under `key` (`xapian-metadata get`), white space
/// around it removed.
public func indexMetadata(_ index: String, _ key: String) throws -> String {
    let output = index + ".metadata"
    try xapianMetadata("get '\(currentDatabase(index))' '\(key)' > '\(output)'")
    return try String(contentsOfFile: output, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// Records `format` as the index's format, as an older Searchlight would have (`xapian-metadata set`;
/// no writer may hold the index).
public func setIndexFormat(_ index: String, _ format: String) throws {
    try xapianMetadata("set '\(currentDatabase(index))' searchlight.format '\(format)'")
}

/// Records `value` under `key` in the index's current database (`xapian-metadata set`; no writer
/// may hold the index).
public func setIndexMetadata(_ index: String, _ key: String, _ value: String) throws {
    try xapianMetadata("set '\(currentDatabase(index))' '\(key)' '\(value)'")
}

/// How many items of the index's current database hold `term` (`xapian-delve -t`): 0 for none.
public func termFrequency(_ index: String, _ term: String) throws -> Int {
    let output = index + ".delve"
    let status = system("/usr/bin/xapian-delve -t '\(term)' '\(currentDatabase(index))' > '\(output)' 2>&1")
    let text = try String(contentsOfFile: output, encoding: .utf8)
    #expect(status == 0, "xapian-delve -t \(term): \(text)")
    guard let found = text.firstRange(of: "termfreq ") else { return 0 }
    return Int(text[found.upperBound...].prefix { $0.isNumber }) ?? 0
}

/// Runs `xapian-metadata` through the shell: Foundation's `Process` leaks a weak reference on
/// every run, which LeakSanitizer reports in the Kit's tests.
private func xapianMetadata(_ arguments: String) throws {
    let status = system("/usr/bin/xapian-metadata " + arguments)
    #expect(status == 0, "xapian-metadata \(arguments): status \(status)")
}
