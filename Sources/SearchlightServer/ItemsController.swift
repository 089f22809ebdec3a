import Foundation
import Hummingbird
import Logging
import SearchlightKit

/// Writes: index (`POST /v1/items`, with a client state as Core Spotlight's batches carry one),
/// remove one (`DELETE /v1/items/{id}`), remove a list (`POST /v1/items/remove`), remove all
/// private items (`DELETE /v1/items?mode=private`), record a view (`POST /v1/items/{id}/views`);
/// and the client state of the caller's last batch (`GET /v1/client-state`).
struct ItemsController {
    let service: IndexPool

    func addRoutes(to group: RouterGroup<SearchlightRequestContext>) {
        group.get("client-state", use: clientState)
        group.post("items", use: index)
        group.delete("items/{id}", use: removeOne)
        group.post("items/remove", use: removeList)
        group.delete("items", use: removeAllPrivate)
        group.post("items/{id}/views", use: recordView)
    }

    /// One view of an item of the caller's domain, or of a public item; 404 when there is none.
    @Sendable func recordView(request: Request, context: SearchlightRequestContext) async throws -> ViewReport {
        let domain = try context.caller.writeDomain(request)
        let id = try context.itemIdentifier()
        let now = SearchableIndex.currentTime()
        let report = try await service.write { batch throws(SearchlightError) in
            try batch.recordViews(withIdentifiers: [id], domainIdentifier: domain, now: now)
        }
        if report.recorded == 0 {
            throw SearchlightError(.itemNotFound, "No item \"\(id)\" in domain \(domain), nor a public one")
        }
        return report
    }

    @Sendable func index(request: Request, context: SearchlightRequestContext) async throws -> IndexingReport {
        let domain = try context.caller.writeDomain(request)
        let body = Data(try await request.collectBody(context: context).readableBytesView)
        let contentType = request.headers[.contentType] ?? ""
        let format: BranchUniversalObjectReader.Format =
            contentType.contains("ndjson") || contentType.contains("jsonl") ? .lines : .automatic
        let options = IndexingOptions(domainIdentifier: domain, itemsMayChooseDomain: context.caller.role == .admin)
        let now = SearchableIndex.currentTime()
        let clientState = try clientStateUpdate(request, domain: domain)
        if body.count >= Indexer.directInputLimit {
            // A large batch is built in segments, leaving a core to the searches, and published as
            // a new generation; the searches in flight go on from the old one.
            let indexer = Indexer(
                options: options, jobs: CoreBudget.machine.serviceBuilders, now: now, clientState: clientState)
            let report = try await service.writeAlone { index throws(SearchlightError) in
                try indexer.index([.data(body, name: "request body", format: format)], into: index)
            }
            if report.indexed == 0, let first = report.errors.first, first.item == nil { throw first }
            return report
        }
        let input = BranchUniversalObjectReader.decode(body, path: "request body", format: format)
        // A body that is not JSON at all is a bad request, with its line and column.
        if input.objects.isEmpty, let first = input.rejections.first, first.item == nil {
            throw first
        }
        return try await service.write { batch throws(SearchlightError) in
            try batch.index([input], options: options, clientState: clientState, now: now)
        }
    }

    /// The client state a write commits with its items: `clientState`, committed only if the
    /// domain's stored state is `expectedClientState` when that is given (empty: none stored), both
    /// text unless `clientStateEncoding=base64`.
    private func clientStateUpdate(_ request: Request, domain: String) throws -> ClientStateUpdate? {
        let base64: Bool
        switch request.parameter("clientStateEncoding") {
        case nil, "text": base64 = false
        case "base64": base64 = true
        case let other?:
            throw SearchlightError(.invalidArgument, "clientStateEncoding must be text or base64, not \(other)")
        }
        let expected = request.parameter("expectedClientState")
        guard let given = request.parameter("clientState") else {
            if expected != nil {
                throw SearchlightError(
                    .invalidArgument, "expectedClientState needs clientState, the state to commit if it matches")
            }
            return nil
        }
        return try ClientStateUpdate(
            domainIdentifier: domain, state: given, expected: expected, base64: base64,
            names: ("clientState", "expectedClientState"))
    }

    /// The client state of the caller's domain's last batch (an admin's: of the `domain` named, else
    /// its own), `null` members when there is none.
    @Sendable func clientState(request: Request, context: SearchlightRequestContext) async throws
        -> ClientStateRecord
    {
        try context.caller.require(.read, to: "Reading a client state")
        let domain = try context.caller.readDomain(request).domain ?? context.caller.domain ?? ""
        let state = try await service.read { reader throws(SearchlightError) in
            try reader.fetchLastClientState(domainIdentifier: domain)
        }
        return ClientStateRecord(domain: domain, state: state)
    }

    @Sendable func removeOne(request: Request, context: SearchlightRequestContext) async throws -> RemovalReport {
        let domain = try context.caller.writeDomain(request)
        let id = try context.itemIdentifier()
        let report = try await remove([id], domain: domain, request: request, context: context)
        if let refusal = report.refused.first {
            throw SearchlightError(refusal.code, refusal.message)
        }
        if report.removed == 0 {
            throw SearchlightError(.itemNotFound, "No item \"\(id)\" in domain \(domain)")
        }
        return report
    }

    /// The body is `{"ids":[…]}`, or BUOs (one, an array, or JSON Lines) whose identifiers are removed.
    @Sendable func removeList(request: Request, context: SearchlightRequestContext) async throws -> RemovalReport {
        let domain = try context.caller.writeDomain(request)
        let body = Data(try await request.collectBody(context: context).readableBytesView)
        struct IdentifierList: Decodable { var ids: [String] }
        let ids: [String]
        if let list = try? JSONDecoder().decode(IdentifierList.self, from: body) {
            ids = list.ids
        } else {
            let described = try Indexer(options: IndexingOptions(domainIdentifier: domain)).identifiers(
                in: [.data(body, name: "request body", format: .automatic)])
            if let first = described.rejections.first { throw first }
            ids = described.targets.flatMap(\.identifiers)
        }
        return try await remove(ids, domain: domain, request: request, context: context)
    }

    @Sendable func removeAllPrivate(request: Request, context: SearchlightRequestContext) async throws
        -> RemovalReport
    {
        let domain = try context.caller.writeDomain(request)
        guard request.parameter("mode") == "private" else {
            throw SearchlightError(
                .invalidArgument, "DELETE /v1/items removes all private items: add ?mode=private to confirm"
            )
        }
        let removed = try await service.write { batch throws(SearchlightError) in
            try batch.deleteSearchableItems(withDomainIdentifiers: [domain])
        }
        var report = RemovalReport()
        report.removed = removed
        return report
    }

    private func remove(_ ids: [String], domain: String, request: Request, context: SearchlightRequestContext)
        async throws -> RemovalReport
    {
        let includePublic: Bool
        switch request.parameter("includePublic") {
        case nil, "false": includePublic = false
        case "true": includePublic = context.caller.role == .admin
        case let other?:
            throw SearchlightError(.invalidArgument, "includePublic must be true or false, not \(other)")
        }
        var report = try await service.write { batch throws(SearchlightError) in
            try batch.deleteSearchableItems(
                withIdentifiers: ids, domainIdentifier: domain, includePublic: includePublic)
        }
        // What an HTTP caller can do about a refusal.
        for index in report.refused.indices where report.refused[index].code == .publicContentNotRemovable {
            report.refused[index].message += " (an admin token may add includePublic=true)"
        }
        return report
    }
}
