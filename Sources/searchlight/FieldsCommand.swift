import ArgumentParser
import FoundationEssentials
import SearchlightCommandLine
import SearchlightKit

struct FieldsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fields",
        _superCommandName: SearchlightCommand.programName,
        abstract: "List, add or remove the index's custom fields: custom metadata keys to filter, sort and count by.",
        discussion: """
            A custom field is a key of the items' custom metadata (any key the item format does not \
            name, or contentMetadata.customMetadata) that the index is told about. Queries then filter \
            by it (color:red; ranges such as weight:<2 or released:2026 for numbers and dates), --sort \
            orders by a number or date field, and --facet counts it, as the built-in price, rating or \
            category. Adding a field gives every stored item that carries the key its value in the same \
            write; items indexed later get theirs as they are stored. Removing one clears it from every \
            item; the items' custom metadata stays.

            Examples:
              searchlight fields add color --type string
              searchlight fields add weight --type number
              searchlight fields
              searchlight search 'color:red weight:<2' --sort weight --facet color
              searchlight fields remove color
            """,
        subcommands: [List.self, Add.self, Remove.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the index's custom fields, in the order they were added.")

        @OptionGroup var global: GlobalOptions

        func run() throws {
            try reportingErrors(global) {
                let index = try SearchableIndex.openForReading(global)
                let fields = try index.fields()
                try index.close()
                if global.json { return try global.output.printJSON(FieldList(fields: fields)) }
                if fields.isEmpty {
                    print("No custom fields: searchlight fields add NAME --type string|number|date adds one.")
                }
                for field in fields { print("\(field.name)\t\(field.type.rawValue)") }
            }
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Make a custom metadata key a field, and give it to the items already stored."
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var writer: WriterOptions

        @Argument(help: "The custom metadata key: a lower-case letter, then letters, digits or _.")
        var name: String

        /// ``FieldType``, as an option reads it.
        enum TypeChoice: String, ExpressibleByArgument, CaseIterable {
            case string, number, date
        }

        @Option(
            help: "What its values are: string (exact filters, counts per value), number or date (ranges, sorting).")
        var type: TypeChoice

        func run() throws {
            try reportingErrors(global) {
                let index = try SearchableIndex.openForWriting(global, writer)
                let report = try index.addField(name, type: FieldType(rawValue: type.rawValue)!)
                try index.close()
                if global.json { return try global.output.printJSON(report) }
                let items = report.items ?? 0
                print(
                    "Added the \(report.type.rawValue) field \(report.name): \(items) item\(items == 1 ? " carries" : "s carry") it"
                )
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Remove a custom field, clearing it from every item.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var writer: WriterOptions

        @Argument(help: "The field's name.")
        var name: String

        func run() throws {
            try reportingErrors(global) {
                let index = try SearchableIndex.openForWriting(global, writer)
                let report = try index.removeField(name)
                try index.close()
                if global.json { return try global.output.printJSON(report) }
                let items = report.items ?? 0
                print("Removed the field \(report.name) from \(items) item\(items == 1 ? "" : "s")")
            }
        }
    }
}

/// `searchlight fields --json`.
struct FieldList: Encodable {
    var fields: [FieldReport]
}
