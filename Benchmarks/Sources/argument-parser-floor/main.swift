// The floor of a command-line search written with swift-argument-parser, run by Benchmarks/run
// beside `searchlight search` and Xapian's `quest`:
//
//   argument-parser-floor search --index PATH --now MS --limit 10 WORDS…
//
// A root command and a `search` subcommand that declare what `searchlight search` declares (the
// index, JSON output, the clock, domain, scope, limit, offset and the query words), parse the same
// command line the same way, print the words and exit: everything a Searchlight search pays before
// it opens the index, and nothing after. As `searchlight` does (Main.subcommandParsedAlone), the
// subcommand is parsed on its own, naming the root as its super-command.

import ArgumentParser

@main
enum Floor {
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        guard arguments.first == "search" else { return Root.main() }
        Search.main(Array(arguments.dropFirst()))
    }
}

struct Root: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "argument-parser-floor", version: "1", subcommands: [Search.self, Other.self])
}

struct Common: ParsableArguments {
    @Option var index: String?
    @Flag var json = false
}

enum Scope: String, CaseIterable, ExpressibleByArgument {
    case `public`, `private`, all
}

struct Search: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "search", _superCommandName: "argument-parser-floor")

    @OptionGroup var common: Common
    @Option var now: Int64?
    @Argument(parsing: .allUnrecognized) var query: [String] = []
    @Option var domain: String?
    @Flag var allDomains = false
    @Option var scope: Scope = .all
    @Option var limit = 20
    @Option var offset = 0

    func run() {
        print(query.joined(separator: " "), scope.rawValue, limit, offset)
    }
}

/// A second subcommand, so that the root chooses between several as Searchlight's does.
struct Other: ParsableCommand {
    @Argument var path: String
}
