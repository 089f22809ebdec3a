import Foundation
import SearchlightTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A WebDriver session on headless Chromium, through chromedriver's HTTP protocol.
final class Browser {
    let driver = Process()
    let base: String
    private(set) var session = ""
    static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

    init() async throws {
        let port = 9515 + Int.random(in: 1...2000)
        driver.executableURL = URL(fileURLWithPath: "/usr/bin/chromedriver")
        driver.arguments = ["--port=\(port)"]
        driver.standardOutput = FileHandle.nullDevice
        driver.standardError = FileHandle.nullDevice
        try driver.run()
        base = "http://127.0.0.1:\(port)"
        for _ in 0..<100 {
            if let status = try? Self.curl("GET", base + "/status"), status.contains("\"ready\":true") { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let capabilities = """
            {"capabilities":{"alwaysMatch":{"browserName":"chrome","goog:chromeOptions":{"binary":"/usr/bin/chromium",
             "args":["--headless=new","--no-sandbox","--disable-gpu","--disable-dev-shm-usage","--window-size=390,844"]}}}}
            """
        let created = try await command("POST", "/session", capabilities, inSession: false)
        session = try #require((created["value"] as? [String: Any])?["sessionId"] as? String)
    }

    @discardableResult
    func command(_ method: String, _ path: String, _ body: String? = nil, inSession: Bool = true) async throws
        -> [String: Any]
    {
        let url = base + (inSession ? "/session/\(session)" : "") + path
        let text = try Self.curl(method, url, body: body ?? (method == "POST" ? "{}" : nil))
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    /// chromedriver's responses trip Foundation's HTTP client on Linux ("Failed writing header"),
    /// so WebDriver calls go through curl.
    static func curl(_ method: String, _ url: String, body: String? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments =
            ["-s", "-X", method, "-H", "Content-Type: application/json", url]
            + (body.map { ["--data-binary", $0] } ?? [])
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    func open(_ url: String) async throws { try await command("POST", "/url", #"{"url":"\#(url)"}"#) }

    func elements(_ css: String) async throws -> [String] {
        let found = try await command("POST", "/elements", #"{"using":"css selector","value":"\#(css)"}"#)
        return (found["value"] as? [[String: Any]] ?? []).compactMap { $0[Self.elementKey] as? String }
    }

    func text(_ element: String) async throws -> String {
        try await command("GET", "/element/\(element)/text")["value"] as? String ?? ""
    }

    func type(_ css: String, _ text: String) async throws {
        let element = try #require(try await elements(css).first)
        try await command("POST", "/element/\(element)/clear")
        let escaped = String(decoding: try JSONSerialization.data(withJSONObject: [text]), as: UTF8.self).dropFirst()
            .dropLast()
        try await command("POST", "/element/\(element)/value", #"{"text":\#(escaped)}"#)
    }

    func click(_ element: String) async throws { try await command("POST", "/element/\(element)/click") }

    /// What the query box holds now.
    func queryBox() async throws -> String {
        let value = try await command(
            "POST", "/execute/sync", #"{"script":"return document.getElementById('q').value","args":[]}"#)
        return value["value"] as? String ?? ""
    }

    /// Waits until `condition` holds, up to 10 s.
    func waitFor(_ what: String, _ condition: () async throws -> Bool) async throws {
        for _ in 0..<100 {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("timed out waiting for \(what)")
    }

    func screenshot(to path: String) async throws {
        let encoded = try #require(try await command("GET", "/screenshot")["value"] as? String)
        try Data(base64Encoded: encoded)?.write(to: URL(fileURLWithPath: path))
    }

    func quit() async {
        _ = try? await command("DELETE", "")
        // chromedriver does not always stop on SIGTERM.
        kill(driver.processIdentifier, SIGKILL)
        driver.waitUntilExit()
    }
}

@Suite("The search page in a real browser", .temporaryFolder)
struct BrowserTests {
    @Test("typing shows results as you type, they update, matches are marked, and a result opens")
    func searchPage() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver"),
            "chromium and chromium-driver are needed: scripts/install-dependencies installs them")
        let workspace = try Workspace()
        #expect(try workspace.run(["index", repositoryRoot + "/corpus", "--now", corpusNow]).status == 0)
        #expect(try workspace.run(["fields", "add", "warehouse", "--type", "string"]).status == 0)
        let server = try RunningServer(index: workspace.index)
        let browser = try await Browser()
        do {
            try await browser.open(server.baseURL + "/")
            try await browser.type("#q", "deep link")
            // The page first lists every item (the empty query); the typed query's results have marks.
            try await browser.waitFor("results for “deep link”") {
                guard try await !browser.elements(".result mark").isEmpty,
                    let first = try await browser.elements(".result .title").first
                else { return false }
                return try await browser.text(first).lowercased().contains("deep link")
            }
            let status = try #require(try await browser.elements("#status").first)
            #expect(try await browser.text(status).hasSuffix("results"))

            // A question no item answers in full: the items with most of its words, and the page says so.
            try await browser.type("#q", "deep link zzqqxx")
            try await browser.waitFor("relaxed results") {
                guard let status = try await browser.elements("#status").first else { return false }
                return try await browser.text(status).contains("no item has every word")
            }
            #expect(try await !browser.elements(".result").isEmpty)

            // Counts over every match, each a filter: a category narrows the query and the results.
            try await browser.type("#q", "shoes")
            try await browser.waitFor("the categories of the shoes") {
                try await browser.elements("#facets button").count >= 2
            }
            // The index's custom field is counted beside the built-in attributes (read again while the
            // page redraws the counts for meaning's results).
            var rows: [String] = []
            try await browser.waitFor("the custom field's counts") {
                rows = []
                for row in try await browser.elements("#facets div") { rows.append(try await browser.text(row)) }
                return rows.contains { $0.hasPrefix("warehouse: ") }
            }
            #expect(rows.contains { $0.hasPrefix("warehouse: ") }, "\(rows)")
            // The page draws its buttons again when meaning's results arrive, so a button found just
            // before may be gone when clicked: click the category's current button until it takes.
            var label = ""
            try await browser.waitFor("the category to enter the query box") {
                if try await browser.queryBox() != "shoes" { return true }
                for button in try await browser.elements("#facets button") {
                    let text = try await browser.text(button)
                    if text.hasPrefix("Running (") {
                        label = text
                        try await browser.click(button)
                        break
                    }
                }
                return false
            }
            // As many results as the button counted, and the filter in the query box.
            let counted = label.drop { $0 != "(" }.dropFirst().prefix { $0.isNumber }
            try await browser.waitFor("the query to narrow to the category") {
                guard let status = try await browser.elements("#status").first else { return false }
                return try await browser.text(status).hasPrefix("\(counted) result")
            }
            #expect(try await browser.queryBox() == #"shoes category:"Running""#)

            try await browser.type("#q", "深度链接")
            try await browser.waitFor("results to update to Chinese") {
                guard let first = try await browser.elements(".result .title").first else { return false }
                return try await browser.text(first).contains("深度链接")
            }
            let first = try #require(try await browser.elements(".result").first)
            try await browser.click(first)
            try await browser.waitFor("the item to open") {
                guard let detail = try await browser.elements("#detail").first else { return false }
                return try await browser.text(detail).contains("$canonical_identifier")
            }
            if let path = ProcessInfo.processInfo.environment["SEARCHLIGHT_SCREENSHOT"] {
                try await browser.type("#q", "creme")
                try await Task.sleep(for: .milliseconds(600))
                try await browser.command("POST", "/execute/sync", #"{"script":"window.scrollTo(0, 0)","args":[]}"#)
                try await browser.screenshot(to: path)
            }
        } catch {
            await browser.quit()
            _ = server.stop()
            throw error
        }
        await browser.quit()
        #expect(server.stop() == 0)
    }
}
