import ArgumentParser
import Foundation
import Glibc
import Logging
import Metrics
import Prometheus
import SearchlightCommandLine
import SearchlightKit
import SearchlightServer

/// `searchlight serve`, the HTTP service: a program of its own, which `searchlight serve` runs in
/// its place (`ServerProgram`), so that the CLI never loads Hummingbird and NIO.
@main
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "searchlight serve", abstract: ServerProgram.abstract, discussion: ServerProgram.discussion)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var writer: WriterOptions

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(parsing: .unconditional, help: "The port to listen on (0: any free port).")
    var port = 7700

    @Option(help: ArgumentHelp("The tokens file (JSON).", valueName: "file"))
    var tokens: String?

    @Option(help: ArgumentHelp("How often to prune expired items (none: never).", valueName: "duration"))
    var pruneInterval = TimeToLiveArgument(.seconds(3600))

    @Flag(help: "Serve searches, items, stats and the page only; refuse writes (a replica's service).")
    var readOnly = false

    @Option(help: ArgumentHelp("With --read-only: the primary's address, named to refused writes.", valueName: "url"))
    var primary: String?

    @Option(
        help: ArgumentHelp(
            "Index the files under this path at start, then as they change (repeatable; into the default domain).",
            valueName: "path"))
    var watch: [String] = []

    @Flag(help: "With --watch: remove the items of files deleted, and those a file no longer holds.")
    var mirror = false

    @Flag(help: "Answer GET /metrics without a token (else admin tokens only).")
    var metricsPublic = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            """
            Connections open at once (default: as many as the open-files limit allows, less 256); a new one past it \
            takes the place of the one that has waited longest for a request, or is answered 503 when all are busy.
            """,
            valueName: "n"))
    var maxConnections: Int?

    @Option(help: ArgumentHelp("How long a client has to send its request's head.", valueName: "duration"))
    var headerTimeout = TimeToLiveArgument(ConnectionLimits().headerTimeout)

    @Option(help: ArgumentHelp("How long a connection may wait for its next request.", valueName: "duration"))
    var idleTimeout = TimeToLiveArgument(ConnectionLimits().idleTimeout)

    @Option(help: "How logs are written to stderr: text (for people) or json (one object per line, for log shippers).")
    var logFormat = LogFormat.text

    enum LogFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard (maxConnections ?? 1) >= 1 else { throw ValidationError("--max-connections must be at least 1") }
        guard headerTimeout.duration != nil, idleTimeout.duration != nil else {
            throw ValidationError("--header-timeout and --idle-timeout take a duration such as 10s, not none")
        }
        guard watch.isEmpty || !readOnly else { throw ValidationError("--watch writes: it cannot go with --read-only") }
        guard !mirror || !watch.isEmpty else { throw ValidationError("--mirror needs --watch") }
        guard primary == nil || readOnly else {
            throw ValidationError("--primary names where a read-only service sends writes: add --read-only")
        }
    }

    func run() async throws {
        let level = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .info
        let format = logFormat
        LoggingSystem.bootstrap { label in
            var handler: any LogHandler =
                format == .json ? JSONLogHandler(label: label) : StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "searchlight")
        let metrics = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metrics))
        do {
            let accessTokens =
                try tokens.map { path throws(SearchlightError) in try AccessTokens(contentsOf: path) } ?? .none
            var configuration = ServerConfiguration(
                host: host, port: port, indexPath: global.indexPath, tokens: accessTokens,
                pruneInterval: pruneInterval.duration, lockTimeout: writer.duration,
                readOnly: readOnly ? .init(primary: primary) : nil, metrics: metrics, metricsPublic: metricsPublic,
                connectionLimits: connectionLimits(logger: logger))
            configuration.watch = watch
            configuration.mirror = mirror
            try await runServer(configuration, logger: logger) { [configuration] host, port in
                let mode = configuration.readOnly == nil ? "" : ", read-only"
                let line = "Searchlight listening on http://\(host):\(port) (index \(configuration.indexPath)\(mode))\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            }
        } catch let error as SearchlightError {
            let advice = error.code == .cannotListen ? "; choose another --host or --port" : ""
            Output.warn("searchlight: \(error.withAdvice)\(advice)")
            throw error.exitCode
        }
    }

    /// The limits asked for, with the connections no more than the process may open: its
    /// open-files limit is raised to the most it may have, less what the index and the logs use.
    private func connectionLimits(logger: Logger) -> ConnectionLimits {
        let spare = ConnectionLimits.raiseOpenFilesLimit()
        var allowed = maxConnections ?? spare
        if allowed > spare {
            logger.warning(
                "Serving at most \(spare) connections at once, not \(allowed): the open-files limit is \(spare + ConnectionLimits.reservedFiles) (ulimit -n)"
            )
            allowed = spare
        }
        var limits = ConnectionLimits(maximumConnections: allowed)
        if let header = headerTimeout.duration { limits.headerTimeout = header }
        if let idle = idleTimeout.duration { limits.idleTimeout = idle }
        return limits
    }
}
