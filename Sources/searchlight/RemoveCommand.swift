import ArgumentParser
import FoundationEssentials
import SearchlightCommandLine
import SearchlightKit

struct RemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        _superCommandName: SearchlightCommand.programName,
        abstract: "Remove private items by identifier, by the BUOs in files, or all of a domain's.",
        discussion: """
            Public items are not removable, as in Spotlight: naming one refuses it with code 1014 \
            and changes nothing for it (they leave when they expire); --include-public overrides. \
            Removing an identifier that is not there is not an error: it is listed under notFound. \
            --all-private covers the domain and every domain below it (com.example covers \
            com.example.shop). With -, identifiers are read from standard input, one per line. \
            An identifier may be the item's long Branch link (https://bnc.lt/a/KEY?...&data=BASE64, \
            as the Branch iOS SDK names items in Spotlight).

            Examples:
              searchlight remove cart/991 cart/992 --domain com.example.shop
              searchlight remove --from exported.jsonl --domain com.example.shop
              searchlight remove --all-private --domain com.example.shop
              grep -l draft ids.txt | searchlight remove - --json
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var writer: WriterOptions
    @OptionGroup var domain: DomainOption

    @Argument(help: ArgumentHelp("Identifiers to remove, or - to read them from standard input.", valueName: "id"))
    var ids: [String] = []

    @Option(
        name: .customLong("from"), parsing: .upToNextOption,
        help: ArgumentHelp("Remove the items described by the BUOs in these files.", valueName: "file"))
    var files: [String] = []

    @Flag(help: "Remove every private item of the domain (and the domains below it).")
    var allPrivate = false

    @Flag(help: "Remove public items too (beyond Spotlight, for the index owner).")
    var includePublic = false

    func validate() throws {
        let sources = [!ids.isEmpty, !files.isEmpty, allPrivate].filter { $0 }.count
        if sources == 0 {
            throw ValidationError("Name what to remove: identifiers, - (standard input), --from FILE, or --all-private")
        }
        if sources > 1 { throw ValidationError("Use only one of: identifiers, --from FILE, --all-private") }
        if ids.contains("-"), ids.count > 1 {
            throw ValidationError("- reads identifiers from standard input; give no others")
        }
    }

    func run() throws {
        try reportingErrors(global) {
            var rejections: [SearchlightError] = []
            var targets: [(domain: String, identifiers: [String])] = []
            if ids == ["-"] {
                targets = [(domain.domain, try Output.identifiersFromStandardInput())]
            } else if !files.isEmpty {
                let indexer = Indexer(options: IndexingOptions(domainIdentifier: domain.domain))
                (targets, rejections) = try indexer.identifiers(in: files.map { .path($0) })
                if targets.isEmpty, rejections.isEmpty { targets = [(domain.domain, [])] }
            } else if !ids.isEmpty {
                targets = [(domain.domain, ids)]
            }

            var report = RemovalReport()
            let index = try SearchableIndex.openForWriting(global, writer)
            if allPrivate {
                report.removed = try index.deleteSearchableItems(
                    withDomainIdentifiers: [domain.domain], includePublic: includePublic)
            }
            for target in targets {
                report.merge(
                    try index.deleteSearchableItems(
                        withIdentifiers: target.identifiers, domainIdentifier: target.domain,
                        includePublic: includePublic))
            }
            try index.close()
            report = report.withAdvice

            for rejection in rejections { Output.warn("searchlight: \(rejection.withAdvice)") }
            if global.json {
                try global.output.printJSON(report)
            } else {
                printText(report)
            }
            if !report.refused.isEmpty || !rejections.isEmpty { throw ExitStatus.failure }
        }
    }

    private func printText(_ report: RemovalReport) {
        print("Removed \(report.removed) item\(report.removed == 1 ? "" : "s")")
        if !report.notFound.isEmpty {
            print("Not found (\(report.notFound.count)): " + Output.shown(report.notFound.joined(separator: ", ")))
        }
        for refusal in report.refused {
            Output.warn("Refused \(refusal.id.quotedForDisplay): \(refusal.message) (code \(refusal.code.rawValue))")
        }
    }
}
