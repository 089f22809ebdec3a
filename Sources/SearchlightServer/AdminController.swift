import Foundation
public import Hummingbird
import Logging
public import SearchlightKit

/// `POST /v1/prune` (admin) and `GET /v1/stats` (read and up).
struct AdminController {
    let service: IndexPool

    func addRoutes(to group: RouterGroup<SearchlightRequestContext>) {
        group.post("prune", use: prune)
        group.get("stats", use: stats)
    }

    struct PruneReport: ResponseEncodable {
        var pruned: Int
    }

    @Sendable func prune(request: Request, context: SearchlightRequestContext) async throws -> PruneReport {
        try context.caller.require(.admin, to: "Pruning")
        let now = SearchableIndex.currentTime()
        let pruned = try await service.write { batch throws(SearchlightError) in try batch.pruneExpiredItems(now: now) }
        PruneMetrics.record(pruned: pruned, trigger: "request")
        return PruneReport(pruned: pruned)
    }

    /// The caller's domain; every domain for admin (or the `domain` parameter's).
    @Sendable func stats(request: Request, context: SearchlightRequestContext) async throws -> IndexStatistics {
        try context.caller.require(.read, to: "Statistics")
        let (domain, _) = try context.caller.readDomain(request)
        return try await service.read { reader throws(SearchlightError) in
            if let domain { return try reader.statistics(domainIdentifier: domain) }
            return try reader.statistics()
        }
    }
}

extension SearchResults: ResponseEncodable {}
extension IndexingReport: ResponseEncodable {}
extension RemovalReport: ResponseEncodable {}
extension ViewReport: ResponseEncodable {}
extension IndexStatistics: ResponseEncodable {}
