import Foundation
import Hummingbird
public import SearchlightKit

extension SearchlightError.Code {
    /// 2015: the path exists, but not with this method (HTTP 405, with `Allow`).
    public static let methodNotAllowed = Self(rawValue: 2015)
}

/// Answers 405 with `Allow` where the router found no route for a path that the service's OpenAPI
/// document lists with other methods (Hummingbird's router answers 404 for both). The document's
/// paths are the contract the routes are tested against (`schemathesis`), so it is the table.
struct MethodNotAllowedMiddleware: RouterMiddleware {
    typealias Context = SearchlightRequestContext

    /// A path template's segments (`nil` for a parameter) and the methods it takes.
    private let paths: [(segments: [Substring?], methods: [String])]

    init(document: [UInt8]) {
        let object = try? JSONSerialization.jsonObject(with: Data(document)) as? [String: Any]
        let listed = object?["paths"] as? [String: [String: Any]] ?? [:]
        // Literal segments win over parameters, as in the router: /v1/items/remove before /v1/items/{id}.
        paths = listed.map { template, operations in
            let segments = template.split(separator: "/").map { $0.hasPrefix("{") ? nil : $0 }
            var methods = ["GET", "POST", "PUT", "PATCH", "DELETE"].filter { operations[$0.lowercased()] != nil }
            // The router answers HEAD wherever it answers GET.
            if let get = methods.firstIndex(of: "GET") { methods.insert("HEAD", at: get + 1) }
            return (segments, methods)
        }.sorted { $0.segments.count { $0 == nil } < $1.segments.count { $0 == nil } }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            let segments = request.uri.path.split(separator: "/")
            guard
                let allowed = paths.first(where: { path in
                    path.segments.count == segments.count
                        && zip(path.segments, segments).allSatisfy { $0 == nil || $0 == $1 }
                })?.methods, !allowed.contains(request.method.rawValue)
            else { throw error }
            var response = try ErrorMiddleware.response(
                for: SearchlightError(
                    .methodNotAllowed,
                    "\(request.method) is not served at \(request.uri.path); it takes \(allowed.joined(separator: ", "))"
                ))
            response.headers[.allow] = allowed.joined(separator: ", ")
            return response
        }
    }
}
