import SearchlightCommandLine
import SearchlightKit

extension IndexCommand {
    /// Indexes the paths, then keeps indexing what changes under them until SIGINT or SIGTERM,
    /// holding the index's lock only while writing.
    func watch(_ indexer: Indexer) throws {
        var indexer = indexer
        let watcher = try FolderWatcher(paths: paths)
        // A stop ends the watch after the batch in flight: its words are committed, and the
        // vectors of meaning it was making stop, those made committed.
        let stops = StopSignals { watcher.stop() }
        defer { withExtendedLifetime(stops) {} }

        let first = FolderWatcher.Changes(written: try BranchUniversalObjectReader.inputFiles(for: paths))
        var pending: FolderWatcher.Changes? = first
        var roots: [String]? = mirror ? paths : nil
        Output.warn("Watching \(paths.joined(separator: ", ")) for changes (Ctrl-C to stop)")
        while true {
            if let changes = pending, !changes.isEmpty {
                do {
                    indexer.now = commandTime(now)
                    let index = try SearchableIndex.openForWriting(global, writer)
                    let report = try indexer.apply(
                        changes, to: index, mirror: mirror, roots: changes.overflowed ? paths : roots)
                    // The batch's words are committed and searchable; then its vectors of meaning.
                    _ = try completeMeaning(index, stop: stops.embedding)
                    try index.close()
                    try printChange(report)
                    pending = nil
                    roots = nil
                } catch let error as SearchlightError {
                    // Tried again a second later, with what has changed since.
                    Output.warn("searchlight: \(error.withAdvice); trying again")
                }
            }
            guard let next = watcher.next(timeout: pending == nil ? nil : .seconds(1)) else { break }
            if pending == nil {
                pending = next
            } else {
                pending!.merge(next)
            }
        }
        Output.warn("Stopped watching")
    }

    /// Reports one batch: a line on stderr, or a JSON line on stdout.
    private func printChange(_ report: Indexer.ChangeReport) throws {
        if global.json { return try global.output.printJSONLine(report) }
        let indexing = report.indexing
        var parts: [String] = []
        if !report.files.isEmpty {
            parts.append(
                "indexed \(Self.count(report.files.count, "file")): \(indexing.added) added, \(indexing.updated) updated, "
                    + "\(indexing.unchanged) unchanged"
                    + (indexing.expired > 0 ? ", \(indexing.expired) already expired" : "")
                    + (indexing.rejected > 0 ? ", \(indexing.rejected) rejected" : ""))
        }
        if !report.gone.isEmpty { parts.append("\(Self.count(report.gone.count, "path")) gone") }
        if mirror, report.removed > 0 { parts.append("removed \(Self.count(report.removed, "item"))") }
        if report.rescanned { parts.append("read everything again (changes were lost: the kernel's queue overflowed)") }
        guard !parts.isEmpty else { return }
        let names = (report.files + report.gone).prefix(3).map { Output.shown($0) }.joined(separator: ", ")
        let more = report.files.count + report.gone.count > 3 ? ", …" : ""
        Output.warn(parts.joined(separator: "; ").capitalizedFirst + (names.isEmpty ? "" : " (\(names)\(more))"))
        for error in indexing.errors { Output.warn("  \(error)") }
    }

    private static func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
}

extension String {
    fileprivate var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
