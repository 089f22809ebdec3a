import FoundationEssentials
import Glibc

/// What the library needs of the file system beyond `FileManager` in FoundationEssentials (the
/// CLI does not load Foundation, whose ICU tables cost every start).
enum FileSystem {
    enum Kind { case file, directory, other }

    /// `path` made absolute against the working directory, with `.` and `..` components and
    /// repeated slashes resolved as written (symbolic links are not followed).
    static func absolutePath(_ path: String) -> String {
        var components: [Substring] = []
        var whole = path
        if !path.hasPrefix("/"), let directory = getcwd(nil, 0) {
            whole = String(cString: directory) + "/" + path
            free(directory)
        }
        for component in whole.split(separator: "/") {
            switch component {
            case ".": continue
            case "..": _ = components.popLast()
            default: components.append(component)
            }
        }
        return "/" + components.joined(separator: "/")
    }

    /// What is at `path` and its size in bytes, following symbolic links; `nil` when nothing is.
    static func status(atPath path: String) -> (kind: Kind, size: Int)? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return (kind(of: status), Int(status.st_size))
    }

    /// What is at `path`, following symbolic links; `nil` when nothing is.
    static func kind(atPath path: String) -> Kind? { status(atPath: path)?.kind }

    /// The size of the file at `path` in bytes (following symbolic links); 0 when there is none.
    static func size(atPath path: String) -> Int { status(atPath: path)?.size ?? 0 }

    /// The regular files under the folder `root` (not following links to folders), skipping
    /// hidden files and folders (names starting with a dot), unordered.
    static func files(under root: String) throws(SearchlightError) -> [String] {
        var files: [String] = []
        var folders = [root]
        while let folder = folders.popLast() {
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: folder)
            } catch {
                throw SearchlightError(
                    .unreadableInput, "Cannot read the directory \(folder): \(describe(error))", path: folder)
            }
            for name in names where !name.hasPrefix(".") {
                let path = folder + "/" + name
                var status = stat()
                guard lstat(path, &status) == 0 else { continue }
                switch kind(of: status) {
                case .file: files.append(path)
                case .directory: folders.append(path)
                case .other: continue
                }
            }
        }
        return files
    }

    private static func kind(of status: stat) -> Kind {
        switch status.st_mode & S_IFMT {
        case S_IFREG: .file
        case S_IFDIR: .directory
        default: .other
        }
    }

    /// A file error in words: the system's own for the underlying failure ("No such file or
    /// directory"), else the error as it describes itself.
    static func describe(_ error: any Error) -> String {
        if let posix = error as? POSIXError { return describe(code: posix.code.rawValue) }
        if let cocoa = error as? CocoaError, let posix = cocoa.underlying as? POSIXError {
            return describe(code: posix.code.rawValue)
        }
        return String(describing: error)
    }

    /// A system error code (`errno`, a pthread status) in words.
    static func describe(code: Int32) -> String { String(cString: strerror(code)) }

    /// `errno` in words.
    static func lastError() -> String { describe(code: errno) }

    /// Writes `head`, then the rest of `reader`, to a new temporary file (in `TMPDIR`, else
    /// `/tmp`), and returns its path; the caller removes it.
    static func spool(_ head: Data, then reader: FileReader) throws(SearchlightError) -> String {
        let folder = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((folder + "/searchlight-input-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw SearchlightError(
                .unreadableInput,
                "Cannot make a temporary file in \(folder) for standard input: \(lastError()); "
                    + "set TMPDIR to a folder with space")
        }
        defer { close(descriptor) }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        func write(_ data: Data) throws(SearchlightError) {
            let written = data.withUnsafeBytes { raw -> Bool in
                var offset = 0
                while offset < raw.count {
                    let count = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else { return false }
                    offset += count
                }
                return true
            }
            guard written else {
                let reason = lastError()
                unlink(path)
                throw SearchlightError(
                    .unreadableInput,
                    "Cannot copy standard input to \(path): \(reason); set TMPDIR to a folder with space")
            }
        }
        try write(head)
        while true {
            let block: Data
            do throws(SearchlightError) {
                block = try reader.read(upToCount: 1 << 20)
            } catch {
                unlink(path)
                throw error
            }
            if block.isEmpty { return path }
            try write(block)
        }
    }
}

/// A file open for reading, read in blocks (`FileHandle` is Foundation's, not FoundationEssentials').
final class FileReader {
    private let descriptor: Int32

    /// Opens `path`; `nil` when it cannot be opened (`errno` says why).
    init?(path: String) {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
    }

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Standard input.
    static func standardInput() -> FileReader { FileReader(descriptor: STDIN_FILENO) }

    deinit {
        if descriptor != STDIN_FILENO { close(descriptor) }
    }

    /// Up to `count` bytes; empty at the end of the file.
    func read(upToCount count: Int) throws(SearchlightError) -> Data {
        var block = Data(count: count)
        let read = block.withUnsafeMutableBytes { buffer in
            while true {
                let read = Glibc.read(descriptor, buffer.baseAddress, count)
                if read >= 0 || errno != EINTR { return read }
            }
        }
        guard read >= 0 else {
            throw SearchlightError(.unreadableInput, "Cannot read the file: \(FileSystem.lastError())")
        }
        block.count = read
        return block
    }

    /// Everything left to read.
    func readToEnd() throws(SearchlightError) -> Data {
        var data = Data()
        while true {
            let block = try read(upToCount: 1 << 20)
            if block.isEmpty { return data }
            data.append(block)
        }
    }
}
