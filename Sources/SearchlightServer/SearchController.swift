import Foundation
import Hummingbird
import Logging
import SearchlightKit

/// `GET /v1/search` and `GET /v1/items/{id}`: reads, as the caller's domain sees the index.
struct SearchController {
    let service: IndexPool

    func addRoutes(to group: RouterGroup<SearchlightRequestContext>) {
        group.get("search", use: search)
        group.get("items/{id}", use: item)
    }

    @Sendable func search(request: Request, context: SearchlightRequestContext) async throws -> SearchResults {
        let (domain, publicOnly) = try context.caller.readDomain(request)
        let text = request.parameter("q") ?? ""
        var scope = SearchQuery.Scope.all
        if let named = request.parameter("scope") {
            guard let parsed = SearchQuery.Scope(rawValue: named) else {
                throw SearchlightError(.invalidArgument, "scope must be public, private or all, not \(named)")
            }
            scope = parsed
        }
        if publicOnly {
            // Without a token only public items are visible: a private scope sees nothing.
            if scope == .private {
                return SearchResults(query: text, total: 0, offset: 0, limit: 0, suggestion: nil, results: [])
            }
            scope = .public
        }
        // `sort=-price,rating` and `facets=category,price`, each also repeatable.
        let query = SearchQuery(
            text, domainIdentifier: domain, scope: scope,
            limit: try request.integer("limit", default: 20), offset: try request.integer("offset", default: 0),
            sort: request.parameters("sort").flatMap { SearchQuery.SortKey.list($0) },
            facets: request.parameters("facets").flatMap { SearchQuery.facetNames($0) })
        return try await service.read(as: context.readerShare) { reader throws(SearchlightError) in
            try reader.search(query)
        }
    }

    @Sendable func item(request: Request, context: SearchlightRequestContext) async throws -> Response {
        let id = try context.itemIdentifier()
        let (domain, publicOnly) = try context.caller.readDomain(request)
        let found = try await service.read(as: context.readerShare) {
            reader throws(SearchlightError) -> SearchableItem? in
            if publicOnly { return try reader.item(withIdentifier: id, visibleTo: nil, scope: .public) }
            if let domain { return try reader.item(withIdentifier: id, domainIdentifier: domain) }
            return try reader.item(withIdentifier: id, visibleTo: nil, scope: .all)
        }
        guard let found else {
            throw SearchlightError(.itemNotFound, "No item \"\(id)\" is visible to this caller (or it has expired)")
        }
        return try context.responseEncoder.encode(found.dictionary, from: request, context: context)
    }
}
