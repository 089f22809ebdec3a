import Foundation
import SearchlightTesting
import Testing

/// `searchlight search -i` in a real terminal: a tmux session of its own (its own server socket),
/// driven with send-keys and read with capture-pane.
private final class TmuxSession {
    let socket: String
    let outputPath: String
    let statusPath: String

    /// Runs the binary with `arguments` in a new session; its stdout goes to a file unless
    /// `stdoutOnScreen`.
    init(
        _ arguments: [String], environment: [String: String] = [:], columns: Int = 80, rows: Int = 24,
        stdoutOnScreen: Bool = false
    ) throws {
        socket = TemporaryFolder.path + "/tmux-" + UUID().uuidString.prefix(8)
        outputPath = socket + ".out"
        statusPath = socket + ".status"
        let settings = environment.map { "\($0.key)='\($0.value)'" }.joined(separator: " ")
        let unset = environment["NO_COLOR"] == nil ? "-u NO_COLOR" : ""
        let command =
            "env \(unset) \(settings) '\(binaryPath)' " + arguments.map { "'\($0)'" }.joined(separator: " ")
            + (stdoutOnScreen ? "" : " > '\(outputPath)'") + "; echo $? > '\(statusPath)'; sleep 30"
        try shell("new-session -d -x \(columns) -y \(rows) \(Self.quoted(command))")
    }

