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
            the rest: an index built with --no-meaning, or a run that was interrupted. Vectors are \
            committed a few hundred items at a time, so an interrupted embed keeps what it did and the \
            next one goes on. --rebuild first removes every vector, for an index whose vectors another \
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
            try SearchableIndex.openForReading(global).close()
            let model = try MeaningModel.installed()
            let index = try SearchableIndex.openForWriting(global, writer)
            if rebuild { try index.clearMeaning() }
            let display = Progress(forced: progress)
            let report = try index.completeMeaning(using: model, progress: display.meaning)
            display.finish()
            try index.close()
            if global.json { return try global.output.printJSON(report) }
            print(
                "Embedded \(report.embedded) item\(report.embedded == 1 ? "" : "s"); \(report.withMeaning) of "
                    + "\(report.items) have a vector of meaning")
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
