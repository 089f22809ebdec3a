import Foundation
public import Hummingbird
import Logging
public import SearchlightKit

/// `POST /v1/prune` (admin), `GET /v1/stats` (read and up), and the custom fields: `GET
/// /v1/fields` (anyone), `POST /v1/fields` and `DELETE /v1/fields/{name}` (admin).
struct AdminController {
    let service: IndexPool

    func addRoutes(to group: RouterGroup<SearchlightRequestContext>) {
        group.post("prune", use: prune)
        group.get("stats", use: stats)
        group.get("fields", use: fields)
        group.post("fields", use: addField)
        group.delete("fields/{name}", use: removeField)
    }

    struct FieldList: ResponseEncodable {
        var fields: [FieldReport]
    }

    @Sendable func fields(request: Request, context: SearchlightRequestContext) async throws -> FieldList {
        // Anyone: a query naming an unknown field is told them all anyway.
        return FieldList(fields: try await service.read { reader throws(SearchlightError) in try reader.fields() })
    }

    /// The body is `{"name":"color","type":"string"}` (`number`, `date`).
    @Sendable func addField(request: Request, context: SearchlightRequestContext) async throws -> FieldReport {
        try context.caller.require(.admin, to: "Adding a field")
        struct NewField: Decodable {
            var name: String
            var type: FieldType
        }
        let body = Data(try await request.collectBody(context: context).readableBytesView)
        let field: NewField
        do {
            field = try JSONDecoder().decode(NewField.self, from: body)
        } catch {
            throw SearchlightError(
                .invalidArgument,
                "The body must be {\"name\": NAME, \"type\": \"string\", \"number\" or \"date\"}")
        }
        return try await service.write { batch throws(SearchlightError) in
            try batch.addField(field.name, type: field.type)
        }
    }

    @Sendable func removeField(request: Request, context: SearchlightRequestContext) async throws -> FieldReport {
        try context.caller.require(.admin, to: "Removing a field")
        let name = try context.parameters.require("name")
        return try await service.write { batch throws(SearchlightError) in try batch.removeField(name) }
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
extension FieldReport: ResponseEncodable {}
extension ClientStateRecord: ResponseEncodable {}
