import ArgumentParser
import FoundationEssentials
import SearchlightCommandLine
import SearchlightKit

struct CompactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        _superCommandName: SearchlightCommand.programName,
        abstract: "Rewrite the index compactly, reclaiming the space of deleted and replaced items.",
        discussion: """
            Writes the index anew as its next generation and switches to it atomically: searches \
            running meanwhile see the old generation or the new one and are never interrupted. A \
            compaction killed at any moment leaves the old generation in place. The first \
            compaction of an index made by an earlier version moves it to generation folders \
            (XAPIANDB names the current one). prune compacts by itself when it deleted 1 % of the \
            items or more.

            Examples:
              searchlight compact
              searchlight compact --json
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var writer: WriterOptions

    func run() throws {
        try reportingErrors(global) {
            // Compacting creates nothing: a missing index is the read commands' error.
            try SearchableIndex.openForReading(global).close()
            let index = try SearchableIndex.openForWriting(global, writer)
            let progress = Progress()
            progress.update({ _ in "Compacting…" }, force: true)
            let report = try index.compact()
            progress.finish()
            try index.close()
            if global.json { return try global.output.printJSON(report) }
            print(
                "Compacted \(global.indexPath): \(Output.bytes(report.bytesBefore)) → \(Output.bytes(report.bytesAfter))"
            )
        }
    }
}
