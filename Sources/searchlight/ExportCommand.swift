import ArgumentParser
import FoundationEssentials
import Glibc
import SearchlightCommandLine
import SearchlightKit

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        _superCommandName: SearchlightCommand.programName,
        abstract: "Print every item as JSON Lines in the Branch dictionary format.",
        discussion: """
            Each line is one item with its "domain" and "contentIndexMode"; indexing the output \
            back yields the same items. Without --all-domains, only the items of --domain.

            Examples:
              searchlight export --all-domains > backup.jsonl
              searchlight export --domain com.example.shop --include-expired
            """
    )

    @OptionGroup var global: GlobalOptions
    @Option(parsing: .unconditional, help: .now) var now: Int64?

    @Option(help: ArgumentHelp("Export this domain's items.", valueName: "domain"))
    var domain: String?

    @Flag(help: "Export every domain's items.")
    var allDomains = false

    @Flag(help: "Include items that have expired but are not yet pruned.")
    var includeExpired = false

    func validate() throws {
        if domain != nil, allDomains { throw ValidationError("Use either --domain or --all-domains, not both") }
    }

    func run() throws {
        try reportingErrors(global) {
            let index = try SearchableIndex.openForReading(global)
            let encoder = JSONEncoder.searchlight()
            var buffer = Data()
            try index.forEachItem(
                domainIdentifier: allDomains ? nil : (domain ?? SearchableItem.defaultDomain),
                includeExpired: includeExpired, now: commandTime(now)
            ) { item in
                buffer += try encoder.encode(item.exportedDictionary)
                buffer.append(UInt8(ascii: "\n"))
                if buffer.count > 1 << 16 {
                    Output.write(buffer, to: STDOUT_FILENO)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            Output.write(buffer, to: STDOUT_FILENO)
            try index.close()
        }
    }
}
