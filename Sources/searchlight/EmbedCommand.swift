import ArgumentParser
import FoundationEssentials
import SearchlightCommandLine
import SearchlightKit

struct EmbedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "embed",
        _superCommandName: SearchlightCommand.programName,
        abstract: "Give every item without a vector of meaning one, with the installed model.",
        discussion: """
            index does this for the items it adds or changes, unless --no-meaning; embed completes \
            the rest: an index built with --no-meaning, or a run that was interrupted. Ctrl-C or \
            SIGTERM stops it within about a second, the vectors it made committed, and exits 0 (a \
            second signal ends it at once, losing only what was not yet committed); the next embed \
            goes on. --rebuild first removes every vector, for an index whose vectors another \
            model made. The model is all-MiniLM-L6-v2, installed by scripts/install-dependencies.

            Examples:
              searchlight embed
              searchlight embed --rebuild --json
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var writer: WriterOptions

    @Flag(help: "Remove every vector of meaning first, then make them all anew.")
    var rebuild = false

    @Flag(help: "Report progress on stderr even when it is not a terminal (a line a second).")
    var progress = false

    func run() throws {
        try reportingErrors(global) {
            // An index that is not there is not made for nothing. A topology whose last writer
            // stopped mid-batch is opened for writing at once, which completes the batch (a reader
            // would wait for its shards to agree).
            if try !SearchableIndex.hasUnfinishedBatch(at: global.indexPath) {
                try SearchableIndex.openForReading(global).close()
            }
            let model = try MeaningModel.installed()
            let index = try SearchableIndex.openForWriting(global, writer)
            if rebuild { try index.clearMeaning() }
            let display = Progress(forced: progress)
            let stops = StopSignals()
            let report = try index.completeMeaning(using: model, stop: stops.embedding, progress: display.meaning)
            display.finish()
            try index.close()
            if global.json { return try global.output.printJSON(report) }
            print(
                "Embedded \(report.embedded) item\(report.embedded == 1 ? "" : "s"); \(report.withMeaning) of "
                    + "\(report.items) have a vector of meaning"
                    + (report.stopped ? "; stopped: run embed again to make the rest" : ""))
        }
    }
}

extension Progress {
    /// Shows how far completing the vectors of meaning has come.
    func meaning(_ report: MeaningReport) {
        update { seconds in
            "Embedded \(report.embedded) items, \(report.withMeaning)/\(report.items) have vectors "
                + "(\(Int(Double(report.embedded) / seconds)) items/s)"
        }
    }
}
