import Hummingbird
import Metrics
import Prometheus
import SearchlightKit

/// `GET /metrics`: the service's metrics in Prometheus's text format, for admin tokens (or anyone
/// with `--metrics-public`). Requests by route and status and their latency (Hummingbird's
/// `MetricsMiddleware`), commit durations (the index pool) and prunes come through swift-metrics;
/// the index's own figures are read when the metrics are.
struct MetricsController {
    let service: IndexPool
    let registry: PrometheusCollectorRegistry
    let isPublic: Bool

    func addRoutes(to router: Router<SearchlightRequestContext>, tokens: AccessTokens) {
        router.group("metrics").add(middleware: AuthenticationMiddleware(tokens: tokens)).get(use: metrics)
    }

    @Sendable func metrics(request: Request, context: SearchlightRequestContext) async throws -> Response {
        if !isPublic { try context.caller.require(.admin, to: "Reading the metrics") }
        let (statistics, generation) = try await service.read { reader throws(SearchlightError) in
            (try reader.statistics(), reader.generation)
        }
        let items = "Items in the index by mode, expired ones included"
        gauge("items", "", items, ("mode", "public")).set(Int64(statistics.public))
        gauge("items", "", items, ("mode", "private")).set(Int64(statistics.private))
        gauge("items_expired", "", "Items expired and not yet pruned (never returned)").set(Int64(statistics.expired))
        gauge("index_size", "bytes", "The index's size on disk (its current generation)")
            .set(Int64(statistics.sizeBytes ?? 0))
        gauge("index_generation", "", "The index's current generation (0 for the first layout)")
            .set(Int64(generation ?? 0))
        gauge("writer_queue_depth", "", "Writes, bulk builds and compactions waiting for the writer")
            .set(Int64(service.queuedWrites))
        var text: [UInt8] = []
        registry.emit(into: &text)
        return Response(contentType: "text/plain; version=0.0.4; charset=utf-8", body: ByteBuffer(bytes: text))
    }

    private func gauge(_ name: String, _ unit: String, _ help: String, _ labels: (String, String)...)
        -> Prometheus.Gauge
    {
        registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "searchlight", metricName: name, unitName: unit, helpText: help),
            labels: labels)
    }
}

/// Prunes, by what started them (`background` or `request`): runs, and items they deleted.
enum PruneMetrics {
    static func record(pruned: Int, trigger: String) {
        Counter(label: "searchlight_prune_runs_total", dimensions: [("trigger", trigger)]).increment()
        Counter(label: "searchlight_pruned_items_total", dimensions: [("trigger", trigger)]).increment(by: pruned)
    }
}
