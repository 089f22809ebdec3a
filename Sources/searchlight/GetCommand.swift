import ArgumentParser
import FoundationEssentials
import SearchlightCommandLine
import SearchlightKit

struct GetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        _superCommandName: SearchlightCommand.programName,
        abstract: "Show one item, in the Branch dictionary format plus domain and contentIndexMode.",
        discussion: """
            Looks the identifier up in --domain, then among every domain's public items. Expired \
            items are not shown. A long Branch link (https://bnc.lt/a/KEY?...&data=BASE64, as the \
            Branch iOS SDK names items in Spotlight) names the item whose identifier its data holds.

            Examples:
              searchlight get article/deep-linking-101
              searchlight get product/8841 --domain com.example.shop --json
            """
    )

    @OptionGroup var global: GlobalOptions
    @Option(parsing: .unconditional, help: .now) var now: Int64?
    @OptionGroup var domain: DomainOption

    @Argument(help: ArgumentHelp("The canonical identifier, or the item's long Branch link.", valueName: "id"))
    var id: String

    func run() throws {
        try reportingErrors(global) {
            let index = try SearchableIndex.openForReading(global)
            let found = try index.item(withIdentifier: id, domainIdentifier: domain.domain, now: commandTime(now))
            try index.close()
            guard let item = found else {
                throw SearchlightError(
                    .itemNotFound,
                    "No item \(id.quotedForDisplay) in domain \(domain.domain) (or it has expired); "
                        + "check the identifier and --domain")
            }
            if global.json { return try global.output.printJSON(item.dictionary) }
            printText(item)
        }
    }

    private func printText(_ item: SearchableItem) {
        let object = item.object
        print(Output.bold(object.title ?? object.canonicalIdentifier))
        var rows: [(String, String)] = [
            ("Identifier", object.canonicalIdentifier), ("Domain", item.domainIdentifier),
            ("Mode", item.contentIndexMode.rawValue), ("Expires", Output.date(object.expirationDate)),
        ]
        if let description = object.contentDescription { rows.append(("Description", description)) }
        if let url = object.canonicalUrl { rows.append(("URL", url)) }
        if let image = object.imageUrl { rows.append(("Image", image)) }
        if !object.keywords.isEmpty { rows.append(("Keywords", object.keywords.joined(separator: ", "))) }
        if let schema = object.contentMetadata.contentSchema { rows.append(("Schema", schema)) }
        if let created = object.creationDate { rows.append(("Created", Output.date(created))) }
        if let source = item.source { rows.append(("Source", source)) }
        let width = rows.map(\.0.count).max() ?? 0
        for (name, value) in rows {
            print(
                "  " + Output.dim(Output.padded(name + ":", to: width + 1)) + " " + Output.shown(value))
        }
    }
}
