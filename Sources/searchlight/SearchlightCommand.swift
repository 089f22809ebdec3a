import ArgumentParser
import SearchlightCommandLine

@main
enum Main {
    static func main() {
        // `serve` is another program (ServerProgram): hand it over before parsing anything.
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.first == "serve" {
            Output.warn("searchlight: " + ServerProgram.exec(Array(arguments.dropFirst())))
            SearchlightCommand.exit(withError: ExitStatus.failure)
        }
        SearchlightCommand.main()
    }
}

struct SearchlightCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "searchlight",
        abstract: "A Spotlight-style local index and search for Branch Universal Objects.",
        discussion: """
            Index BUO JSON files (the Branch SDKs' dictionary or camelCase form), search them with \
            keywords, phrases and field filters, and remove private items by identifier or domain.

            The index lives at --index, else $SEARCHLIGHT_INDEX, else $XDG_DATA_HOME/searchlight/index, \
            else ~/.local/share/searchlight/index.

            Examples:
              searchlight index corpus/ --domain com.example.shop
              searchlight search "deep linking" --all-domains
              searchlight remove item/42 --domain com.example.shop
              searchlight serve --tokens tokens.json
            """,
        version: "0.1.0",
        subcommands: [
            IndexCommand.self, SearchCommand.self, GetCommand.self, RemoveCommand.self, PruneCommand.self,
            StatsCommand.self, ExportCommand.self, CompactCommand.self, ViewCommand.self, ServeCommand.self,
        ]
    )
}
