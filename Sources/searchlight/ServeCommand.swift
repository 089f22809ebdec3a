import ArgumentParser
import Foundation
import Logging
import SearchlightKit
import SearchlightServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the index over HTTP: JSON search, indexing and removal, and a search page.",
        discussion: """
            Listens on --host and --port (default 127.0.0.1:7700) and prints the address when ready. \
            Without --tokens every request is anonymous and sees public items only, read only. The \
            tokens file maps bearer tokens to a domain and a role:
              {"tokens":[{"token":"…","domain":"com.example.shop","role":"write"}]}
            Writes are queued to one writer and committed in small batches; the service holds the \
            index's write lock while it runs. SIGTERM or SIGINT commits writes in flight and exits 0. \
            Logs (method, path, status, duration; never tokens) go to stderr.

            Examples:
              searchlight serve
              searchlight serve --port 8080 --tokens tokens.json --prune-interval 10m
              curl 'http://127.0.0.1:7700/v1/search?q=deep+linking'
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var writer: WriterOptions

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port).")
    var port = 7700

    @Option(help: ArgumentHelp("The tokens file (JSON).", valueName: "file"))
    var tokens: String?

    @Option(help: ArgumentHelp("How often to prune expired items (none: never).", valueName: "duration"))
    var pruneInterval = TimeToLiveArgument(.seconds(3600))

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
    }

    func run() async throws {
        var logger = Logger(label: "searchlight")
        logger.logLevel =
            ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .info
        do {
            let accessTokens =
                try tokens.map { path throws(SearchlightError) in try AccessTokens(contentsOf: path) } ?? .none
            let configuration = ServerConfiguration(
                host: host, port: port, indexPath: global.indexPath, tokens: accessTokens,
                pruneInterval: pruneInterval.duration, lockTimeout: writer.duration)
            try await runServer(configuration, logger: logger) { host, port in
                let line = "Searchlight listening on http://\(host):\(port) (index \(configuration.indexPath))\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            }
        } catch let error as SearchlightError {
            Output.warn("searchlight: \(error.withAdvice)")
            throw error.exitCode
        }
    }
}
