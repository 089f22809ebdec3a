import FoundationEssentials
import Glibc

/// How an index folder holds its Xapian database.
///
/// - `single`: the first layout, a glass database directly in the folder (or any path Xapian
///   opens, such as a user's stub file listing shards).
/// - `generation(n)`: the folder holds `XAPIANDB`, a Xapian stub file saying `auto gen-00000n`,
///   and that glass database in `gen-00000n/`. A new generation is published by renaming a new
///   stub over `XAPIANDB`, so readers see the old generation or the new one, never a mix; the
///   old one is then deleted.
///
/// - `replica(n)`: a read-only copy kept by Xapian's `xapian-replicate`, whose `XAPIANDB` stub
///   (two comment lines, then `auto replica_n`) names the live copy in `replica_n/`. The
///   replicator applies the primary's changesets to the live copy in place, and a full copy (a
///   new generation on the primary) goes to the other folder, then the stub is renamed over.
///   Searchlight reads a replica like a generation and never writes one.
///
/// Xapian follows a stub file inside a folder for `Database` and `WritableDatabase` alike, but a
/// folder's own `iamglass` wins over its stub: moving from `single` to generations publishes the
/// stub first, then removes `iamglass`, so a crash between the two leaves the old layout whole.
enum IndexLayout: Hashable {
    /// Nothing is at the path yet.
    case none
    case single
    case generation(Int)
    case replica(Int)

    static let stubName = "XAPIANDB"

    /// The layout at `path` now.
    static func read(_ path: String) -> IndexLayout {
        guard let kind = FileSystem.kind(atPath: path) else { return .none }
        guard kind == .directory, !FileManager.default.fileExists(atPath: path + "/iamglass"),
            let stub = try? String(contentsOfFile: path + "/" + stubName, encoding: .utf8)
        else { return .single }
        if let number = generationNumber(stub) { return .generation(number) }
        // `xapian-replicate` writes two comment lines, then `auto replica_N`.
        if let (name, _) = soleDatabase(stub), name.hasPrefix("replica_"), let number = Int(name.dropFirst(8)) {
            return .replica(number)
        }
        return .single
    }

    /// The generation a stub of ours names: exactly one `auto gen-NNNNNN` line, no comment.
    private static func generationNumber(_ stub: String) -> Int? {
        guard let (name, commented) = soleDatabase(stub), !commented else { return nil }
        return number(of: String(name))
    }

    /// The one database a stub names with an `auto NAME` line, after any `#` comment lines, and
    /// whether it had comments.
    private static func soleDatabase(_ stub: String) -> (name: Substring, commented: Bool)? {
        let lines = stub.split(whereSeparator: \.isNewline)
        let databases = lines.filter { !$0.hasPrefix("#") }
        guard databases.count == 1, databases[0].hasPrefix("auto ") else { return nil }
        return (databases[0].dropFirst(5), databases.count < lines.count)
    }

    /// `n` of a folder named `gen-NNNNNN`.
    static func number(of name: String) -> Int? {
        guard name.hasPrefix("gen-"), name.count == 10 else { return nil }
        return Int(name.dropFirst(4))
    }

    /// `n` of a folder named `build-NNNNNN`, where a bulk build writes its segments.
    static func buildNumber(of name: String) -> Int? {
        guard name.hasPrefix("build-"), name.count == 12 else { return nil }
        return Int(name.dropFirst(6))
    }

    /// The folder of the segments of a bulk build that will become `generation`.
    static func buildFolderName(_ generation: Int) -> String {
        "build-" + folderName(generation).dropFirst(4)
    }

