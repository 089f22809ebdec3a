import ArgumentParser
import Dispatch
import FoundationEssentials
import Glibc
import SearchlightCommandLine
import SearchlightKit
import Synchronization

/// `search --interactive`: a full-screen view on the terminal whose results follow each
/// keystroke, with a preview of the selected item. Enter prints the selection on stdout (as `fzf`
/// does); Escape or Ctrl-C leaves with status 130.
final class InteractiveSearch {
    /// What Enter prints of the selected item.
    enum Printed: String, CaseIterable, ExpressibleByArgument {
        case id, url, json
    }

    private let index: SearchableIndex
    private let template: SearchQuery
    private let now: Int64
    private let printed: Printed
    private let color: Bool
    private let terminal: Terminal

    private var query = ""
    private var page: SearchResults?
    private var failure: String?
    private var selected = 0

    /// Searches run on a queue of their own, one at a time; a search whose query has been typed
    /// over since it started is thrown away, and only the latest query waiting runs next.
    private let searches = DispatchQueue(label: "searchlight.interactive")
    private let state = SearchState()
    /// Written to when a search ends or the terminal's size changes, to wake the drawing loop.
    private var wake: [Int32] = [-1, -1]

    init(index: SearchableIndex, template: SearchQuery, now: Int64, printed: Printed, color: Bool) throws {
        self.index = index
        self.template = template
        self.now = now
        self.printed = printed
        self.color = color
        terminal = try Terminal()
        guard pipe(&wake) == 0 else { throw ExitStatus.failure }
        query = template.text
    }

    deinit {
        close(wake[0])
        close(wake[1])
    }

    /// Runs until Enter, Escape or Ctrl-C; the exit status, and what to print on stdout.
    func run() -> (status: Int32, output: String?) {
        let resized = Self.onResize(wake: wake[1])
        defer {
            resized.cancel()
            terminal.restore()
        }
        search()
        draw()
        while true {
            var polled = [
                pollfd(fd: terminal.descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake[0], events: Int16(POLLIN), revents: 0),
            ]
            guard poll(&polled, 2, -1) >= 0 || errno == EINTR else { return (1, nil) }
            if polled[1].revents != 0 {
                var drained = [UInt8](repeating: 0, count: 64)
                _ = read(wake[0], &drained, drained.count)
                if let (finishedQuery, outcome) = state.takeFinished(), finishedQuery == query {
                    switch outcome {
                    case .success(let results):
                        page = results
                        failure = nil
                        selected = min(selected, max(0, results.results.count - 1))
                    case .failure(let error):
                        failure = error.message
                    }
                }
                draw()
            }
            guard polled[0].revents != 0 else { continue }
            for key in terminal.readKeys() {
                switch key {
                case .text(let typed):
                    query += typed
                    selected = 0
                    search()
                case .backspace:
                    guard !query.isEmpty else { continue }
                    query.removeLast()
                    selected = 0
                    search()
                case .clearLine:
                    query = ""
                    selected = 0
                    search()
                case .up: selected = max(0, selected - 1)
                case .down: selected = min(max(0, (page?.results.count ?? 0) - 1), selected + 1)
                case .enter:
                    guard let result = page?.results[safe: selected] else { return (1, nil) }
                    return (0, output(for: result))
                case .escape, .interrupt: return (130, nil)
                case .other: continue
                }
            }
            draw()
        }
    }

    /// How long typing must pause before meaning joins the words' results.
    static let meaningPause = DispatchTimeInterval.milliseconds(500)

    /// Starts searching for the query as it is now (after the search running, if one is): by its
    /// words at once, then, when it is still the query after a pause, by words and meaning.
    private func search() {
        var template = self.template
        template.text = query
        state.submit(query)
        let byMeaning = template.semanticRatio != 0
        var byWords = template
        if byMeaning { byWords.semanticRatio = 0 }
        let (query, index, now, state, wake) = (self.query, self.index, self.now, self.state, self.wake[1])
        let run: @Sendable (SearchQuery) -> Void = { request in
            // Only the latest query waiting runs; the others were typed over.
            guard state.isLatest(query) else { return }
            let outcome = Result { () throws(SearchlightError) in
                // The search checks the query against the index's fields.
                try index.search(request, now: now)
            }
            state.finish(query, outcome)
            var one: UInt8 = 1
            _ = write(wake, &one, 1)
        }
        let (first, later) = (byWords, template)
        searches.async { run(first) }
        if byMeaning { searches.asyncAfter(deadline: .now() + Self.meaningPause) { run(later) } }
    }

    private func output(for result: SearchResult) -> String {
        switch printed {
        case .id: return result.canonicalIdentifier
        case .url: return result.canonicalUrl ?? result.canonicalIdentifier
        case .json:
            let data = (try? JSONEncoder.searchlight().encode(result)) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }
    }

    // MARK: Drawing

