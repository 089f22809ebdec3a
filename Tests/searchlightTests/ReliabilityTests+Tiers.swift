import Foundation
import SearchlightTesting
import Testing

/// Items `items` (numbers), whose weights for "river" all differ: item j holds it 1 + j % 12 times
/// (`more` times more for the late items) among 150 + j / 12 words of padding, never under half the
/// average length (where BM25 would tie them). Pages of "river" then have one order, whatever the
/// items' document ids.
private func riverItems(_ prefix: String, _ items: Range<Int>, more: Int = 0) -> String {
    items.map { j in
        let river = Array(repeating: "river", count: 1 + more + j % 12).joined(separator: " ")
        let padding = Array(repeating: "pad", count: 150 + j / 12).joined(separator: " ")
        return #"{"$canonical_identifier":"\#(prefix)/\#(j)","$og_title":"entry \#(prefix) \#(j)","#
            + #""$og_description":"\#(river) \#(padding)","$publicly_indexable":true}"#
    }.joined(separator: "\n") + "\n"
}

/// 2,400 items holding "river" (more than the 2,000 past which a word has a tier) in three files of
/// less than the 1 MiB a write takes in one transaction; 120 late items that outweigh every item of
/// the tiers (a writer adds them to the tiers). Each file is indexed alone into `without`, and the
/// late items too into `with`: indexes without tiers, whose pages are a full evaluation's.
private func riverIndexes(_ workspace: Workspace) throws -> (late: String, without: String, with: String) {
    for part in 0..<3 {
        try workspace.write("in/base\(part).jsonl", riverItems("base", part * 800..<(part + 1) * 800))
    }
    let late = try workspace.write("late.jsonl", riverItems("late", 0..<120, more: 12))
    let without = workspace.path + "/without"
    let with = workspace.path + "/with"
    for index in [without, with] {
        for part in 0..<3 {
            let run = try workspace.run(["index", workspace.path + "/in/base\(part).jsonl", "--index", index])
            #expect(run.status == 0, "\(run.stderr)")
        }
    }
    #expect(try workspace.run(["index", late, "--index", with]).status == 0)
    return (late, without, with)
}

extension ReliabilityTests {
    /// The pages of searches whose pages a tiered search proves (a frequent word, its beginning), each
    /// result with its score, and the totals.
    func riverPages(_ workspace: Workspace, index: String) throws -> [String] {
        var pages: [String] = []
        for arguments in [["river"], ["river", "--offset", "20"], ["riv"], ["river", "--limit", "50"]] {
            let run = try workspace.run(["search", "--all-domains", "--json", "--index", index] + arguments)
            #expect(run.status == 0, "\(run.stderr)")
            let page = try run.object()
            let results = page["results"] as? [[String: Any]] ?? []
            pages.append(
                results.map { "\($0["canonicalIdentifier"] ?? "") \($0["score"] ?? "")" }.joined(separator: ",")
                    + " total \(page["total"] ?? "")")
        }
        return pages
    }

    @Test("killed with SIGKILL while writes and compactions change the impact tiers, pages stay a full evaluation's")
    func killedWhileTiersChange() throws {
        let workspace = try Workspace()
        let (late, without, with) = try riverIndexes(workspace)
        let expected = [try riverPages(workspace, index: without), try riverPages(workspace, index: with)]
        #expect(expected[0] != expected[1])

        // The whole folder is one bulk build, and compaction builds the index's tiers again.
        #expect(try workspace.run(["index", workspace.path + "/in"]).status == 0)
        #expect(try workspace.run(["compact"]).status == 0)
        #expect(try riverPages(workspace, index: workspace.index) == expected[0])
        // The kills fall within twice the longest of a write, a removal and a compaction, timed under
        // the machine's load now, so that some land before each commits and some after.
        var longest = 0.0
        for arguments in [["index", late], ["remove", "--include-public", "--from", late], ["compact"]] {
            let started = Date()
            #expect(try workspace.run(arguments).status == 0)
            longest = max(longest, Date().timeIntervalSince(started))
        }
        let window = max(0.1, 2 * longest)

        var random = SystemRandomNumberGenerator()
        var seen: Set<Int> = []
        for run in 0..<18 {
            // A write of the late items, their removal, or a compaction, each killed at a random moment.
            let holdsLate = try exportedItems(workspace).count > 2_400
            let arguments =
                run % 3 == 2
                ? ["compact"] : holdsLate ? ["remove", "--include-public", "--from", late] : ["index", late]
            let process = try startBinary(arguments + ["--index", workspace.index])
            Thread.sleep(forTimeInterval: Double.random(in: 0...window, using: &random))
            kill(process.processIdentifier, SIGKILL)
            process.finish()
            try checkWithXapian(workspace.index)
            let pages = try riverPages(workspace, index: workspace.index)
            let state = try #require(
                expected.firstIndex(of: pages), "run \(run) (\(arguments[0])): \(pages) is neither page")
            #expect(state == (try exportedItems(workspace).count > 2_400 ? 1 : 0), "run \(run)")
            seen.insert(state)
        }
        #expect(seen.count == 2, "every kill left the index on one side: \(seen)")
    }

    @Test("searches while writes and compactions change the impact tiers see a full evaluation's pages")
    func readersWhileTiersChange() throws {
        let workspace = try Workspace()
        let (late, without, with) = try riverIndexes(workspace)
        let expected = [try riverPages(workspace, index: without), try riverPages(workspace, index: with)]

        #expect(try workspace.run(["index", workspace.path + "/in"]).status == 0)
        #expect(try workspace.run(["compact"]).status == 0)
        var searches = 0
        for round in 0..<6 {
            let arguments =
                round % 3 == 2
                ? ["compact"] : round % 3 == 0 ? ["index", late] : ["remove", "--include-public", "--from", late]
            let writer = try startBinary(arguments + ["--index", workspace.index])
            searches += try searchWhile(writer) {
                let pages = try riverPages(workspace, index: workspace.index)
                // Each search sees the index before a commit or after it.
                for (number, page) in pages.enumerated() {
                    #expect(
                        page == expected[0][number] || page == expected[1][number],
                        "round \(round) (\(arguments[0])): \(page)")
                }
            }
            let (status, stderr) = writer.finish()
            #expect(status == 0, "\(stderr)")
        }
        #expect(searches >= 6)
    }
}
