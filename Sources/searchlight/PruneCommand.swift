import ArgumentParser
import SearchlightCommandLine
import SearchlightKit

struct PruneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        _superCommandName: SearchlightCommand.programName,
        abstract: "Delete every expired item, in every domain.",
        discussion: """
            Expired items are never returned by search or get whether or not they have been pruned; \
            pruning frees their space.

            Examples:
              searchlight prune
              searchlight prune --dry-run --json
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var writer: WriterOptions
    @Option(parsing: .unconditional, help: .now) var now: Int64?

    @Flag(help: "Only count the expired items; delete nothing.")
    var dryRun = false

    struct Report: Encodable {
        var pruned: Int
        var dryRun: Bool
    }

    func run() throws {
        try reportingErrors(global) {
            let index =
                dryRun
                ? try SearchableIndex.openForReading(global) : try SearchableIndex.openForWriting(global, writer)
            let progress = Progress()
            progress.update({ _ in "Pruning expired items…" }, force: true)
            let pruned = try index.pruneExpiredItems(now: commandTime(now), dryRun: dryRun)
            progress.finish()
            try index.close()
            if global.json { return try global.output.printJSON(Report(pruned: pruned, dryRun: dryRun)) }
            let items = "\(pruned) expired item\(pruned == 1 ? "" : "s")"
            print(dryRun ? "Would prune \(items)" : "Pruned \(items)")
        }
    }
}
