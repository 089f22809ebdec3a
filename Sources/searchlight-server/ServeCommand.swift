import ArgumentParser
import Foundation
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

    @Flag(help: "Answer GET /metrics without a token (else admin tokens only).")
    var metricsPublic = false

    @Option(help: "How logs are written to stderr: text (for people) or json (one object per line, for log shippers).")
    var logFormat = LogFormat.text

    enum LogFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
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
            let configuration = ServerConfiguration(
                host: host, port: port, indexPath: global.indexPath, tokens: accessTokens,
                pruneInterval: pruneInterval.duration, lockTimeout: writer.duration,
                readOnly: readOnly ? .init(primary: primary) : nil, metrics: metrics, metricsPublic: metricsPublic)
            try await runServer(configuration, logger: logger) { host, port in
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
}
