import Foundation
import SearchlightTesting
import Testing

/// `xapian-replicate` keeping a replica of the primary `master` in step, asking every second and
/// applying changesets at once (`-r 0`: Searchlight's readers reopen when overtaken), as
/// docs/operations.md runs it: with a socket timeout (`-t`), so that a stalled connection is
/// retried, and under a supervisor that starts it again a second after it exits on its own (it
/// exits on any error but a network one), as systemd's `Restart=always` does.
final class Replicator: @unchecked Sendable {
    private let arguments: [String]
    /// Where its messages go, kept to be read beside a failing test.
    let log: String
    private let lock = NSLock()
    private var process: Process?
    private var exits: [String] = []
    private var started = Date.distantPast
    /// The database it copies (a folder the replication server serves), when given: it has
    /// recovered only once its replica holds what that database held when it was started.
    private let primary: String?
    private let replica: String
    private var target: Int?

    init(port: Int32, master: String, replica: String, primary: String? = nil) throws {
        self.primary = primary
        self.replica = replica
        arguments = [
            "-h", "127.0.0.1", "-p", String(port), "-m", master, "-i", "1", "-r", "0", "-t", "10", "-q", replica,
        ]
        log = replica + ".replicate.log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        try start()
    }

    /// How it exited on its own, each time, with its messages so far.
    var exited: [String] { lock.withLock { exits } }

    /// How long a replicator runs before the tests kill it again. A replicator killed again and
    /// again before it can finish (a full copy, on a busy machine) leaves its replica behind for
    /// longer than a search waits for its shards to agree, as a machine that crashes in a loop
    /// would: with a `primary`, it must also have caught up (in a loaded CI run, a replica whose
    /// replicator was killed every four seconds stayed tens of batches behind).
    static let recovery: TimeInterval = 4

    /// Whether it was last started (by ``start()``) at least ``recovery`` ago and, with a
    /// `primary`, its replica holds the revision the primary held then.
    var hasRecovered: Bool {
        let (since, target) = lock.withLock { (started, self.target) }
        guard Date().timeIntervalSince(since) >= Self.recovery else { return false }
        guard let target else { return true }
        // A replica keeps its primary's revisions.
        return (revision(of: replica) ?? 0) >= target
    }

    /// Prints how it exited on its own, if it did, for `test`'s output.
    func printExits(in test: String) {
        let exits = exited
        if !exits.isEmpty { print("\(test): \(log) exited on its own: \(exits)") }
    }

    /// Starts it again after ``kill()``.
    func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/xapian-replicate")
        process.arguments = arguments
        let messages = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        messages.seekToEndOfFile()
        process.standardOutput = messages
        process.standardError = messages
        process.terminationHandler = { [weak self] ended in self?.exitedOnItsOwn(ended) }
        let target = primary.flatMap { revision(of: $0) }
        try lock.withLock {
            try process.run()
            self.process = process
            started = Date()
            self.target = target
        }
    }

    /// Starts it again a second after it exits, unless ``kill()`` ended it.
    private func exitedOnItsOwn(_ ended: Process) {
        let current = lock.withLock { () -> Bool in
            guard process === ended else { return false }
            let messages = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            exits.append("exit \(ended.terminationStatus): \(messages.suffix(300))")
            return true
        }
        guard current else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + 1) { [weak self] in
            guard let self, lock.withLock({ process === ended }) else { return }
            try? start()
        }
    }

    /// Kills it (-9), as a machine's crash would. SIGKILL also because the test process's blocked
    /// SIGTERM is inherited, and the replicator does not unblock it.
    func kill() {
        guard
            let process = lock.withLock({ () -> Process? in
                defer { process = nil }
                return process
            })
        else { return }
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { kill() }
}

@Suite("Read replicas (xapian-replicate and serve --read-only)", .temporaryFolder, .serialized)
struct ReplicaTests {
    @Test(
        "a replica's service serves the primary's writes within a bounded time, across a new generation, and refuses writes"
    )
    func followsPrimary() async throws {
        let workspace = try Workspace()
        let primary = workspace.path + "/primaries/main"
        let changesets = ["XAPIAN_MAX_CHANGESETS": "10"]
        let indexed = try workspace.run(
            ["index", repositoryRoot + "/corpus", "--index", primary, "--now", corpusNow], environment: changesets)
        #expect(indexed.status == 0, "\(indexed.stderr)")
        let master = try LoopbackServer(program: "/usr/bin/xapian-replicate-server") { port in
            ["--interface", "127.0.0.1", "--port", String(port), workspace.path + "/primaries"]
        }
        let replica = workspace.path + "/replica"
        let replicator = try Replicator(port: master.port, master: "main", replica: replica)
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: replica + "/XAPIANDB"), Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let service = try RunningServer(
            index: replica, tokens: try writeTokens(workspace),
            extra: ["--read-only", "--primary", "http://primary.example:7700"])
        #expect(service.log.isEmpty || !service.log.contains("error"))

        // The replica holds what the primary holds, and its service serves it.
        let search = ["search", "deep", "--all-domains", "--now", corpusNow, "--json", "--index"]
        let onPrimary = try workspace.run(search + [primary])
        let onReplica = try workspace.run(search + [replica])
        #expect(onPrimary.status == 0 && onReplica.stdout == onPrimary.stdout)
        let served = try await http("GET", service.baseURL + "/v1/search?q=deep")
        #expect(served.status == 200 && served.body.contains(#""canonicalIdentifier":"#))
        #expect(try await http("GET", service.baseURL + "/").status == 200)
        #expect(try await http("GET", service.baseURL + "/v1/stats", token: shopToken).status == 200)

        let refused = try await http(
            "POST", service.baseURL + "/v1/items", body: #"{"$canonical_identifier":"x"}"#, token: shopToken)
        #expect(refused.status == 405)
        #expect(refused.body.contains(#""code":2014"#) && refused.body.contains("http://primary.example:7700"))
        let cli = try workspace.run(["index", repositoryRoot + "/corpus", "--index", replica])
        #expect(cli.status == 1 && cli.stderr.contains("code 2014"), "\(cli.stderr)")

        /// Seconds from a write's commit on the primary until the replica's service serves it.
        func lag(_ id: String) async throws -> Double {
            let file = try workspace.write(
                id + ".json", #"{"$canonical_identifier":"\#(id)","$og_title":"Replicated","$publicly_indexable":true}"#
            )
            let write = try workspace.run(["index", file, "--index", primary], environment: changesets)
            #expect(write.status == 0, "\(write.stderr)")
            let written = Date()
            while Date().timeIntervalSince(written) < 30 {
                if try await http("GET", service.baseURL + "/v1/items/" + id).status == 200 { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            return Date().timeIntervalSince(written)
        }
        // A changeset, applied to the live copy in place.
        let changeset = try await lag("late-1")
        #expect(changeset < 30, "the replica served the write after \(changeset) s")
        // A new generation on the primary: the replica takes a full copy, and the service follows it.
        #expect(try workspace.run(["compact", "--index", primary], environment: changesets).status == 0)
        let copy = try await lag("late-2")
        #expect(copy < 30, "the replica served the write after \(copy) s")
        #expect(try await http("GET", service.baseURL + "/v1/items/late-1").status == 200)
        #expect(service.stop() == 0)
        withExtendedLifetime(replicator) {}
    }
}
