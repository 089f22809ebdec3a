package import ArgumentParser
package import FoundationEssentials
import Glibc
package import SearchlightKit

/// Where results and messages go: JSON or text on stdout, errors and progress on stderr.
package struct Output {
    package var json: Bool

    package init(json: Bool) { self.json = json }

    package static let stdoutIsTerminal = isatty(STDOUT_FILENO) == 1
    package static let stderrIsTerminal = isatty(STDERR_FILENO) == 1
    /// A terminal that cannot show colours or move the cursor (`TERM=dumb`).
    package static let terminalIsDumb = ProcessInfo.processInfo.environment["TERM"] == "dumb"
    /// What `--color` asked for; set as a command starts (``reportingErrors(_:_:)``).
    nonisolated(unsafe) package static var colorChoice = ColorChoice.auto
    /// Colours and styles: with `--color always`; never with `--color never`; else only on a
    /// terminal that can show them, and never when NO_COLOR is set (no-color.org).
    package static var useColor: Bool {
        switch colorChoice {
        case .always: true
        case .never: false
        case .auto: stdoutIsTerminal && !terminalIsDumb && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
        }
    }

    /// Prints `value` as pretty, key-sorted JSON.
    package func printJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder.searchlight(pretty: true)
        // Foundation pretty-prints an empty array or object over three lines; write `[]` and `{}`.
        let text = String(decoding: try encoder.encode(value), as: UTF8.self)
            .replacing(/\[\n\s*\n\s*\]/, with: "[]").replacing(/\{\n\s*\n\s*\}/, with: "{}")
        Self.write(Data((text + "\n").utf8), to: STDOUT_FILENO)
    }

    /// Prints `value` as one line of key-sorted JSON: a JSON Lines record.
    package func printJSONLine(_ value: some Encodable) throws {
        var line = try JSONEncoder.searchlight().encode(value)
        line.append(0x0A)
        Self.write(line, to: STDOUT_FILENO)
    }

    /// Writes a message to stderr, its text made harmless for a terminal (``shown(_:keepingLines:)``):
    /// messages quote identifiers, paths and queries that come from input.
    package static func warn(_ text: String) {
        write(Data((shown(text, keepingLines: true) + "\n").utf8), to: STDERR_FILENO)
    }

    /// `text` made harmless for a terminal: control characters (C0, DEL, C1, among them the escape
    /// that starts a terminal's control sequences) and the invisible marks that reorder text
    /// (bidirectional controls such as U+202E) are shown as `\u{…}`; tabs and line breaks become
    /// spaces unless `keepingLines`. Text output passes every value that comes from an item or
    /// an input through it; JSON output is never changed.
    package static func shown(_ text: some StringProtocol, keepingLines: Bool = false) -> String {
        func isHarmful(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.value {
            case 0...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
            default: false
            }
        }
        guard text.unicodeScalars.contains(where: isHarmful) else { return String(text) }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n" where keepingLines: result.append(scalar)
            case "\t", "\n", "\r": result.append(" ")
            case _ where isHarmful(scalar):
                result.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            default: result.append(scalar)
            }
        }
        return String(result)
    }

    /// Writes all of `bytes` to a file descriptor (stdout, stderr); a closed pipe ends the output.
    package static func write(_ bytes: Data, to descriptor: Int32) {
        bytes.withUnsafeBytes { buffer in
            guard var next = buffer.baseAddress else { return }
            var left = buffer.count
            while left > 0 {
                let written = Glibc.write(descriptor, next, left)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                next += written
                left -= written
            }
        }
    }

    /// `text` with spaces after it, to `width` characters.
    package static func padded(_ text: String, to width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }

    /// Identifiers read from standard input, one a line, trimmed; blank lines skipped. For many
    /// identifiers in one call: swift-argument-parser takes time growing with the square of the
    /// number of arguments (8,000 took 1.4 s), standard input does not.
    package static func identifiersFromStandardInput() throws(SearchlightError) -> [String] {
        let text = String(decoding: try BranchUniversalObjectReader.readStandardInput(), as: UTF8.self)
        return text.split(whereSeparator: \.isNewline).map { trimmed($0) }.filter { !$0.isEmpty }
    }

    /// `text` without the white space around it.
    package static func trimmed(_ text: some StringProtocol) -> String {
        guard let first = text.firstIndex(where: { !$0.isWhitespace }),
            let last = text.lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(text[first...last])
    }

    // MARK: Text styling

    /// `text` (made harmless, ``shown(_:keepingLines:)``) in bold on a terminal.
    package static func bold(_ text: String) -> String { useColor ? "\u{1B}[1m\(shown(text))\u{1B}[0m" : shown(text) }
    /// `text` (made harmless, ``shown(_:keepingLines:)``) dimmed on a terminal.
    package static func dim(_ text: String) -> String { useColor ? "\u{1B}[2m\(shown(text))\u{1B}[0m" : shown(text) }

    /// A snippet for a terminal (made harmless, ``shown(_:keepingLines:)``): matches bold yellow on a
    /// terminal, plain otherwise.
    package static func snippet(_ snippet: Snippet) -> String {
        useColor
            ? snippet.rendered(open: "\u{1B}[1;33m", close: "\u{1B}[0m", escape: { shown($0) })
            : shown(snippet.text)
    }

    /// A size in bytes, as `1.1 MiB`.
    package static func bytes(_ count: Int) -> String {
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let tenths = Int((value * 10).rounded())
        return unit == 0 ? "\(count) bytes" : "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }

    /// A number as people write it: whole numbers without a fraction, others with up to two
    /// decimals (`12`, `12.5`, `12.67`).
    package static func number(_ value: Double) -> String {
        guard value.isFinite else { return String(value) }
        let hundredths = (value * 100).rounded()
        if hundredths.truncatingRemainder(dividingBy: 100) == 0, abs(value) < 1e15 {
            return String(Int64(hundredths / 100))
        }
        let text = String(hundredths / 100)
        return text.count > 20 ? String(value) : text
    }

    /// A date in epoch ms, as `2026-12-01 10:00 UTC` (computed directly: no locale is involved).
    package static func date(_ milliseconds: Int64?) -> String {
        guard let milliseconds else { return "never" }
        var seconds = time_t((milliseconds - (milliseconds < 0 ? 999 : 0)) / 1000)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return "\(milliseconds) ms" }
        func padded(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(parts.tm_year + 1900, 4))-\(padded(parts.tm_mon + 1, 2))-\(padded(parts.tm_mday, 2)) "
            + "\(padded(parts.tm_hour, 2)):\(padded(parts.tm_min, 2)) UTC"
    }
}

