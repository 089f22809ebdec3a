import FoundationEssentials
import Glibc

/// The model's files whose digests have been checked, recorded so that the next process need not
/// read them whole again (hashing the model's 90 MB took 75 ms of the 100 a search by meaning took
/// as a whole process on the sample corpus).
///
/// A file is known by its device, inode, size, and the times it was last modified and last changed
/// (`st_ctime`, which any write or `touch` moves and no user can set back): a file changed in any
/// way is a file never seen, and is hashed again. The record is a small text file in the user's
/// own cache (`$XDG_CACHE_HOME/searchlight/verified-model-files`, or `~/.cache/…`), each line a
/// file's identity and the digest it was found to have; a process that cannot write there hashes
/// every time, as before. The model's int8 form, which the first process to load the model makes
/// (``MeaningModel/Precision/int8``), is kept in the same folder and recorded the same way, its
/// digest followed by the model file's it was made from.
struct VerifiedFiles: Sendable {
    /// The record's path; nil when there is no cache folder to keep it in.
    let path: String?

    /// The record's lines as read once, when the model is loaded.
    private let recorded: [Substring]

    init(path: String?) {
        self.path = path
        recorded = Self.lines(at: path)
    }

    /// The most files the record keeps: the newest.
    static let mostFiles = 16

    /// The record in the user's cache.
    static var inUserCache: VerifiedFiles {
        let environment = ProcessInfo.processInfo.environment
        if let cache = environment["XDG_CACHE_HOME"], !cache.isEmpty {
            return VerifiedFiles(path: cache + "/searchlight/verified-model-files")
        }
        if let home = environment["HOME"], !home.isEmpty {
            return VerifiedFiles(path: home + "/.cache/searchlight/verified-model-files")
        }
        return VerifiedFiles(path: nil)
    }

    /// The identity of the open file `descriptor` (``VerifiedFiles``), or nil when it cannot be told.
    static func identity(of descriptor: Int32) -> String? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return [
            UInt64(info.st_dev), UInt64(info.st_ino), UInt64(info.st_size), UInt64(info.st_mtim.tv_sec),
            UInt64(info.st_mtim.tv_nsec), UInt64(info.st_ctim.tv_sec), UInt64(info.st_ctim.tv_nsec),
        ].map(String.init).joined(separator: " ")
    }

    private static func lines(at path: String?) -> [Substring] {
        guard let path, let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n")
    }

    /// The folder the record is in, where the model's int8 form is kept too; nil when none.
    var folder: String? {
        path.map { String($0[..<($0.lastIndex(of: "/") ?? $0.startIndex)]) }
    }

    /// The digest the file of `identity` was found to have, if the record holds it.
    func digest(of identity: String) -> String? {
        recorded.first { $0.hasPrefix(identity + "\t") }.map { String($0.dropFirst(identity.count + 1)) }
    }

    /// Whether the file of `identity` was found to have `digest`.
    func holds(_ identity: String, digest: String) -> Bool { self.digest(of: identity) == digest }

    /// Records that the file of `identity` has `digest`. Best effort: a record that cannot be
    /// written costs the next process a hash, nothing else. The record is read again, to keep what
    /// other processes wrote since.
    func record(_ identity: String, digest: String) {
        guard let path else { return }
        let line = identity + "\t" + digest
        var kept = Self.lines(at: path).filter { $0 != line && !$0.hasPrefix(identity + "\t") }.map(String.init)
        kept.append(line)
        let text = kept.suffix(Self.mostFiles).joined(separator: "\n") + "\n"
        if let folder { try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        try? Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