    /// Runs `tmux -S SOCKET ARGUMENTS` through the shell (tmux's server keeps the descriptors it
    /// is started with, so none of the test's own are handed to it); returns what it printed.
    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        try shell(arguments.map(Self.quoted).joined(separator: " "))
    }

    private func shell(_ arguments: String) throws -> String {
        let printed = socket + ".printed"
        let status = system(
            "/usr/bin/tmux -S \(Self.quoted(socket)) \(arguments) </dev/null >\(Self.quoted(printed)) 2>&1")
        let output = (try? String(contentsOfFile: printed, encoding: .utf8)) ?? ""
        guard status == 0 else { throw SearchlightTestError("tmux \(arguments): \(output)") }
        return output
    }

    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    func keys(_ keys: String...) throws { try tmux(["send-keys"] + keys) }

    /// What the terminal shows; with `escapes`, its colours and styles as escape sequences.
    func screen(escapes: Bool = false) throws -> String {
        try tmux(["capture-pane", "-p"] + (escapes ? ["-e"] : []))
    }

    /// Waits until the screen shows `text`, for at most 20 seconds; whether it did.
    func waitFor(_ text: String) throws -> Bool {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if try screen().contains(text) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    /// The program's exit status and what it printed on stdout, once it has ended.
    func finished() throws -> (status: Int32, output: String)? {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let status = try? String(contentsOfFile: statusPath, encoding: .utf8), !status.isEmpty {
                let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
                return (Int32(status.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1, output)
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return nil
    }

    deinit { _ = try? tmux(["kill-server"]) }
}

@Suite("searchlight search --interactive, in a terminal (tmux)", .temporaryFolder)
struct InteractiveTests {
    private func corpusIndex() throws -> Workspace {
        let workspace = try Workspace()
        #expect(try workspace.run(["index", repositoryRoot + "/corpus", "--now", corpusNow]).status == 0)
        return workspace
    }

    private func start(_ workspace: Workspace, _ extra: [String] = [], environment: [String: String] = [:])
        throws -> TmuxSession
    {
        let session = try TmuxSession(
            ["search", "-i", "--all-domains", "--index", workspace.index, "--now", corpusNow] + extra,
            environment: environment)
        // The view is up: the empty query lists every item.
        #expect(try session.waitFor("results"))
        return session
    }

    @Test("results follow each keystroke; down selects; Enter prints the identifier and exits 0")
    func selects() throws {
        let session = try start(try corpusIndex())
        try session.keys("deep lin")
        #expect(try session.waitFor("43 results"))
        let screen = try session.screen()
        #expect(screen.hasPrefix("> deep lin"))
        #expect(screen.contains("> Migrating to deep linking"))
        // The preview: title, description, facts, keywords, URL.
        #expect(screen.contains("id: article/deep-linking-006 · domain: com.example.blog · public · never expires"))
        #expect(screen.contains("keywords: deep linking, mobile"))
        try session.keys("Down", "C-n", "C-p")
        #expect(try session.waitFor("> Deep linking explained"))
        // The preview follows the selection; Enter prints its identifier.
        let facts = try #require(try session.screen().split(separator: "\n").first { $0.hasPrefix("id: ") })
        let identifier = String(try #require(facts.split(separator: " ").dropFirst().first))
        try session.keys("Enter")
        let finished = try #require(try session.finished())
        #expect(finished.status == 0 && finished.output == identifier + "\n")
    }

    @Test("the last word is a prefix; backspace and Ctrl-U edit; a quote left open is read to the end, and said so")
    func edits() throws {
        let session = try start(try corpusIndex())
        try session.keys("deep linki")
        #expect(try session.waitFor("Deep linking explained"))
        try session.keys("C-u", "title:\"tarte")
        #expect(try session.waitFor("read as title:\"tarte\""))
        try session.keys("C-u", "zzzzqqq")
        #expect(try session.waitFor("0 results"))
        try session.keys("Escape")
        let finished = try #require(try session.finished())
        #expect(finished.status == 130 && finished.output.isEmpty)
    }

    @Test("--print url prints the selection's URL; Ctrl-C leaves with 130 and gives the terminal back")
    func printsAndRestores() throws {
        let workspace = try corpusIndex()
        let session = try start(workspace, ["--print", "url"])
        try session.keys("universal links measuring the lift")
        #expect(try session.waitFor("> Universal Links: measuring the lift"))
        try session.keys("Enter")
        let printed = try #require(try session.finished())
        #expect(printed.status == 0 && printed.output.hasPrefix("https://"))
        // After it ends, the shell's screen is back: the alternate screen is gone.
        #expect(try !session.screen().contains("Universal Links: measuring the lift"))

        let interrupted = try start(workspace)
        try interrupted.keys("lamp")
        #expect(try interrupted.waitFor("result"))
        try interrupted.keys("C-c")
        #expect(try #require(try interrupted.finished()).status == 130)
    }

    @Test("it follows the terminal's size as it changes")
    func resizes() throws {
        let session = try start(try corpusIndex())
        try session.keys("deep")
        #expect(try session.waitFor("results"))
        #expect(try session.screen().split(separator: "\n").contains { $0.count == 80 && $0.allSatisfy { $0 == "─" } })
        try session.tmux(["resize-window", "-x", "100", "-y", "30"])
        let deadline = Date().addingTimeInterval(20)
        var wide = false
        while !wide, Date() < deadline {
            wide = try session.screen().split(separator: "\n").contains {
                $0.count == 100 && $0.allSatisfy { $0 == "─" }
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(wide)
        try session.keys("Escape")
        #expect(try session.finished()?.status == 130)
    }

    @Test("NO_COLOR and TERM=dumb get no colours: the selection is marked by >, matches by [brackets]")
    func noColor() throws {
        let workspace = try corpusIndex()
        let colored = try start(workspace)
        try colored.keys("deep")
        #expect(try colored.waitFor("43 results"))
        // tmux writes the selection's reverse video as ESC [0;7m.
        #expect(try colored.screen(escapes: true).contains(/\x{1B}\[[0-9;]*7m/))
        for environment in [["NO_COLOR": "1"], ["TERM": "dumb"]] {
            let plain = try start(workspace, environment: environment)
            try plain.keys("deep")
            #expect(try plain.waitFor("43 results"))
            let screen = try plain.screen(escapes: true)
            #expect(!screen.contains(/\x{1B}\[[0-9;]*[17]m/), "\(environment)")
            #expect(screen.contains("> Migrating to deep linking") && screen.contains("app to [deep] linking"))
        }
    }

    @Test("plain search output on a terminal is styled, but not with TERM=dumb or NO_COLOR")
    func plainSearchOnATerminal() throws {
        let workspace = try corpusIndex()
        let arguments = [
            "search", "deep", "--all-domains", "--index", workspace.index, "--now", corpusNow, "--limit", "2",
        ]
        let styled = try TmuxSession(arguments, stdoutOnScreen: true)
        #expect(try styled.waitFor("results for"))
        #expect(try styled.screen(escapes: true).contains(/\x{1B}\[[0-9;]*1m/))
        for environment in [["TERM": "dumb"], ["NO_COLOR": "1"]] {
            let plain = try TmuxSession(arguments, environment: environment, stdoutOnScreen: true)
            #expect(try plain.waitFor("results for"))
            #expect(try !plain.screen(escapes: true).contains(/\x{1B}\[[0-9;]*m/), "\(environment)")
        }
    }
}
