package import ArgumentParser
import FoundationEssentials
import Glibc
package import SearchlightKit

/// When text output is styled (`--color`).
package enum ColorChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
    case auto, always, never
}

/// Options every subcommand takes.
package struct GlobalOptions: ParsableArguments {
    package init() {}

    @Option(
        help: ArgumentHelp(
            "The index folder (a Xapian database). Default: $SEARCHLIGHT_INDEX, else "
                + "$XDG_DATA_HOME/searchlight/index, else ~/.local/share/searchlight/index.",
            valueName: "path"))
    package var index: String?

    @Flag(help: "Print one JSON document on stdout instead of text.")
    package var json = false

    @Option(help: "Colours and styles in text output: on a terminal only (auto), always, or never.")
    package var color = ColorChoice.auto

    /// The index path after the defaults.
    package var indexPath: String {
        if let index { return index }
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["SEARCHLIGHT_INDEX"], !path.isEmpty { return path }
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty { return data + "/searchlight/index" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? homeFromPasswd()
        return home + "/.local/share/searchlight/index"
    }

    /// The user's home folder from the password database, when `HOME` is not set.
    private func homeFromPasswd() -> String {
        guard let entry = getpwuid(getuid()), let home = entry.pointee.pw_dir else { return "/" }
        return String(cString: home)
    }

    package var output: Output { Output(json: json) }
}

/// Options of commands that write.
package struct WriterOptions: ParsableArguments {
    package init() {}

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("How long to wait for another writer, in seconds.", valueName: "seconds"))
    package var lockTimeout: Double = 10

    package func validate() throws {
        guard lockTimeout >= 0, lockTimeout.isFinite else {
            throw ValidationError("--lock-timeout must be zero or more seconds, not \(lockTimeout)")
        }
    }

    package var duration: Duration { .milliseconds(Int64(lockTimeout * 1000)) }
}

extension ArgumentHelp {
    /// `--now`'s help. Commands that depend on the clock declare `@Option(help: .now) var now: Int64?`
    /// themselves rather than through an option group: each group costs every process that parses
    /// it about 0.7 M instructions of the parser's reflection, 4 % of a search.
    package static var now: ArgumentHelp {
        ArgumentHelp("The current time in epoch milliseconds (default: the clock).", valueName: "epoch-ms")
    }
}

/// The time a command runs at: `--now` when given, else the clock.
package func commandTime(_ now: Int64?) -> Int64 { now ?? SearchableIndex.currentTime() }

/// `--domain`, the caller's domain.
package struct DomainOption: ParsableArguments {
    package init() {}

    @Option(help: ArgumentHelp("The domain (app) the command acts for.", valueName: "domain"))
    package var domain: String = SearchableItem.defaultDomain

    package func validate() throws {
        do {
            try SearchableItem.validateDomain(domain)
        } catch {
            throw ValidationError(error.message)
        }
    }
}

/// `--scope`: which index modes a search sees.
package enum ScopeOption: String, ExpressibleByArgument, CaseIterable {
    case all, `public`, `private`

    package var scope: SearchQuery.Scope {
        switch self {
        case .all: .all
        case .public: .public
        case .private: .private
        }
    }
}

/// Parses `90s`, `30m`, `12h`, `31d` or `none`.
package struct TimeToLiveArgument: ExpressibleByArgument {
    package var duration: Duration?

    package init?(argument: String) {
        // `none` parses to a nil duration, which is a value here, not a failure: `try?` would
        // flatten the two into one `nil`.
        do {
            duration = try TimeToLive.parse(argument)
        } catch {
            return nil
        }
    }

    package init(_ duration: Duration?) { self.duration = duration }

    package var defaultValueDescription: String { TimeToLive.format(duration) }
}

extension SearchableIndex {
    /// Opens the index for a read command.
    package static func openForReading(_ options: GlobalOptions) throws(SearchlightError) -> SearchableIndex {
        try SearchableIndex(path: options.indexPath, access: .readOnly)
    }

    /// Opens the index for a write command, waiting for another writer up to the timeout.
    package static func openForWriting(_ options: GlobalOptions, _ writer: WriterOptions) throws(SearchlightError)
        -> SearchableIndex
    {
        let index = try SearchableIndex(path: options.indexPath, access: .readWrite(lockTimeout: writer.duration))
        for upgrade in index.formatUpgrades { Output.warn(upgrade.summary) }
        return index
    }
}
