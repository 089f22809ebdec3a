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
        if var command = subcommandParsedAlone(arguments) {
            do { try command.run() } catch { SearchlightCommand.exit(withError: error) }
            return
        }
        SearchlightCommand.main()
    }

    /// `searchlight SUBCOMMAND ARGUMENTS…` parsed as the subcommand alone, the way
    /// swift-argument-parser parses a command that names a super-command (`_superCommandName`,
    /// as `swift package` is run by `swift`); `nil` when that parse fails.
    ///
    /// A command parsed alone skips the root's own parse, its tree of subcommands and its check for
    /// a completion-script request: for a search, 3.1 M of the 12.8 M instructions it ran. Only
    /// successful parses of the subcommand itself are kept. Help, every error (with its usage line
    /// and exit status) and the root's own flags, which a subcommand alone does not know and
    /// `search` would take for query words, are left to the root's parse, so nothing a user sees
    /// changes.
    static func subcommandParsedAlone(_ arguments: ArraySlice<String>) -> (any ParsableCommand)? {
        guard let name = arguments.first,
            let subcommand = SearchlightCommand.configuration.subcommands.first(where: {
                $0.configuration.commandName == name
            }),
            !arguments.contains(where: isRootFlag)
        else { return nil }
        // A request for help parses as the library's help command, which would print the
        // subcommand's help without the root's part.
        guard let command = try? subcommand.parseAsRoot(Array(arguments.dropFirst())), type(of: command) == subcommand
        else { return nil }
        return command
    }

    /// `--version`, `--generate-completion-script [SHELL]` and the shell completion's
    /// `---completion`: what only the root command answers.
    static func isRootFlag(_ argument: String) -> Bool {
        ["--version", "--generate-completion-script", "---completion"].contains {
            argument == $0 || argument.hasPrefix($0 + "=")
        }
    }
}

struct SearchlightCommand: ParsableCommand {
    /// The root's name, which every subcommand names as its super-command (Main.subcommandParsedAlone).
    static let programName = "searchlight"

    static let configuration = CommandConfiguration(
        commandName: programName,
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
            StatsCommand.self, ExportCommand.self, CompactCommand.self, ViewCommand.self, FieldsCommand.self,
            EmbedCommand.self, SimilarCommand.self, ClientStateCommand.self, ServeCommand.self,
        ]
    )
}
