import ArgumentParser
import SearchlightCommandLine
import SearchlightKit

struct SimilarCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "similar",
        _superCommandName: SearchlightCommand.programName,
        abstract: "The items nearest in meaning to one item.",
        discussion: """
            The item is found as get finds it: --domain's own item of that identifier, or a public \
            item of another domain. Its neighbours are the items a search would see (--domain's \
            private items and every domain's public ones, or --all-domains), and that --query \
            selects, nearest first, each at least 30 % similar; the item itself is left out. Needs \
            the vectors of meaning that index (or embed) gives items when the model is installed.

            Examples:
              searchlight similar recipe/tarte-tatin --domain fr.example.cuisine
              searchlight similar item/12345 --query 'price:<30' --limit 5 --json
            """
    )

    @OptionGroup var global: GlobalOptions
    @Option(parsing: .unconditional, help: .now) var now: Int64?

    @Argument(help: ArgumentHelp("The item's canonical identifier, or a Branch link to it.", valueName: "id"))
    var identifier: String

    @OptionGroup var visibility: SearchVisibility

    @Option(
        help: ArgumentHelp(
            "Only items this query matches (filters, phrases, words: the query language).", valueName: "query"))
    var query = ""

    @Option(parsing: .unconditional, help: "How many results to show (at most \(SearchQuery.maximumLimit)).")
    var limit = 10

    @Option(parsing: .unconditional, help: "How many results to skip (at most \(SearchQuery.maximumOffset)).")
    var offset = 0

    func validate() throws {
        if limit < 0 || limit > SearchQuery.maximumLimit {
            throw ValidationError("--limit must be between 0 and \(SearchQuery.maximumLimit)")
        }
        if offset < 0 || offset > SearchQuery.maximumOffset {
            throw ValidationError("--offset must be between 0 and \(SearchQuery.maximumOffset)")
        }
    }

    func run() throws {
        try reportingErrors(global) {
            let selection = SearchQuery(
                query, domainIdentifier: visibility.domainIdentifier, scope: visibility.scope.scope, limit: limit,
                offset: offset)
            let index = try SearchableIndex.openForReading(global)
            let results = try index.similar(to: identifier, query: selection, now: commandTime(now))
            try index.close()
            if global.json { return try global.output.printJSON(results) }
            SearchCommand.printText(results, scores: true)
        }
    }
}
