public import Foundation

extension BranchUniversalObjectReader {
    /// - Throws: ``SearchlightError/Code/unreadableInput`` for a path that does not exist.
    public static func inputFiles(for paths: [String]) throws(SearchlightError) -> [String] {
        var files: [String] = []
        let manager = FileManager.default
        for path in paths {
            if path == "-" {
                files.append(path)
                continue
            }
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw SearchlightError(.unreadableInput, "No such file or directory: \(path)", path: path)
            }
            guard isDirectory.boolValue else {
                files.append(path)
                continue
            }
            let root = URL(fileURLWithPath: path)
            guard
                let walker = manager.enumerator(
                    at: root, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
            else {
                throw SearchlightError(.unreadableInput, "Cannot read the directory \(path)", path: path)
            }
            var found: [String] = []
            for case let url as URL in walker where fileExtensions.contains(url.pathExtension.lowercased()) {
                if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                    found.append(url.path)
                }
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
}
