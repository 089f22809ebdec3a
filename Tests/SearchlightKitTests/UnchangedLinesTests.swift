import Foundation
import SearchlightKit
import SearchlightTesting
import Testing

/// Indexes a JSON Lines file the way `searchlight index` streams it: pieces read (and recognized)
/// on a second thread, all in one transaction. Returns the report and how many items were decoded.
private func indexLines(
    _ path: String, into index: SearchableIndex, options: IndexingOptions = IndexingOptions(), now: Int64,
    piece: Int = 2_000
) throws -> (report: IndexingReport, decoded: Int) {
    try index.performBatch { batch throws(SearchlightError) in
        var report = IndexingReport()
        var decoded = 0
        let filter = try batch.lineFilter(options: options, now: now)
        try BranchUniversalObjectReader.readLines(path: path, piece: piece, recognizing: filter) {
            piece throws(SearchlightError) in
            decoded += piece.objects.count
            report.merge(try batch.index([piece], options: options, now: now))
        }
        return (report, decoded)
    }
}

private func line(_ id: String, _ title: String, expiration: Int64? = nil) -> String {
    let expiry = expiration.map { #","$exp_date":\#($0)"# } ?? ""
    return #"{"$canonical_identifier":"\#(id)","$og_title":"\#(title)"\#(expiry)}"#
}

@Suite("Re-indexing unchanged JSON Lines (reference: index)", .temporaryFolder)
struct UnchangedLinesTests {
    @Test("an unchanged file is recognized line by line: nothing decoded, nothing rewritten")
    func unchangedFile() throws {
        let test = try TestIndex()
        let lines = (0..<300).map { line("item/\($0)", "Title \($0)", expiration: $0 % 3 == 0 ? now + day : nil) }
        let file = try TemporaryFolder.write("items.jsonl", lines.joined(separator: "\n") + "\n")
        let first = try indexLines(file, into: test.index, now: now, piece: 64)
        #expect(first.report.added == 300 && first.decoded == 300)
        let second = try indexLines(file, into: test.index, now: now + 1, piece: 64)
        #expect(second.report.unchanged == 300 && second.report.indexed == 300 && second.decoded == 0)
        #expect(second.report.added == 0 && second.report.updated == 0)
        #expect(try test.index.ids("\"title 123\"") == ["item/123"])
    }

    @Test("changed, expired and repeated lines are decoded and take effect; the last version wins")
    func changes() throws {
        let test = try TestIndex()
        let original = [line("a", "Apple"), line("b", "Banana", expiration: now + 10), line("c", "Cherry")]
        let file = try TemporaryFolder.write("items.jsonl", original.joined(separator: "\n"))
        _ = try indexLines(file, into: test.index, now: now)
        // "a" changes, "b" has expired by now, "c" is first changed, then back to the stored line.
        let edited = [line("a", "Apricot"), original[1], line("c", "Clementine"), original[2]]
        try TemporaryFolder.write("items.jsonl", edited.joined(separator: "\n"))
        let run = try indexLines(file, into: test.index, now: now + 10)
        #expect(run.report.updated == 3 && run.report.expired == 1)
        #expect(try test.index.item(withIdentifier: "a", now: now + 10)?.object.title == "Apricot")
        #expect(try test.index.item(withIdentifier: "b", now: now + 10) == nil)
        #expect(try test.index.item(withIdentifier: "c", now: now + 10)?.object.title == "Cherry")
        #expect(try test.index.ids("clementine", at: now + 10).isEmpty)
    }

    @Test("a file with a few changed lines rewrites only those; pieces wholly unchanged are not decoded")
    func fewChanges() throws {
        let test = try TestIndex()
        let lines = (0..<200).map { line("item/\($0)", "Title \($0)") }
        let file = try TemporaryFolder.write("items.jsonl", lines.joined(separator: "\n"))
        _ = try indexLines(file, into: test.index, now: now, piece: 50)
        var edited = lines
        edited[120] = line("item/120", "Retitled")
        try TemporaryFolder.write("items.jsonl", edited.joined(separator: "\n"))
        let run = try indexLines(file, into: test.index, now: now, piece: 50)
        #expect(run.report.updated == 1 && run.report.unchanged == 199 && run.report.indexed == 200)
        #expect(run.decoded <= 100)
        #expect(try test.index.ids("retitled") == ["item/120"])
    }

    @Test("lines are recognized only under the same options and while the clock did not shape them")
    func options() throws {
        let test = try TestIndex()
        let file = try TemporaryFolder.write(
            "items.jsonl", [line("a", "Apple"), line("b", "Banana")].joined(separator: "\n"))
        let shop = IndexingOptions(domainIdentifier: "com.example.shop")
        _ = try indexLines(file, into: test.index, options: shop, now: now)
        // Another domain is other items.
        let blog = try indexLines(
            file, into: test.index, options: IndexingOptions(domainIdentifier: "com.example.blog"), now: now)
        #expect(blog.report.added == 2 && blog.decoded == 2)
        // A default lifetime makes the expiration depend on the clock: decoded every time.
        let ttl = IndexingOptions(domainIdentifier: "com.example.ttl", defaultTimeToLive: .seconds(3600))
        _ = try indexLines(file, into: test.index, options: ttl, now: now)
        let sameClock = try indexLines(file, into: test.index, options: ttl, now: now)
        #expect(sameClock.decoded == 2 && sameClock.report.unchanged == 2)
        let laterClock = try indexLines(file, into: test.index, options: ttl, now: now + 1_000)
        #expect(laterClock.decoded == 2 && laterClock.report.updated == 2)
    }
}
