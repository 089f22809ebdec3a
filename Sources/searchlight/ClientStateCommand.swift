import ArgumentParser
import FoundationEssentials
import SearchlightCommandLine
import SearchlightKit

struct ClientStateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client-state",
        _superCommandName: SearchlightCommand.programName,
        abstract: "Print the client state of the domain's last committed batch (index --client-state).",
        discussion: """
            Core Spotlight's fetchLastClientState: the state a run of index --client-state committed \
            together with its items, so a job that was killed knows which batch was the last to commit \
            and resumes after it. Prints nothing (and exits 0) when the domain has no state yet. Over a \
            topology whose writer was killed while committing, it first completes that batch on every \
            shard, waiting for another writer up to --lock-timeout.

            Examples:
              searchlight client-state --domain com.example.shop
              searchlight client-state --domain com.example.shop --base64
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var writer: WriterOptions
    @OptionGroup var domain: DomainOption

    @Flag(help: "Print the state's bytes in base64 rather than as text.")
    var base64 = false

    func run() throws {
        try reportingErrors(global) {
            // A batch that a killed writer left on some shards of a topology is completed first,
            // so that the state read is the one every shard holds.
            let index =
                try SearchableIndex.hasUnfinishedBatch(at: global.indexPath)
                ? try SearchableIndex.openForWriting(global, writer) : try SearchableIndex.openForReading(global)
            let state = try index.fetchLastClientState(domainIdentifier: domain.domain)
            try index.close()
            if global.json {
                return try global.output.printJSON(ClientStateRecord(domain: domain.domain, state: state))
            }
            guard let state else { return }
            if base64 { return print(state.base64EncodedString()) }
            guard let text = String(validating: state, as: UTF8.self) else {
                throw SearchlightError(
                    .invalidArgument,
                    "The client state of domain \(domain.domain) is \(state.count) byte\(state.count == 1 ? "" : "s") "
                        + "that are not UTF-8 text; add --base64 to print them in base64")
            }
            print(text)
        }
    }
}
