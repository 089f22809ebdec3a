import ArgumentParser
import SearchlightKit

struct IndexCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "Index BUO JSON files, folders of them, or standard input.",
        discussion: """
            Each file holds one BUO object, an array of them, or JSON Lines. Folders are walked for \
            .json, .jsonl and .ndjson files; - reads standard input. Each file is atomic: all of its \
            accepted items are stored, or none (a commit holds whole files, about --commit-every items). JSON \
            Lines files (.jsonl, .ndjson) are read as a stream, in bounded memory, except with --strict. \
            Indexing the same (domain, identifier) again replaces the item. An item's own "domain" key (as export writes it) overrides --domain.

            Examples:
              searchlight index corpus/
              searchlight index products.jsonl --domain com.example.shop --max-ttl 7d
              cat items.json | searchlight index - --strict --json
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var writer: WriterOptions
    @OptionGroup var clock: ClockOptions
    @OptionGroup var domain: DomainOption

    @Argument(help: ArgumentHelp("Files, folders, or - for standard input.", valueName: "path"))
    var paths: [String]

    @Flag(help: "Reject everything, and write nothing, if any item or file is rejected.")
    var strict = false

    @Option(
        help: ArgumentHelp("Clamp expirations to at most this long after now (none: no limit).", valueName: "duration"))
    var maxTtl = TimeToLiveArgument(IndexingOptions.branchMaximumTimeToLive)

    @Option(
        help: ArgumentHelp(
            "Give items without an expiration this lifetime (none: never expire).", valueName: "duration"))
    var defaultTtl = TimeToLiveArgument(nil)

    @Option(help: ArgumentHelp("Commit after about this many items; a file is never split.", valueName: "items"))
    var commitEvery = 20_000

    func validate() throws {
        if paths.filter({ $0 == "-" }).count > 1 { throw ValidationError("Standard input (-) can be read only once") }
        if commitEvery < 1 { throw ValidationError("--commit-every must be at least 1") }
    }

    func run() throws {
        try reportingErrors(global) {
            let options = IndexingOptions(
                domainIdentifier: domain.domain, maximumTimeToLive: maxTtl.duration,
                defaultTimeToLive: defaultTtl.duration)
            var report = IndexingReport()
            var files: [String] = []
            for path in paths {
                do throws(SearchlightError) {
                    files += try BranchUniversalObjectReader.inputFiles(for: [path])
                } catch {
                    report.rejected += 1
                    report.errors.append(error)
                }
            }
            let index = try SearchableIndex.openForWriting(global, writer)
            let now = clock.milliseconds
            let progress = Progress()
            var filesDone = 0
            var pending: [DecodedInput] = []
            var pendingItems = 0
            func showProgress(items: Int) {
                progress.update { seconds in
                    "Indexed \(filesDone)/\(files.count) files, \(items) items (\(Int(Double(items) / seconds)) items/s)"
                }
            }
            func flush() throws {
                guard !pending.isEmpty else { return }
                report.merge(try index.index(pending, options: options, strict: strict, now: now))
                filesDone += pending.count
                pending.removeAll(keepingCapacity: true)
                pendingItems = 0
                showProgress(items: report.indexed)
            }
            for file in files {
                if !strict, BranchUniversalObjectReader.isLines(path: file) {
                    // JSON Lines are streamed: the file is still one transaction, but read and
                    // stored piece by piece, so its size does not matter.
                    try flush()
                    report.merge(
                        try index.performBatch { batch throws(SearchlightError) in
                            var fileReport = IndexingReport()
                            let filter = try batch.lineFilter(options: options, now: now)
                            try BranchUniversalObjectReader.readLines(path: file, recognizing: filter) {
                                piece throws(SearchlightError) in
                                fileReport.merge(try batch.index([piece], options: options, now: now))
                                showProgress(items: report.indexed + fileReport.indexed)
                            }
                            return fileReport
                        })
                    filesDone += 1
                    continue
                }
                let input = BranchUniversalObjectReader.read(path: file)
                pending.append(input)
                pendingItems += input.objects.count
                if !strict, pendingItems >= commitEvery { try flush() }
            }
            if strict, report.rejected > 0 {
                // A path that could not be expanded already rejects everything.
                for input in pending {
                    report.rejected += input.rejections.count
                    report.errors += input.rejections
                }
                pending.removeAll()
            }
            try flush()
            progress.finish()
            try index.close()
            try printReport(report, files: files.count)
            if report.rejected > 0 { throw ExitStatus.failure }
        }
    }

    private func printReport(_ report: IndexingReport, files: Int) throws {
        if global.json { return try global.output.printJSON(report) }
        var summary = "Indexed \(report.indexed) item\(report.indexed == 1 ? "" : "s") "
        summary += "(\(report.added) added, \(report.updated) updated, \(report.unchanged) unchanged) "
        summary += "from \(files) file\(files == 1 ? "" : "s")"
        var notes: [String] = []
        if report.expired > 0 { notes.append("\(report.expired) already expired") }
        if report.clamped > 0 { notes.append("\(report.clamped) expiration\(report.clamped == 1 ? "" : "s") clamped") }
        if report.rejected > 0 { notes.append("\(report.rejected) rejected") }
        if !notes.isEmpty { summary += "; " + notes.joined(separator: ", ") }
        if strict, report.rejected > 0 { summary += "; --strict: nothing was written" }
        print(summary)
        for error in report.errors { Output.warn("  \(error)") }
    }
}