/// The exit statuses (docs/reference.md, *Exit statuses*).
package enum ExitStatus {
    package static let failure = ExitCode(1)
    package static let usage = ExitCode(64)
    package static let noIndex = ExitCode(66)
    /// A shard of the index cannot be reached (sysexits' EX_UNAVAILABLE).
    package static let unavailable = ExitCode(69)
    package static let locked = ExitCode(75)
}

/// The JSON shape of a fatal error: `{"error":{"code","message"}}`.
struct ErrorDocument: Encodable {
    struct Body: Encodable {
        var code: Int
        var message: String
    }
    var error: Body
}

extension ParsableCommand {
    /// Runs `body`, turning a ``SearchlightError`` into a message on stderr (and a JSON error
    /// document with `--json`) and the exit status the error calls for.
    package func reportingErrors(_ options: GlobalOptions, _ body: () throws -> Void) throws {
        Output.colorChoice = options.color
        do {
            try body()
        } catch let error as SearchlightError {
            Output.warn("searchlight: \(error.withAdvice)")
            if options.json {
                try? options.output.printJSON(
                    ErrorDocument(error: .init(code: error.code.rawValue, message: error.withAdvice.message)))
            }
            throw error.exitCode
        }
    }
}

/// A progress report on stderr: on a terminal, one line rewritten in place ten times a second;
/// elsewhere (a log, with `--progress`), a line a second. Silent unless stderr is a terminal or
/// `forced`, and always with `quiet`.
package final class Progress {
    private let enabled: Bool
    /// Rewrite one line in place (a terminal), or write lines (a log).
    private let inPlace: Bool
    private let start = ContinuousClock.now
    /// The first update draws at once.
    private var lastDraw = ContinuousClock.now - .seconds(1)
    private var drawn = 0

    package init(forced: Bool = false, quiet: Bool = false) {
        enabled = !quiet && (forced || Output.stderrIsTerminal)
        inPlace = Output.stderrIsTerminal
    }

    package func update(_ text: (Double) -> String, force: Bool = false) {
        guard enabled else { return }
        let now = ContinuousClock.now
        guard force || now - lastDraw > (inPlace ? .milliseconds(100) : .seconds(1)) else { return }
        lastDraw = now
        let elapsed = now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let line = text(max(seconds, 0.001))
        if !inPlace {
            Output.write(Data((line + "\n").utf8), to: STDERR_FILENO)
        } else if Output.terminalIsDumb {
            // No escapes: the line is padded over the last one.
            let padding = String(repeating: " ", count: max(0, drawn - line.count))
            Output.write(Data(("\r" + line + padding).utf8), to: STDERR_FILENO)
        } else {
            Output.write(Data(("\r\u{1B}[2K" + line).utf8), to: STDERR_FILENO)
        }
        drawn = max(drawn, line.count)
    }

    package func finish() {
        guard enabled, inPlace, drawn > 0 else { return }
        let clear = Output.terminalIsDumb ? "\r" + String(repeating: " ", count: drawn) + "\r" : "\r\u{1B}[2K"
        Output.write(Data(clear.utf8), to: STDERR_FILENO)
    }
}
