import ArgumentParser
import FoundationEssentials
import SearchlightCommandLine
import SearchlightKit

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        _superCommandName: SearchlightCommand.programName,
        abstract: "Count the index's items: public, private, expired, per domain, and its size.",
        discussion: """
            Examples:
              searchlight stats
              searchlight stats --json --index /var/lib/searchlight/index
            """
    )

    @OptionGroup var global: GlobalOptions
    @Option(parsing: .unconditional, help: .now) var now: Int64?

    /// The size on disk, saying when remote shards' sizes are not in it (their servers' disks).
    private func size(of stats: IndexStatistics) -> String {
        let remote = stats.shards?.filter { $0.sizeBytes == nil }.count ?? 0
        if remote == 0 { return Output.bytes(stats.sizeBytes ?? 0) }
        if remote == stats.shards?.count { return "not known here (the shards are remote)" }
        return Output.bytes(stats.sizeBytes ?? 0) + " (local shards only)"
    }

    func run() throws {
        try reportingErrors(global) {
            // A topology's shards are counted at the batches they hold, even when these differ.
            let stats = try SearchableIndex.statistics(ofIndexAt: global.indexPath, now: commandTime(now))
            if global.json { return try global.output.printJSON(stats) }
            let rows: [(String, String)] = [
                ("Index", stats.path ?? ""), ("Items", String(stats.documents)), ("Public", String(stats.public)),
                ("Private", String(stats.private)), ("Expired (not yet pruned)", String(stats.expired)),
                ("Size", size(of: stats)), ("Default language", stats.language ?? "en"),
            ]
            let width = rows.map(\.0.count).max() ?? 0
            for (name, value) in rows {
                print(Output.padded(name + ":", to: width + 1) + " " + Output.shown(value))
            }
            if let shards = stats.shards {
                print("\nShards:")
                let shardWidth = shards.map(\.shard.count).max() ?? 0
                for shard in shards {
                    let size = shard.sizeBytes.map { "  " + Output.bytes($0) } ?? ""
                    print(
                        "  " + Output.padded(Output.shown(shard.shard), to: shardWidth) + "  "
                            + "\(String(shard.documents).leftPadded(to: 6)) items (\(shard.public) public, "
                            + "\(shard.private) private, \(shard.expired) expired), batch \(shard.batch)" + size)
                }
                let batches = Set(shards.map(\.batch))
                if batches.count > 1, let last = batches.max() {
                    print(
                        "\nThe shards hold different batches: a shard below batch \(last) is behind (a replica "
                            + "catching up, or its xapian-replicate stopped); a search service answers from the last "
                            + "batch all its shards held.")
                }
            }
            guard !stats.domains.isEmpty else { return }
            print("\nDomains:")
            let domainWidth = stats.domains.keys.map { Output.shown($0).count }.max() ?? 0
            for (domain, count) in stats.domains.sorted(by: { $0.key < $1.key }) {
                print(
                    "  " + Output.padded(Output.shown(domain), to: domainWidth) + "  "
                        + String(count).leftPadded(to: 6))
            }
        }
    }
}
