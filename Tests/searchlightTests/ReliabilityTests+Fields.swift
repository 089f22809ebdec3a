import Foundation
import SearchlightTesting
import Testing

extension ReliabilityTests {
    @Test("killed with SIGKILL while a field is added or removed, every item carries it or none does")
    func killedWhileChangingFields() throws {
        let workspace = try Workspace()
        let items = 3000
        let lines = (0..<items).map { item in
            #"{"canonicalIdentifier":"shelved/\#(item)","title":"shelved item \#(item)","#
                + #""contentIndexMode":"public","contentMetadata":{"customMetadata":{"shelf":"S\#(item % 5)"}}}"#
        }
        try workspace.write("in/shelved.jsonl", lines.joined(separator: "\n") + "\n")
        #expect(try workspace.run(["index", workspace.path + "/in"]).status == 0)

        /// How many items carry the field, or nil when the index has no such field.
        func carriers() throws -> Int? {
            let fields = try workspace.run(["fields", "--json"]).object()["fields"] as? [[String: String]] ?? []
            guard fields.contains(where: { $0["name"] == "shelf" }) else { return nil }
            let counted = try workspace.run([
                "search", "--all-domains", "--limit", "0", "--facet", "shelf", "--json", "",
            ])
            let facet = (try counted.object()["facets"] as? [String: Any])?["shelf"] as? [String: Any]
            let one = try workspace.run(["search", "--all-domains", "--limit", "0", "--json", "shelf:s1"])
            #expect(try one.object()["total"] as? Int == items / 5)
            return (facet?["values"] as? [[String: Any]] ?? []).compactMap { $0["count"] as? Int }.reduce(0, +)
        }
        let add = ["fields", "add", "shelf", "--type", "string", "--index", workspace.index]
        let remove = ["fields", "remove", "shelf", "--index", workspace.index]

        // One addition, timed under the machine's load now: the kills fall within twice that, so
        // that some land before the commit and some after however fast the machine is.
        let started = Date()
        #expect(try startBinary(add).finish().status == 0)
        let window = max(0.1, 2 * Date().timeIntervalSince(started))
        #expect(try carriers() == items)
        var random = SystemRandomNumberGenerator()
        var outcomes: Set<Bool> = []
        for run in 0..<16 {
            let present = try carriers() != nil
            let process = try startBinary(present ? remove : add)
            Thread.sleep(forTimeInterval: Double.random(in: 0.02...window, using: &random))
            kill(process.processIdentifier, SIGKILL)
            process.finish()
            try checkWithXapian(workspace.index)
            let after = try carriers()
            #expect(after == nil || after == items, "run \(run): \(after ?? 0) of \(items) items carry the field")
            outcomes.insert((after != nil) == present)
        }
        #expect(outcomes.count == 2, "the kills all fell on one side of the commit")
        // Whatever was killed, adding the field again (or once more) gives it to every item.
        if try carriers() != nil { #expect(try startBinary(remove).finish().status == 0) }
        #expect(try carriers() == nil)
        let (status, stderr) = try startBinary(add).finish()
        #expect(status == 0, "\(stderr)")
        #expect(try carriers() == items)
    }
}
