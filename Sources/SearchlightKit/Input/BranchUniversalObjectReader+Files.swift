import FoundationEssentials
import Glibc

extension BranchUniversalObjectReader {
    /// Expands the command-line inputs: files stay, directories are walked recursively (sorted,
    /// hidden entries skipped) for `.json`, `.jsonl` and `.ndjson` files, and `-` stays.
    ///
    /// - Throws: ``SearchlightError/Code/unreadableInput`` for a path that does not exist.
    public static func inputFiles(for paths: [String]) throws(SearchlightError) -> [String] {
        var files: [String] = []
        for path in paths {
            if path == "-" {
                files.append(path)
                continue
            }
            guard let kind = FileSystem.kind(atPath: path) else {
                throw SearchlightError(.unreadableInput, "No such file or directory: \(path)", path: path)
            }
            guard kind == .directory else {
                files.append(path)
                continue
            }
            let root = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
            let found = try FileSystem.files(under: root).filter { file in
                fileExtensions.contains(URL(fileURLWithPath: file).pathExtension.lowercased())
            }
            files += found.sorted()
        }
        return files
    }

    /// True for a file named as JSON Lines (`.jsonl`, `.ndjson`).
    public static func isLines(path: String) -> Bool {
        let lowered = path.lowercased()
        return lowered.hasSuffix(".jsonl") || lowered.hasSuffix(".ndjson")
    }

    /// Reads standard input; see ``read(path:piece:filter:emit:)``.
    static func readStandardInput(piece: Int, filter: LineFilter?, emit: (DecodedInput) -> Bool) {
        let path = "-"
        let standardInput = FileReader.standardInput()
        do throws(SearchlightError) {
            var head = Data()
            while head.count <= Indexer.directInputLimit {
                let block = try standardInput.read(upToCount: 1 << 20)
                if block.isEmpty {
                    _ = emit(decode(head, path: path))
                    return
                }
                head += block
            }
            let spooled = try FileSystem.spool(head, then: standardInput)
            defer { unlink(spooled) }
            decodeDocument(path: spooled, name: path, piece: piece, filter: filter, emit: emit)
        } catch {
            var input = DecodedInput(path: path)
            var error = error
            error.path = path
            input.rejections.append(error)
            _ = emit(input)
        }
    }
}
