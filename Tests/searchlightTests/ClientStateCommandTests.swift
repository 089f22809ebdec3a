import Foundation
import SearchlightTesting
import Testing

/// Writes page `number` of a catalogue as JSON Lines: `items` items `p<number>/<i>`, each with
/// `filler` words, so that a large page passes the limit of direct writes and is built in bulk.
@discardableResult
private func writePage(_ workspace: Workspace, _ number: Int, items: Int, filler: Int = 0) throws -> String {
    let padding = (0..<filler).map { " filler\($0)" }.joined()
    let lines = (0..<items).map { item in
        #"{"$canonical_identifier":"p\#(number)/\#(item)","$og_title":"page \#(number) item \#(item)","#
            + #""$og_description":"catalogue page\#(padding)"}"#
    }
    return try workspace.write("pages/page-\(number).jsonl", lines.joined(separator: "\n") + "\n")
}

@Suite("Batches with client state through the binary (reference: SPEC 2.6)", .temporaryFolder)
struct ClientStateCommandTests {
    @Test("index --client-state commits a state that client-state prints; a wrong expectation writes nothing")
    func commands() throws {
        let workspace = try Workspace()
        let page = try writePage(workspace, 1, items: 3)
        let shop = ["--domain", "com.example.shop"]
        #expect(try workspace.run(["client-state"] + shop).status == 66)

        let first = try workspace.run(["index", page, "--client-state", "page-1", "--expect-client-state", ""] + shop)
        #expect(first.status == 0, "\(first.stderr)")
        let printed = try workspace.run(["client-state"] + shop)
        #expect(printed.status == 0 && printed.stdout == "page-1\n")
        // Another domain has none: nothing printed, success.
        let other = try workspace.run(["client-state", "--domain", "com.example.blog"])
        #expect(other.status == 0 && other.stdout.isEmpty && other.stderr.isEmpty)
        #expect(
            try workspace.run(["client-state", "--domain", "com.example.blog", "--json"]).stdout
                == "{\n  \"clientState\" : null,\n  \"clientStateBase64\" : null,\n  \"domain\" : \"com.example.blog\"\n}\n"
        )

        let second = try writePage(workspace, 2, items: 3)
        let stale = try workspace.run(
            ["index", second, "--client-state", "page-2", "--expect-client-state", "page-0", "--json"] + shop)
        #expect(stale.status == 1)
        let error = try #require(try stale.object()["error"] as? [String: Any])
        #expect(error["code"] as? Int == 2024)
        #expect(
            (error["message"] as? String ?? "").contains(
                #"The client state of domain com.example.shop is "page-1", not the expected "page-0""#),
            "\(stale.stdout)")
        let text = try workspace.run(
            ["index", second, "--client-state", "page-2", "--expect-client-state", "page-0"] + shop)
        #expect(text.status == 1 && text.stderr.contains("(code 2024)"), "\(text.stderr)")
        #expect(try workspace.run(["get", "p2/0"] + shop).status == 1)
        #expect(try workspace.run(["client-state"] + shop).stdout == "page-1\n")