    private func draw() {
        let (columns, rows) = terminal.size
        var lines: [String] = []
        let status: String
        if let failure {
            status = Terminal.fit(Output.shown(failure), columns)
        } else if let page {
            let counted = page.total == 1 ? "1 result" : "\(page.total) results"
            let relaxed = page.relaxed ? "\(counted) (none has every word; these have the most)" : counted
            status = page.readAs.map { "\(relaxed) · read as \(Output.shown($0))" } ?? relaxed
        } else {
            status = "Searching…"
        }
        lines.append(style("2", Terminal.fit(status, columns)))
        let results = page?.results ?? []
        // The list takes up to half the screen; the preview the rest.
        let listRows = max(1, min(results.count, (rows - 3) / 2))
        let first = max(0, min(selected - listRows + 1, results.count - listRows))
        for position in first..<min(results.count, first + listRows) {
            let result = results[position]
            let title = Output.shown(result.title.flatMap { $0.isEmpty ? nil : $0 } ?? result.canonicalIdentifier)
            let line = Terminal.fit((position == selected ? "> " : "  ") + title, columns)
            lines.append(
                position == selected
                    ? style("7", line + String(repeating: " ", count: max(0, columns - Terminal.width(line)))) : line)
        }
        lines.append(style("2", String(repeating: "─", count: columns)))
        if let result = results[safe: selected] { lines += preview(result, columns: columns) }
        var screen = "\u{1B}[?25l\u{1B}[H"
        let prompt = "> " + Output.shown(query)
        screen += "\u{1B}[2K" + Terminal.fit(prompt, columns) + "\r\n"
        for line in lines.prefix(max(0, rows - 1)) { screen += "\u{1B}[2K" + line + "\r\n" }
        screen += "\u{1B}[J"
        // The cursor back at the end of the query.
        screen += "\u{1B}[1;\(min(columns, Terminal.width(prompt) + 1))H\u{1B}[?25h"
        terminal.write(screen)
    }

    private func preview(_ result: SearchResult, columns: Int) -> [String] {
        var lines: [String] = []
        let title = result.title.flatMap { $0.isEmpty ? nil : $0 } ?? result.canonicalIdentifier
        lines.append(style("1", Terminal.fit(Output.shown(title), columns)))
        let description =
            result.snippet.text.isEmpty
            ? Output.shown(result.contentDescription ?? "")
            : result.snippet.rendered(
                open: color ? "\u{1B}[1;33m" : "[", close: color ? "\u{1B}[0m" : "]",
                escape: { Output.shown($0) })
        lines += wrap(description, columns: columns).prefix(4)
        var facts = [
            "id: \(result.canonicalIdentifier)", "domain: \(result.domain)", result.contentIndexMode.rawValue,
        ]
        facts.append(result.expirationDate.map { "expires \(Output.date($0))" } ?? "never expires")
        lines.append(style("2", Terminal.fit(Output.shown(facts.joined(separator: " · ")), columns)))
        if !result.keywords.isEmpty {
            lines.append(Terminal.fit("keywords: " + Output.shown(result.keywords.joined(separator: ", ")), columns))
        }
        if let url = result.canonicalUrl { lines.append(Terminal.fit(Output.shown(url), columns)) }
        return lines
    }

    /// `text` broken into lines of at most `columns` columns, at spaces where it can be (escape
    /// sequences take no columns).
    private func wrap(_ text: String, columns: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        var used = 0
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            let visible = Terminal.width(word.replacing(/\x{1B}\[[0-9;]*m/, with: ""))
            if used > 0, used + 1 + visible > columns {
                lines.append(line)
                line = ""
                used = 0
            }
            if used > 0 {
                line += " "
                used += 1
            }
            line += word
            used += visible
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    private func style(_ code: String, _ text: String) -> String {
        color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    /// Redraws on SIGWINCH, through `wake`.
    private static func onResize(wake: Int32) -> any DispatchSourceSignal {
        signal(SIGWINCH, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        source.setEventHandler {
            var one: UInt8 = 1
            _ = write(wake, &one, 1)
        }
        source.resume()
        return source
    }
}

/// The query typed last, and the outcome of the latest search to finish, shared between the
/// drawing loop and the search queue.
private final class SearchState: Sendable {
    private struct Shared {
        var latest = ""
        var finished: (String, Result<SearchResults, SearchlightError>)?
    }
    private let shared = Mutex(Shared())

    func submit(_ query: String) { shared.withLock { $0.latest = query } }
    func isLatest(_ query: String) -> Bool { shared.withLock { $0.latest == query } }
    func finish(_ query: String, _ outcome: Result<SearchResults, SearchlightError>) {
        shared.withLock { $0.finished = (query, outcome) }
    }
    func takeFinished() -> (String, Result<SearchResults, SearchlightError>)? {
        shared.withLock { shared in
            defer { shared.finished = nil }
            return shared.finished
        }
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
