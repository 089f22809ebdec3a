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
        group.get("items/{id}/similar", use: similar)
    }

    /// The caller's domain and scope for a read: `scope=` narrowed to public items without a token.
    /// Nil when the caller can see nothing (a private scope without a token).
    private func visibility(_ request: Request, context: SearchlightRequestContext) throws -> (
        domain: String?, scope: SearchQuery.Scope
    )? {
        let (domain, publicOnly) = try context.caller.readDomain(request)
        var scope = SearchQuery.Scope.all
        if let named = request.parameter("scope") {
            guard let parsed = SearchQuery.Scope(rawValue: named) else {
                throw SearchlightError(.invalidArgument, "scope must be public, private or all, not \(named)")
            }
            scope = parsed
        }
        guard publicOnly else { return (domain, scope) }
        // Without a token only public items are visible: a private scope sees nothing.
        return scope == .private ? nil : (domain, .public)
    }

    /// `GET /v1/items/{id}/similar?q=&limit=&offset=&scope=`: the items nearest in meaning to one
    /// the caller may see, among those it may see and `q` selects.
    @Sendable func similar(request: Request, context: SearchlightRequestContext) async throws -> SearchResults {
        let id = try context.itemIdentifier()
        let text = request.parameter("q") ?? ""
        guard let (domain, scope) = try visibility(request, context: context) else {
            throw SearchlightError(.itemNotFound, "No item \"\(id)\" is visible to this caller (or it has expired)")
        }
        let query = SearchQuery(
            text, domainIdentifier: domain, scope: scope, limit: try request.integer("limit", default: 10),
            offset: try request.integer("offset", default: 0))
        return try await service.read(as: context.readerShare) { reader throws(SearchlightError) in
            try reader.similar(to: id, query: query)
        }
    }

    @Sendable func search(request: Request, context: SearchlightRequestContext) async throws -> SearchResults {
        let text = request.parameter("q") ?? ""
        guard let (domain, scope) = try visibility(request, context: context) else {
            return SearchResults(query: text, total: 0, offset: 0, limit: 0, suggestion: nil, results: [])
        }
        // `sort=-price,rating` and `facets=category,price`, each also repeatable.
        let query = SearchQuery(
            text, domainIdentifier: domain, scope: scope,
            limit: try request.integer("limit", default: 20), offset: try request.integer("offset", default: 0),
            sort: request.parameters("sort").flatMap { SearchQuery.SortKey.list($0) },
            facets: request.parameters("facets").flatMap { SearchQuery.facetNames($0) },
            semanticRatio: try request.number("semanticRatio"), typos: try request.boolean("typos", default: true),
            languages: request.parameters("language").flatMap { $0.split(separator: ",").map(String.init) })
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
