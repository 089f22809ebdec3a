import FoundationEssentials

/// An index made of shards: a Xapian stub file listing them, one a line.
///
/// ```
/// # Searchlight topology: three shards on the private network
/// remote 10.0.0.11:7801
/// remote 10.0.0.12:7801
/// auto /srv/searchlight/shard-3
/// ```
///
/// `auto PATH` (or `glass PATH`) names a local index folder (a path relative to the file's folder
/// is taken from there, as Xapian does); `remote HOST:PORT` (`[IPv6]:PORT`) a database that
/// `xapian-tcpsrv` serves, read-only: a topology is written on its writer's machine, as local
/// folders, which shard machines follow with `xapian-replicate` (``BatchJournal``). Lines starting with `#` are comments. Xapian opens the same file as one
/// database whose statistics are the shards' together, so searches rank as in one index; every
/// Xapian tool (`quest`, `delve`) reads it too.
///
/// A new item goes to the shard Xapian reads its document id from, the id one index of the same
/// items would give it (``IndexTransaction``); an item stored already stays on its shard. Adding or
/// reordering lines changes which shard each id is read from, and needs a re-index into the new
/// topology (docs/operations.md, *Shards*).
struct Topology: Sendable {
    enum Shard: Sendable, Hashable {
        case folder(String)
        case remote(host: String, port: UInt16)

        /// How messages name it: its folder, or `host:port`.
        var name: String {
            switch self {
            case .folder(let path): path
            case .remote(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            }
        }
    }

    /// The topology file.
    let path: String
    let shards: [Shard]
    /// The local folders of the shards' vectors copies, in the shards' order (the file
    /// ``meaningCopiesPath(of:)`` lists them); empty when there is none.
    var meaningCopies: [String] = []

    /// Whether a shard is read through a shard server, which runs none of Searchlight's code: such a
    /// topology is written by its writer alone, vectors of meaning included.
    var readsShardServers: Bool {
        shards.contains { if case .remote = $0 { true } else { false } }
    }

    /// Whether it is searched by words alone: a shard is read through a shard server, and no
    /// vectors copies are listed beside it.
    var searchesByWordsAlone: Bool { readsShardServers && meaningCopies.isEmpty }

    /// The file beside the topology file `path` that lists its shards' vectors copies: `path`
    /// and `.meaning`. Each line names one shard's copy, in the topology's order, as `auto FOLDER`:
    /// a local folder that `xapian-replicate` follows from the writer's `SHARD.meaning`
    /// (docs/operations.md, *Shards*).
    static func meaningCopiesPath(of path: String) -> String { path + ".meaning" }

    /// The vectors copy a writer keeps of its shard `folder`: the folder beside it named as it is,
    /// with `.meaning`, which the writer's `xapian-replicate-server` serves with the shards.
    static func meaningCopy(ofShard folder: String) -> String {
        var folder = folder
        while folder.count > 1, folder.hasSuffix("/") { folder.removeLast() }
        return folder + ".meaning"
    }

    /// The topology at `path`, or `nil` when `path` is not a file (an index folder, or nothing).
    ///
    /// - Throws: ``SearchlightError/Code/indexUnavailable`` naming the file and line of a line it
    ///   cannot read, or when it lists no shard.
    static func read(_ path: String) throws(SearchlightError) -> Topology? {
        guard FileSystem.kind(atPath: path) == .file else { return nil }
        var shards: [Shard] = []
        for (number, line) in try lines(of: path, named: "the topology file") {
            let shard = shard(line, relativeTo: path)
            if case .folder(let folder) = shard, let kind = FileSystem.kind(atPath: folder), kind != .directory {
                throw lineError(
                    number, of: "the topology file", path,
                    "names \(folder), which is not a folder: a shard is an index folder or `remote HOST:PORT`")
            }
            guard let shard else {
                throw lineError(
                    number, of: "the topology file", path,
                    "names no shard: write `auto FOLDER` for a local index or `remote HOST:PORT` for one served by "
                        + "xapian-tcpsrv")
            }
            shards.append(shard)
        }
        guard !shards.isEmpty else {
            throw SearchlightError(
                .indexUnavailable,
                "The topology file \(path) lists no shard: add a line `auto FOLDER` or `remote HOST:PORT` for each",
                path: path, failure: .notOpenable)
        }
        var topology = Topology(path: path, shards: shards)
        topology.meaningCopies = try readMeaningCopies(of: topology)
        return topology
    }

    /// The lines of `file` (which messages call `name`) that are neither empty nor comments, each with
    /// its number from 0.
    private static func lines(of file: String, named name: String) throws(SearchlightError) -> [(Int, String)] {
        let text: String
        do {
            text = try String(contentsOfFile: file, encoding: .utf8)
        } catch {
            throw SearchlightError(
                .indexUnavailable, "Cannot read \(name) \(file): \(FileSystem.describe(error))", failure: .notOpenable)
        }
        return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            .filter { !$0.element.isEmpty && !$0.element.hasPrefix("#") }.map { ($0.offset, String($0.element)) }
    }

    /// The error for line `number` (from 0) of `file` (which messages call `name`): it `says` what is wrong.
    private static func lineError(_ number: Int, of name: String, _ file: String, _ says: String) -> SearchlightError {
        SearchlightError(
            .indexUnavailable, "Line \(number + 1) of \(name) \(file) \(says)", path: file, line: number + 1,
            failure: .notOpenable)
    }

    /// The folders ``meaningCopiesPath(of:)`` lists, or none when there is no such file.
    private static func readMeaningCopies(of topology: Topology) throws(SearchlightError) -> [String] {
        let file = meaningCopiesPath(of: topology.path)
        guard FileSystem.kind(atPath: file) == .file else { return [] }
        var folders: [String] = []
        for (number, line) in try lines(of: file, named: "the vectors copies file") {
            guard case .folder(let folder) = shard(line, relativeTo: file) else {
                throw lineError(
                    number, of: "the vectors copies file", file,
                    "names no local folder: write `auto FOLDER`, one line a shard of \(topology.path), in its order")
            }
            folders.append(folder)
        }
        guard folders.count == topology.shards.count else {
            throw SearchlightError(
                .indexUnavailable,
                "The vectors copies file \(file) lists \(folders.count) copies for the \(topology.shards.count) "
                    + "shards of \(topology.path): list one a shard, in the topology's order",
                path: file, failure: .notOpenable)
        }
        return folders
    }

    /// What each batch number a view reads belongs to, as messages name it: each shard, then each
    /// vectors copy.
    var batchHolders: [String] { shards.map(\.name) + meaningCopies.map { "the vectors copy \($0)" } }

    private static func shard(_ line: String, relativeTo file: String) -> Shard? {
        guard let space = line.firstIndex(of: " ") else { return nil }
        let kind = line[..<space]
        let rest = String(line[line.index(after: space)...])
        switch kind {
        case "auto", "glass":
            guard !rest.isEmpty else { return nil }
            if rest.hasPrefix("/") { return .folder(rest) }
            let folder = file.lastIndex(of: "/").map { String(file[..<$0]) } ?? "."
            return .folder(folder + "/" + rest)
        case "remote":
            guard let colon = rest.lastIndex(of: ":"), let port = UInt16(rest[rest.index(after: colon)...]),
                port > 0
            else { return nil }
            var host = String(rest[..<colon])
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            guard !host.isEmpty, !host.hasPrefix(":") else { return nil }
            return .remote(host: host, port: port)
        default:
            return nil
        }
    }

}