        let resumed = try workspace.run(
            ["index", second, "--client-state", "page-2", "--expect-client-state", "page-1"] + shop)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try workspace.run(["get", "p2/0"] + shop).status == 0)

        // Bytes in base64, both ways; text that is not UTF-8 asks for --base64.
        #expect(
            try workspace.run(
                [
                    "index", second, "--client-state", "AP8", "--client-state-base64", "--expect-client-state",
                    "cGFnZS0y",
                ] + shop
            ).status == 0)
        #expect(try workspace.run(["client-state", "--base64"] + shop).stdout == "AP8=\n")
        let binary = try workspace.run(["client-state"] + shop)
        #expect(binary.status == 64 && binary.stderr.contains("add --base64"), "\(binary.stderr)")
        let json = try workspace.run(["client-state", "--json"] + shop).object()
        #expect(json["clientState"] is NSNull && json["clientStateBase64"] as? String == "AP8=")
    }

    @Test("a state past 1,024 bytes, or flags that do not go together, are usage errors that write nothing")
    func usage() throws {
        let workspace = try Workspace()
        let page = try writePage(workspace, 1, items: 3)
        for arguments in [
            ["--client-state", String(repeating: "é", count: 513)], ["--expect-client-state", "x"],
            ["--client-state", "x", "--watch"], ["--client-state", "%%", "--client-state-base64"],
            ["--client-state-base64"],
        ] {
            let run = try workspace.run(["index", page] + arguments)
            #expect(run.status == 64, "\(arguments): \(run.stderr)")
        }
        #expect(try workspace.run(["get", "p1/0"]).status == 66)
        #expect(try workspace.run(["index", page, "--client-state", String(repeating: "é", count: 512)]).status == 0)
    }

    /// Each run indexes the next page with the next state, expecting the one read back, and is
    /// killed at a random moment; the state read back then names exactly the pages indexed.
    @Test(
        "killed with SIGKILL at any moment, the state read back names exactly the batches indexed",
        arguments: ["folder", "shards"])
    func killedAnywhere(storage: String) throws {
        let workspace = try Workspace()
        var index = workspace.index
        if storage == "shards" {
            index = try workspace.write("cluster", "auto shard-1\nauto shard-2\nauto shard-3\n")
        }
        // Pages alternate between a few items, written in one transaction, and 1,500 items of 1.9 MB,
        // built in bulk and merged (on each shard, for the topology).
        var sizes: [Int: Int] = [:]
        for number in 1...21 {
            sizes[number] = number % 2 == 0 ? 1_500 : 40
            try writePage(workspace, number, items: sizes[number]!, filler: number % 2 == 0 ? 40 : 0)
        }
        func indexing(page number: Int, expecting state: Int) -> [String] {
            [
                "index", workspace.path + "/pages/page-\(number).jsonl", "--index", index, "--client-state",
                String(number), "--expect-client-state", String(state),
            ]
        }
        // One large page, timed under the machine's load now: the kills fall within twice that.
        let started = Date()
        let timed = try workspace.run(indexing(page: 2, expecting: 0).dropLast(2) + ["--expect-client-state", ""])
        #expect(timed.status == 0, "\(timed.stderr)")
        var window = max(0.2, 2 * Date().timeIntervalSince(started))
        #expect(try workspace.run(["remove", "--all-private", "--index", index]).status == 0)
        // The catalogue then starts afresh, at state 0.
        #expect(try workspace.run(indexing(page: 1, expecting: 2).dropLast(4) + ["--client-state", "0"]).status == 0)
        #expect(try workspace.run(["remove", "--all-private", "--index", index]).status == 0)

        var random = SystemRandomNumberGenerator()
        var committed = 0
        var outcomes: Set<Bool> = []
        for run in 0..<12 {
            let next = committed + 1
            let process = try startBinary(indexing(page: next, expecting: committed))
            Thread.sleep(forTimeInterval: Double.random(in: 0.02...window, using: &random))
            let finished = !process.isRunning
            kill(process.processIdentifier, SIGKILL)
            process.finish()

            let read = try workspace.run(["client-state", "--index", index])
            #expect(read.status == 0, "run \(run): \(read.stderr)")
            let state = Int(read.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
            #expect(state == committed || state == next, "run \(run): state \(read.stdout) after \(committed)")
            outcomes.insert(state == next)
            // The window follows the machine's load: longer after a kill before the commit, shorter
            // after a run that had finished, so that the kills keep falling on both sides.
            if finished { window = max(0.2, window * 0.75) } else if state != next { window *= 1.25 }
            committed = max(0, state)
            // Exactly the pages up to the state are indexed, each whole.
            var perPage: [Int: Int] = [:]
            for item in try exportedItems(workspace, index: index) {
                let id = try #require(item["$canonical_identifier"] as? String)
                perPage[Int(id.dropFirst().split(separator: "/")[0])!, default: 0] += 1
            }
            let expected = Dictionary(uniqueKeysWithValues: (0..<committed).map { ($0 + 1, sizes[$0 + 1]!) })
            #expect(perPage == expected, "run \(run): state \(committed), pages \(perPage.sorted { $0.key < $1.key })")
            if storage == "folder" { try checkWithXapian(index) }
        }
        #expect(outcomes.count == 2, "the kills all fell on one side of the commit: \(outcomes)")
    }
}