    static func folderName(_ generation: Int) -> String {
        let digits = String(generation)
        return "gen-" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    /// The database this layout opens: the generation's folder, the replica's live copy, or the
    /// path itself.
    func databasePath(in path: String) -> String {
        switch self {
        case .generation(let number): path + "/" + Self.folderName(number)
        case .replica(let number): path + "/replica_\(number)"
        case .none, .single: path
        }
    }

    /// The generations a writer keeps: the current one only. A reader that opened an older one
    /// keeps reading it, since Xapian's glass backend opens every table file when it opens the
    /// database and the files stay readable once unlinked; a reader that read the old stub but
    /// had not yet opened the files reopens from the path (``SearchableIndex``).
    var kept: Set<Int> {
        guard case .generation(let number) = self else { return [] }
        return [number]
    }

    var generation: Int? {
        if case .generation(let number) = self { return number }
        return nil
    }

    /// Makes `generation` current: writes the stub beside, syncs it, and renames it over
    /// `XAPIANDB` (atomic), then syncs the folder so the rename survives a crash. From a `single`
    /// layout, `iamglass` is then removed so that Xapian follows the stub.
    static func publish(_ generation: Int, at path: String, from previous: IndexLayout) throws(SearchlightError) {
        let stub = path + "/" + stubName
        let temporary = stub + ".new"
        do {
            try writeSynced(Data("auto \(folderName(generation))\n".utf8), to: temporary)
            guard rename(temporary, stub) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            syncFolder(path)
            if previous == .single {
                try FileManager.default.removeItem(atPath: path + "/iamglass")
                syncFolder(path)
            }
        } catch let error as SearchlightError {
            throw error
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw SearchlightError(
                .writeFailed, "Cannot publish the new generation of the index at \(path): \(error)", failure: .io)
        }
    }

    /// Removes what is not current: generation folders other than `keeping` (one left by a
    /// compaction or bulk build that was killed goes this way too), the segments of bulk builds (only
    /// ever written by a writer that holds the lock and has not called this), and, once the index
    /// has moved to generations, the first layout's tables, but never its lock file, which another
    /// process may hold.
    static func removeStale(at path: String, keeping: Set<Int>) {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: path) else { return }
        let current = read(path)
        for name in names {
            if let number = number(of: name), !keeping.contains(number) {
                try? manager.removeItem(atPath: path + "/" + name)
            } else if buildNumber(of: name) != nil {
                try? manager.removeItem(atPath: path + "/" + name)
            } else if current == .single, name == stubName || name == stubName + ".new",
                let stub = try? String(contentsOfFile: path + "/" + name, encoding: .utf8),
                generationNumber(stub) != nil
            {
                // A stub of ours that a crash left behind before `iamglass` went: the old layout is
                // current. Any other stub is the user's, and stays.
                try? manager.removeItem(atPath: path + "/" + name)
            } else if case .generation = current, !keeping.contains(0),
                name.hasSuffix(".glass") || (name.hasPrefix("changes") && Int(name.dropFirst(7)) != nil)
            {
                // The first layout's tables, and the changesets it kept for replicas
                // (`XAPIAN_MAX_CHANGESETS`), which now live in each generation.
                try? manager.removeItem(atPath: path + "/" + name)
            }
        }
    }

    /// The bytes the current database takes on disk.
    static func size(at path: String) -> Int {
        let layout = read(path)
        let folder = layout.databasePath(in: path)
        guard let kind = FileSystem.kind(atPath: folder) else { return 0 }
        guard kind == .directory else { return FileSystem.size(atPath: folder) }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return files.reduce(0) { total, name in
            guard let file = FileSystem.status(atPath: folder + "/" + name), file.kind == .file else { return total }
            return total + file.size
        }
    }

    /// Syncs every file of a folder and the folder itself.
    static func syncFiles(in folder: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            let descriptor = open(folder + "/" + name, O_RDONLY)
            if descriptor >= 0 {
                fsync(descriptor)
                close(descriptor)
            }
        }
        syncFolder(folder)
    }

    static func syncFolder(_ folder: String) {
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY)
        if descriptor >= 0 {
            fsync(descriptor)
            close(descriptor)
        }
    }

    /// Writes `data` to `file` and syncs it.
    static func writeSynced(_ data: Data, to file: String) throws {
        let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        var done = 0
        while done < data.count {
            let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress! + done, $0.count - done) }
            guard written > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            done += written
        }
        guard fsync(descriptor) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
}
