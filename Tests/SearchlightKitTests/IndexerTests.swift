import Foundation
import SearchlightKit
import SearchlightTesting
import Testing

/// One JSON Lines line: item `id` with a title and a description long enough that a few thousand
/// lines pass ``Indexer/directInputLimit`` and go through segment builders.
private func line(_ id: String, title: String, expiration: Int64? = nil) -> String {
    let filler = (0..<40).map { "word\($0 % 17)" }.joined(separator: " ")
    let expires = expiration.map { #","expirationDate":\#($0)"# } ?? ""
    return #"{"canonicalIdentifier":"\#(id)","title":"\#(title)","contentDescription":"\#(filler)","#
        + #""contentIndexMode":"public"\#(expires)}"#
}

private func lines(_ range: Range<Int>, title: (Int) -> String = { "alpha \($0)" }) -> [String] {
    range.map { line("item/\($0)", title: title($0)) }
}

private func write(_ lines: [String], _ name: String = "items.jsonl") throws -> String {
    try TemporaryFolder.write(name, lines.joined(separator: "\n") + "\n")
}

private func files(_ path: String) throws -> Set<String> {
    Set(try FileManager.default.contentsOfDirectory(atPath: path))
}

private func title(_ index: SearchableIndex, _ id: String) throws -> String? {
    try index.item(withIdentifier: id, now: now)?.object.title
}

@Suite("Bulk indexing through segment builders (design: bulk builds)", .temporaryFolder)
struct IndexerTests {
    let indexer = Indexer(options: IndexingOptions(maximumTimeToLive: nil), jobs: 3, now: now)

    @Test("a large run is built in segments and published as a new generation; every item is searchable")
    func freshBuild() throws {
        let test = try TestIndex()
        let input = try write(lines(0..<3_000))
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)).count > Indexer.directInputLimit)
        let report = try indexer.index([.path(input)], into: test.index)
        #expect(report.added == 3_000 && report.indexed == 3_000 && report.updated == 0)
        #expect(try files(test.path).isSuperset(of: ["XAPIANDB", "gen-000001"]))
        #expect(try files(test.path).allSatisfy { !$0.hasPrefix("build-") })
        #expect(try test.index.statistics(now: now).documents == 3_000)
        #expect(try test.index.ids("alpha 1234").first == "item/1234")
        // Spelling data comes through the merge.
        #expect(try test.index.search(SearchQuery("alpah", typos: false), now: now).suggestion == "alpha")
    }

    @Test("one segment builder and three give the same index")
    func jobsAgree() throws {
        let input = try write(lines(0..<2_500))
        var contents: [[String]] = []
        for jobs in [1, 3] {
            let test = try TestIndex()
            var one = indexer
            one.jobs = jobs
            #expect(try one.index([.path(input)], into: test.index).added == 2_500)
            var ids: [String] = []
            try test.index.forEachItem(domainIdentifier: nil, now: now) { ids.append($0.object.canonicalIdentifier) }
            contents.append(ids.sorted())
        }
        #expect(contents[0] == contents[1] && contents[0].count == 2_500)
    }

    @Test("a second run updates what changed, adds what is new, removes what expired, and skips the rest")
    func rerun() throws {
        let test = try TestIndex()
        _ = try indexer.index([.path(try write(lines(0..<3_000)))], into: test.index)
        var second = lines(0..<3_000) { $0 % 10 == 0 ? "beta \($0)" : "alpha \($0)" }
        second[5] = line("item/5", title: "alpha 5", expiration: now - 1)
        second += lines(3_000..<3_100)
        let report = try indexer.index([.path(try write(second))], into: test.index)
        #expect(report.updated == 300)
        #expect(report.added == 100)
        #expect(report.expired == 1)
        #expect(report.unchanged == 2_699)
        #expect(try title(test.index, "item/10") == "beta 10")
        #expect(try title(test.index, "item/11") == "alpha 11")
        #expect(try title(test.index, "item/5") == nil)
        #expect(try test.index.statistics(now: now).documents == 3_099)
        #expect(try test.index.ids("beta").count == 100)
        // The same file again: nothing to write, no new generation.
        let generations = try files(test.path).filter { $0.hasPrefix("gen-") }
        let again = try indexer.index([.path(try write(second))], into: test.index)
        #expect(again.unchanged == 3_099 && again.added == 0 && again.updated == 0)
        #expect(try files(test.path).filter { $0.hasPrefix("gen-") } == generations)
    }

    @Test("an item repeated in a run ends as its last occurrence, across segments and files")
    func lastOccurrenceWins() throws {
        let test = try TestIndex()
        _ = try indexer.index([.path(try write(lines(0..<3_000), "first.jsonl"))], into: test.index)
        // item/7 changes early and comes back unchanged at the end (recognized, not decoded);
        // item/8 changes twice; item/9 changes and then expires; new/1 is added twice.
        var run = lines(0..<3_000)
        run[7] = line("item/7", title: "gamma 7")
        run[8] = line("item/8", title: "gamma 8")
        run[9] = line("item/9", title: "gamma 9")
        run.insert(line("new/1", title: "delta first"), at: 100)
        run += [
            line("item/7", title: "alpha 7"), line("item/8", title: "epsilon 8"),
            line("item/9", title: "gamma 9", expiration: now - 1), line("new/1", title: "delta second"),
        ]
        let second = try write(run, "second.jsonl")
        let report = try indexer.index(
            [.path(second), .path(try write([line("item/8", title: "zeta 8")], "z.jsonl"))], into: test.index)
        #expect(try title(test.index, "item/7") == "alpha 7")
        #expect(try title(test.index, "item/8") == "zeta 8")
        #expect(try title(test.index, "item/9") == nil)
        #expect(try title(test.index, "new/1") == "delta second")
        #expect(try test.index.ids("gamma").isEmpty)
        #expect(try test.index.ids("delta") == ["new/1"])
        #expect(try test.index.statistics(now: now).documents == 3_000)
        #expect(report.added == 1 && report.expired == 1)
        #expect(report.indexed == report.added + report.updated + report.unchanged)
    }

    @Test("a run that changes little of a large index is written into the current generation")
    func smallChangeApplies() throws {
        let test = try TestIndex()
        _ = try indexer.index([.path(try write(lines(0..<3_000)))], into: test.index)
        var run = lines(0..<3_000)
        run[42] = line("item/42", title: "omega 42")
        let report = try indexer.index([.path(try write(run))], into: test.index)
        #expect(report.updated == 1 && report.unchanged == 2_999)
        #expect(try files(test.path).filter { $0.hasPrefix("gen-") } == ["gen-000001"])
        #expect(try test.index.ids("omega") == ["item/42"])
        #expect(try test.index.ids("title:\"alpha 42\"").isEmpty)
    }

    @Test("items read from another file are reported unchanged and remember the new file")
    func itemsMoveBetweenFiles() throws {
        let test = try TestIndex()
        let first = try write(lines(0..<3_000), "first.jsonl")
        _ = try indexer.index([.path(first)], into: test.index)
        #expect(try test.index.item(withIdentifier: "item/7", now: now)?.source == first)
        #expect(try test.index.sources().map(\.path) == [first])
        let second = try write(lines(0..<3_000), "second.jsonl")
        let report = try indexer.index([.path(second)], into: test.index)
        #expect(report.unchanged == 3_000 && report.updated == 0 && report.added == 0)
        #expect(try test.index.item(withIdentifier: "item/7", now: now)?.source == second)
        #expect(try test.index.sources().map(\.path) == [second] && test.index.sources().first?.items == 3_000)
        // Read again from the same file, nothing is rewritten: the lines are recognized.
        #expect(try indexer.index([.path(second)], into: test.index).unchanged == 3_000)
    }

    @Test("with strict, one rejection in a large run writes nothing")
    func strict() throws {
        let test = try TestIndex()
        var run = lines(0..<3_000)
        run[2_000] = #"{"title":"no identifier"}"#
        var strict = indexer
        strict.strict = true
        let report = try strict.index([.path(try write(run))], into: test.index)
        #expect(report.rejected == 1)
        #expect(report.errors.first?.code == .missingIdentifier && report.errors.first?.line == 2_001)
        #expect(try test.index.statistics(now: now).documents == 0)
        // Without strict, the others are stored.
        #expect(try indexer.index([.path(try write(run))], into: test.index).added == 2_999)
    }

    @Test("rejections come back in input order, with their files and lines")
    func rejectionsInOrder() throws {
        let test = try TestIndex()
        var run = lines(0..<6_000)
        for bad in [10, 2_500, 4_100, 5_999] { run[bad] = "{broken" }
        let report = try indexer.index([.path(try write(run))], into: test.index)
        #expect(report.errors.map(\.line) == [11, 2_501, 4_101, 6_000])
        #expect(report.added == 5_996)
    }

    @Test("an index in the first layout moves to generations on its first bulk build")
    func firstLayoutMoves() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems([item("old", title: "from before")], now: now)
        #expect(try files(test.path).contains("iamglass"))
        _ = try indexer.index([.path(try write(lines(0..<3_000)))], into: test.index)
        let after = try files(test.path)
        #expect(after.contains("XAPIANDB") && !after.contains("iamglass") && after.contains("flintlock"))
        #expect(try test.index.ids("before") == ["old"])
        #expect(try test.index.statistics(now: now).documents == 3_001)
        // Writes go on in the new generation.
        try test.index.indexSearchableItems([item("late", title: "written after")], now: now)
        let reader = try SearchableIndex(path: test.path, access: .readOnly)
        #expect(try reader.ids("written") == ["late"])
    }

    @Test("a reader opened before a bulk build sees the old content, then the new")
    func readerFollows() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems([item("a", title: "alpha first")], now: now)
        let reader = try SearchableIndex(path: test.path, access: .readOnly)
        #expect(try reader.ids("alpha") == ["a"])
        _ = try indexer.index([.path(try write(lines(0..<3_000)))], into: test.index)
        #expect(try reader.search(SearchQuery("alpha", limit: 0), now: now).total == 3_001)
    }
}
