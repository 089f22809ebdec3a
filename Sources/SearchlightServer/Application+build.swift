import Foundation
import NIOCore
public import Hummingbird
public import Logging
public import Prometheus
public import SearchlightKit
import ServiceLifecycle

/// How `searchlight serve` runs.
public struct ServerConfiguration: Sendable {
    public var host: String
    public var port: Int
    public var indexPath: String
    public var tokens: AccessTokens
    /// How often expired items are pruned; `nil`: never in the background.
    public var pruneInterval: Duration?
    public var lockTimeout: Duration
    /// Serve reads only, taking no write lock: a replica's service (`--read-only`).
    public var readOnly: ReadOnly?
    /// Where `GET /metrics` reads the metrics from: the registry behind the process's
    /// swift-metrics backend, when it has one.
    public var metrics: PrometheusCollectorRegistry
    /// `GET /metrics` answers without a token (`--metrics-public`); else admin tokens only.
    public var metricsPublic: Bool
    /// What one client's connection may cost.
    public var connectionLimits: ConnectionLimits
    /// Files and folders indexed at start and then as they change (`--watch`), into the default
    /// domain, through the writer queue.
    public var watch: [String] = []
    /// With `watch`: remove the items of files deleted, and those a file no longer holds.
    public var mirror = false

    /// A read-only service, and where its writes go.
    public struct ReadOnly: Sendable, Hashable {
        /// The primary's address (`--primary`), named to a caller whose write is refused.
        public var primary: String?
        public init(primary: String? = nil) { self.primary = primary }
    }

    public init(
        host: String = "127.0.0.1", port: Int = 7700, indexPath: String, tokens: AccessTokens = .none,
        pruneInterval: Duration? = .seconds(3600), lockTimeout: Duration = .seconds(10), readOnly: ReadOnly? = nil,
        metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), metricsPublic: Bool = false,
        connectionLimits: ConnectionLimits = ConnectionLimits()
    ) {
        self.host = host
        self.port = port
        self.indexPath = indexPath
        self.tokens = tokens
        self.pruneInterval = pruneInterval
        self.lockTimeout = lockTimeout
        self.readOnly = readOnly
        self.metrics = metrics
        self.metricsPublic = metricsPublic
        self.connectionLimits = connectionLimits
    }
}

/// The routes: `/health`, the search page at `/`, the API under `/v1`, `/metrics`, and the API's
/// description at `/openapi.json`. A read-only service refuses every write before it reads the
/// request's token or body.
public func buildRouter(
    service: IndexPool, tokens: AccessTokens, readOnly: ServerConfiguration.ReadOnly? = nil,
    metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), metricsPublic: Bool = false
) -> Router<SearchlightRequestContext> {
    // HEAD is answered wherever GET is, as HTTP asks (and a read-only service's Allow says).
    let router = Router(context: SearchlightRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.add(middleware: MetricsMiddleware())
    router.add(middleware: RequestLogMiddleware())
    router.add(middleware: ErrorMiddleware())
    router.add(middleware: DeclaredLengthMiddleware())
    router.add(middleware: MethodNotAllowedMiddleware(document: PackageResources.openapi_json))
    if let readOnly { router.add(middleware: ReadOnlyMiddleware(primary: readOnly.primary)) }
    router.get("/health") { _, _ -> Response in
        Response(contentType: "application/json; charset=utf-8", body: ByteBuffer(string: #"{"status":"ok"}"#))
    }
    router.get("/") { _, _ -> Response in SearchPage.response }
    let description = ByteBuffer(bytes: PackageResources.openapi_json)
    router.get("/openapi.json") { _, _ -> Response in
        Response(contentType: "application/json; charset=utf-8", body: description)
    }
    let api = router.group("v1").add(middleware: AuthenticationMiddleware(tokens: tokens))
    SearchController(service: service).addRoutes(to: api)
    ItemsController(service: service).addRoutes(to: api)
    AdminController(service: service).addRoutes(to: api)
    MetricsController(service: service, registry: metrics, isPublic: metricsPublic).addRoutes(
        to: router, tokens: tokens)
    return router
}

/// The application: the router over an `IndexPool`, with the background prune and the
/// service that commits and closes the index on SIGTERM/SIGINT. A read-only service opens no
/// writer and never prunes: its index is kept by another (a replica's by `xapian-replicate`).
public func buildApplication(
    _ configuration: ServerConfiguration, logger: Logger,
    onServerRunning: @escaping @Sendable (_ host: String, _ port: Int) async -> Void = { _, _ in }
) throws(SearchlightError) -> some ApplicationProtocol {
    let watcher =
        configuration.watch.isEmpty || configuration.readOnly != nil
        ? nil : try FolderWatcher(paths: configuration.watch)
    let service =
        configuration.readOnly == nil
        ? try IndexPool(path: configuration.indexPath, lockTimeout: configuration.lockTimeout)
        : try IndexPool(readingOnly: configuration.indexPath)
    var services: [any Service] = [IndexLifecycleService(index: service, logger: logger)]
    if let interval = configuration.pruneInterval, configuration.readOnly == nil {
        services.append(PruneService(index: service, interval: interval, logger: logger))
    }
    if configuration.readOnly == nil {
        // The items written get their vectors of meaning when the model is installed.
        do {
            if let model = try MeaningModel.installedIfAny() {
                services.append(MeaningService(index: service, model: model, logger: logger))
            } else {
                logger.info("The meaning model is not installed: searches rank by words alone")
            }
        } catch {
            logger.error("The meaning model cannot be used, searches rank by words alone: \(error)")
        }
    }
    if let watcher {
        // Last, so that it stops first: its batch in flight is committed before the index closes.
        services.append(WatchService(index: service, watcher: watcher, mirror: configuration.mirror, logger: logger))
    }
    return Application(
        router: buildRouter(
            service: service, tokens: configuration.tokens, readOnly: configuration.readOnly,
            metrics: configuration.metrics, metricsPublic: configuration.metricsPublic),
        server: .guarded(configuration.connectionLimits),
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port), serverName: "searchlight"),
        services: services,
        onServerRunning: { channel in
            let port = channel.localAddress?.port ?? configuration.port
            await onServerRunning(configuration.host, port)
        },
        logger: logger)
}

/// Builds the application and runs it until SIGTERM or SIGINT, after which writes in flight are
/// committed and the index is closed.
public func runServer(
    _ configuration: ServerConfiguration, logger: Logger,
    onServerRunning: @escaping @Sendable (_ host: String, _ port: Int) async -> Void = { _, _ in }
) async throws {
    let application = try buildApplication(configuration, logger: logger, onServerRunning: onServerRunning)
    do {
        try await application.runService()
    } catch let error as IOError where [EADDRINUSE, EADDRNOTAVAIL, EACCES].contains(error.errnoCode) {
        let reason =
            switch error.errnoCode {
            case EADDRINUSE: "another program is listening there"
            case EACCES: "this user may not listen on that port"
            default: "the address is not one of this machine's"
            }
        throw SearchlightError(
            .cannotListen, "Cannot listen on \(configuration.host):\(configuration.port): \(reason)")
    }
}
