import Foundation
public import Hummingbird
public import SearchlightKit
import Logging

extension SearchlightError.Code {
    /// 2011: no token, or an unknown one, where a token is required (HTTP 401).
    public static let unauthorized = Self(rawValue: 2011)
    /// 2012: the token's role or domain does not allow this (HTTP 403).
    public static let forbidden = Self(rawValue: 2012)
    /// 2013: the request body is larger than the service accepts (HTTP 413).
    public static let bodyTooLarge = Self(rawValue: 2013)
    /// 2017: the service cannot listen on its address and port (in use, not allowed, not local).
    public static let cannotListen = Self(rawValue: 2017)
}

extension SearchlightError {
    /// A request body over ``SearchlightRequestContext/maximumBodySize``, declared or sent.
    static var bodyTooLarge: SearchlightError {
        SearchlightError(
            .bodyTooLarge,
            "The request body is larger than \(SearchlightRequestContext.maximumBodySize / 1_048_576) MiB; "
                + "send the items in several requests")
    }

    /// The HTTP status a failure answers with: the one place codes become statuses.
    var httpStatus: HTTPResponse.Status {
        switch code {
        case .unauthorized: .unauthorized
        case .forbidden: .forbidden
        case .itemNotFound, .fieldNotFound: .notFound
        case .publicContentNotRemovable, .fieldConflict: .conflict
        case .clientStateMismatch: .preconditionFailed
        case .readOnly, .methodNotAllowed: .methodNotAllowed
        case .bodyTooLarge: .contentTooLarge
        case .indexLocked, .indexUnavailable, .tooManyConnections: .serviceUnavailable
        // What the index holds now (no vectors, another model's) or the service lacks (the model):
        // a state a caller can wait out, or search without meaning meanwhile.
        case .meaningUnavailable, .meaningModelMismatch: .conflict
        case .writeFailed, .internalError: .internalServerError
        default: .badRequest
        }
    }
}

extension SearchlightError {
    /// The message an HTTP caller reads: never a path on the server. The index's own failures
    /// (whose messages name its folder) are worded here from what failed; the log keeps the whole
    /// message. A shard that cannot be reached is named by its address.
    var messageForCallers: String {
        switch code {
        case .meaningUnavailable where message.hasPrefix("The item "):
            return message  // an item without a vector yet names the item, not a path
        case .meaningUnavailable:
            return "Searching by meaning is not available here (code 2022); the service's operator's log says why, "
                + "and docs/operations.md how to install the meaning model. Search with semanticRatio=0."
        case .meaningModelMismatch:
            return "The index's vectors of meaning were made by another model than this service's; its operator "
                + "must run `searchlight embed --rebuild`. Search with semanticRatio=0 meanwhile."
        default:
            break
        }
        guard let failure else { return located }
        switch failure {
        case .locked: return "The index is locked by another writer; try again later"
        case .corrupt: return "The index is damaged; its operator must rebuild it"
        case .modified: return "The index kept changing while being read; try again"
        case .io: return "Reading or writing the index failed; nothing of this request was committed"
        case .outOfMemory: return "Memory ran out while using the index; nothing of this request was committed"
        case .network: return located  // names the shard's host and port (docs/operations.md, *Shards*), not a path
        case .notFound, .notOpenable, .wrongFormat, .earlierFormat, .closed, .other:
            return "The index is unavailable (code \(code.rawValue)); its operator's log says why"
        }
    }
}

/// Turns every ``SearchlightError`` a route or middleware throws into
/// `{"error":{"code","message"}}` with its HTTP status.
///
/// A 413 also closes the connection: the rest of an oversized body is not read (see
/// `Request.collectBody`), so the connection cannot carry another request.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = SearchlightRequestContext

    struct Body: Encodable {
        struct Detail: Encodable {
            var code: Int
            var message: String
        }
        var error: Detail
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as SearchlightError {
            // The whole message, paths included, goes to the operator's log only.
            if error.failure != nil { context.logger.error("\(error.description)") }
            return try Self.response(for: error)
        }
    }

    /// `{"error":{"code","message"}}` for `error`, as an HTTP caller reads it.
    static func encodedBody(for error: SearchlightError) throws -> Data {
        try JSONEncoder.searchlight().encode(
            Body(error: .init(code: error.code.rawValue, message: error.messageForCallers)))
    }

    static func response(for error: SearchlightError) throws -> Response {
        let data = try encodedBody(for: error)
        var response = Response(
            status: error.httpStatus, contentType: "application/json; charset=utf-8", body: ByteBuffer(bytes: data))
        if error.code == .bodyTooLarge { response.headers[.connection] = "close" }
        if error.code == .readOnly { response.headers[.allow] = "GET, HEAD" }
        return response
    }
}
