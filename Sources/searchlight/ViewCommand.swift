import ArgumentParser
import SearchlightCommandLine
import SearchlightKit

struct ViewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "view",
        _superCommandName: SearchlightCommand.programName,
        abstract: "Record one view of each item: a ranking hint, as the Branch SDK's view events.",
        discussion: """
            Each view counts for the item of --domain with that identifier, or else a public item \
            of any domain. Views add a bounded boost that grows with the logarithm of the count: \
            they order items of similar relevance and never lift a description-only match above a \
            title match. They survive re-indexing the item, go with it when it is removed, and \
            export writes them. Unknown, expired or invisible items are listed under notFound and \
            nothing is created for them. An identifier may be the item's long Branch link. With -, \
            identifiers are read from standard input, one per line: the way to record thousands in \
            one call.

            Examples:
              searchlight view article/deep-linking-101
              searchlight view product/8841 product/8842 --domain com.example.shop --json
              cut -f2 access.log | searchlight view - --domain com.example.shop
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var writer: WriterOptions
    @Option(parsing: .unconditional, help: .now) var now: Int64?
    @OptionGroup var domain: DomainOption

    @Argument(
        help: ArgumentHelp("Identifiers of the items viewed, or - to read them from standard input.", valueName: "id"))
    var ids: [String]

    func validate() throws {
        if ids.contains("-"), ids.count > 1 {
            throw ValidationError("- reads identifiers from standard input; give no others")
        }
    }

    func run() throws {
        try reportingErrors(global) {
            let ids = ids == ["-"] ? try Output.identifiersFromStandardInput() : ids
            let index = try SearchableIndex.openForWriting(global, writer)
            let report = try index.recordViews(
                withIdentifiers: ids, domainIdentifier: domain.domain, now: commandTime(now))
            try index.close()
            if global.json { return try global.output.printJSON(report) }
            print("Recorded \(report.recorded) view\(report.recorded == 1 ? "" : "s")")
            if !report.notFound.isEmpty {
                print("Not found (\(report.notFound.count)): " + Output.shown(report.notFound.joined(separator: ", ")))
            }
        }
    }
}
