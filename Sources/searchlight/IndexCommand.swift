import ArgumentParser
import SearchlightCommandLine
import SearchlightKit

struct IndexCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        _superCommandName: SearchlightCommand.programName,
        abstract: "Index BUO JSON files, folders of them, or standard input.",
        discussion: """
            Each file holds one BUO object, an array of them, or JSON Lines. Folders are walked for \
            .json, .jsonl and .ndjson files; - reads standard input. The run is atomic: all of its \
            accepted items are stored, or none, even if the process is killed. A large run is read as a \
            stream, in bounded memory, and built on --jobs threads at once. Indexing the same (domain, \
            identifier) again replaces the item; within a run, its last occurrence wins; an item stored \
            unchanged is not rewritten. An item's own "domain" key (as export writes it) overrides --domain.

            Examples:
              searchlight index corpus/
              searchlight index products.jsonl --domain com.example.shop --max-ttl 7d
              searchlight index recettes/ --language fr
              cat items.json | searchlight index - --strict --json
              searchlight index page-43.jsonl --domain com.example.shop --client-state page-43 \\
                --expect-client-state page-42
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var writer: WriterOptions
    @Option(parsing: .unconditional, help: .now) var now: Int64?
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

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Segment builders for a large run (default: one per core, at most \(CoreBudget.maximumBuilders)); 1 builds on one "
                + "thread.", valueName: "n"))
    var jobs = CoreBudget.machine.builders

    @Flag(
        help: ArgumentHelp(
            "Index words only: leave the items added or changed without a vector of meaning (searchlight "
                + "embed gives them theirs)."))
    var noMeaning = false

    @Option(
        help: ArgumentHelp(
            "Commit this client state with the run (1 to 1,024 bytes), as a Core Spotlight batch does; "
                + "searchlight client-state reads it back.", valueName: "state"))
    var clientState: String?

    @Option(
        help: ArgumentHelp(
            "With --client-state: write only if the domain's stored client state is this one ('' for none stored "
                + "yet); otherwise write nothing and exit 1.", valueName: "state"))
    var expectClientState: String?

    @Flag(help: "--client-state and --expect-client-state are base64 of the state's bytes, not text.")
    var clientStateBase64 = false

    @Option(
        help: ArgumentHelp(
            "Make this the index's default language (a tag such as fr): items that name none are told in their "
                + "text's language with it expected, else are in it. Recorded in the index (default: en).",
            valueName: "tag"))
    var language: String?

    @Flag(help: "Report progress on stderr even when it is not a terminal (a line a second).")
    var progress = false

    @Flag(name: .shortAndLong, help: "Print no progress and no summary; rejections still go to stderr.")
    var quiet = false

    @Flag(
        help: ArgumentHelp(
            "After indexing, keep running and index the files that change under the paths (until Ctrl-C or "
                + "SIGTERM)."))
    var watch = false

    @Flag(
        help: ArgumentHelp(
            "With --watch: remove the items of files deleted, and the items a file no longer holds."))
    var mirror = false

    func validate() throws {
        if paths.filter({ $0 == "-" }).count > 1 { throw ValidationError("Standard input (-) can be read only once") }
        if watch, paths.contains("-") {
            throw ValidationError("--watch watches files and folders, not standard input (-)")
        }
        if mirror, !watch { throw ValidationError("--mirror needs --watch") }
        if quiet, progress { throw ValidationError("Use either --quiet or --progress, not both") }
        if expectClientState != nil, clientState == nil {
            throw ValidationError("--expect-client-state needs --client-state, the state to commit if it matches")
        }
        if clientStateBase64, clientState == nil { throw ValidationError("--client-state-base64 needs --client-state") }
        if watch, clientState != nil {
            throw ValidationError("--client-state commits one run's files as a batch; --watch runs until stopped")
        }
        if jobs < 1 || jobs > CoreBudget.maximumBuilders {
            throw ValidationError("--jobs must be between 1 and \(CoreBudget.maximumBuilders), not \(jobs)")
        }
    }

    func run() throws {
        try reportingErrors(global) {
            let indexer = Indexer(
                options: IndexingOptions(
                    domainIdentifier: domain.domain, maximumTimeToLive: maxTtl.duration,
                    defaultTimeToLive: defaultTtl.duration),
                strict: strict, jobs: jobs, now: commandTime(now), clientState: try clientStateUpdate())
            if let language {
                let index = try SearchableIndex.openForWriting(global, writer)
                try index.setDefaultLanguage(language)
                try index.close()
            }
            if watch { return try self.watch(indexer) }
            let index = try SearchableIndex.openForWriting(global, writer)
            let display = Progress(forced: progress, quiet: quiet)
            var files = 0
            let report = try indexer.index(paths.map { .path($0) }, into: index) { progress in
                files = progress.files
                display.update { seconds in
                    switch progress.phase {
                    case .reading:
                        "Indexed \(progress.filesRead)/\(progress.files) files, \(progress.items) items "
                            + "(\(Int(Double(progress.items) / seconds)) items/s)"
                    case .merging:
                        "Merging \(progress.items) items into the index…"
                    }
                }
            }
            display.finish()
            // The words are committed: a stop from here on commits the vectors made, and the next
            // run (or `embed`) makes the rest.
            let stops = StopSignals()
            let meaning = try completeMeaning(index, stop: stops.embedding)
            try index.close()
            try printReport(report, meaning: meaning, files: files)
            if report.rejected > 0 { throw ExitStatus.failure }
        }
    }

    /// The client state to commit with the run, from --client-state and --expect-client-state.
    private func clientStateUpdate() throws(SearchlightError) -> ClientStateUpdate? {
        guard let clientState else { return nil }
        // Checked here, before the index is opened, which creates it.
        return try ClientStateUpdate(
            domainIdentifier: domain.domain, state: clientState, expected: expectClientState, base64: clientStateBase64,
            names: ("--client-state", "--expect-client-state"))
    }

    /// Gives the items added or changed their vectors of meaning, when the model is installed,
    /// until every item has one or `stop` is asked.
    func completeMeaning(_ index: SearchableIndex, stop: EmbeddingStop) throws -> MeaningReport? {
        guard !noMeaning, !index.readsShardServers, let model = try MeaningModel.installedIfAny() else { return nil }
        let display = Progress(forced: progress, quiet: quiet)
        defer { display.finish() }
        return try index.completeMeaning(using: model, stop: stop, progress: display.meaning)
    }

    private func printReport(_ report: IndexingReport, meaning: MeaningReport?, files: Int) throws {
        if global.json { return try global.output.printJSON(IndexOutput(report: report, meaning: meaning)) }
        if quiet {
            for error in report.errors { Output.warn("\(error)") }
            return
        }
        var summary = "Indexed \(report.indexed) item\(report.indexed == 1 ? "" : "s") "
        summary += "(\(report.added) added, \(report.updated) updated, \(report.unchanged) unchanged) "
        summary += "from \(files) file\(files == 1 ? "" : "s")"
        var notes: [String] = []
        if report.expired > 0 { notes.append("\(report.expired) already expired") }
        if report.clamped > 0 { notes.append("\(report.clamped) expiration\(report.clamped == 1 ? "" : "s") clamped") }
        if report.rejected > 0 { notes.append("\(report.rejected) rejected") }
        if !notes.isEmpty { summary += "; " + notes.joined(separator: ", ") }
        if strict, report.rejected > 0 { summary += "; --strict: nothing was written" }
        if let meaning, meaning.embedded > 0 {
            summary += "; \(meaning.embedded) given a vector of meaning"
        }
        if let meaning, meaning.stopped {
            summary += "; stopped before every item had a vector of meaning (`searchlight embed` makes the rest)"
        }
        print(summary)
        for error in report.errors { Output.warn("  \(error)") }
    }
}

/// `index --json`'s document: the indexing report, and how many items were given a vector of
/// meaning and whether a signal stopped that (when the model is installed).
private struct IndexOutput: Encodable {
    let report: IndexingReport
    let meaning: MeaningReport?

    enum CodingKeys: String, CodingKey { case embedded, embeddingStopped }

    func encode(to encoder: any Encoder) throws {
        try report.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(meaning?.embedded, forKey: .embedded)
        try container.encodeIfPresent(meaning?.stopped, forKey: .embeddingStopped)
    }
}
