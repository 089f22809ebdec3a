public import Foundation
public import Hummingbird
import Logging
import NIOCore
import SearchlightKit

/// Each request's context: Hummingbird's core, and the caller its token names.
public struct SearchlightRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by ``AuthenticationMiddleware`` for `/v1` routes.
    public var caller = Caller.anonymous
    /// The request's connection.
    private let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// Who the service shares its readers out by: a token's domain and role, or an anonymous
    /// client's address.
    var readerShare: String {
        if let role = caller.role { return "token \(caller.domain ?? "") \(role.rawValue)" }
        return "address " + (channel.remoteAddress?.ipAddress ?? "unknown")
    }

    /// The largest request body accepted: 10 MiB. Larger bodies get 413.
    public static let maximumBodySize = 10 * 1024 * 1024
    public var maxUploadSize: Int { Self.maximumBodySize }

    public var responseEncoder: JSONEncoder {
        JSONEncoder.searchlight()
    }
}

/// Answers 413 from a request's declared length, before reading its body or its token. The
/// response says `Connection: close`, and the connection ends with it: the body is never read,
/// so the connection cannot carry another request.
struct DeclaredLengthMiddleware: RouterMiddleware {
    typealias Context = SearchlightRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        if let declared = request.headers[.contentLength], let length = Int(declared), length > context.maxUploadSize {
            throw SearchlightError.bodyTooLarge
        }
        return try await next(request, context)
    }
}

/// Reads the bearer token into the context's caller; an unknown token is 401.
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = SearchlightRequestContext
    let tokens: AccessTokens

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var context = context
        let authorization = request.headers[.authorization]
        context.caller = try tokens.caller(authorization: authorization)
        return try await next(request, context)
    }
}

/// Refuses every request that could write (any method but GET and HEAD) with 405 and code 2014,
/// naming the primary that takes writes when one is configured.
struct ReadOnlyMiddleware: RouterMiddleware {
    typealias Context = SearchlightRequestContext
    let primary: String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard request.method == .get || request.method == .head else {
            let whereTo =
                primary.map { "send writes to the primary, \($0)" }
                ?? "send writes to the service of the primary index (this one names none: serve --primary URL)"
            throw SearchlightError(
                .readOnly,
                "This service is read-only (a replica): it answers searches, items, stats and the page; "
                    + "\(request.method) \(request.uri.path) is a write: \(whereTo)")
        }
        return try await next(request, context)
    }
}

/// Logs each request's method, path, status and duration (never its headers, so never a token).
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = SearchlightRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let start = ContinuousClock.now
        var status = HTTPResponse.Status.internalServerError
        defer {
            let elapsed = ContinuousClock.now - start
            let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
            context.logger.info(
                "request",
                metadata: [
                    "method": "\(request.method)", "path": "\(request.uri.path)",
                    "status": .stringConvertible(status.code),
                    "ms": .stringConvertible((milliseconds * 100).rounded() / 100),
                ])
        }
        do {
            let response = try await next(request, context)
            status = response.status
            return response
        } catch let error as any HTTPResponseError {
            status = error.status
            throw error
        }
    }
}

extension Response {
    /// A response whose whole body is `body`, of the given content type.
    init(status: HTTPResponse.Status = .ok, contentType: String, body: ByteBuffer) {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        self.init(status: status, headers: headers, body: .init(byteBuffer: body))
    }
}

extension SearchlightRequestContext {
    /// The `{id}` path parameter, percent-decoded (identifiers hold `/`, sent as `%2F`).
    func itemIdentifier() throws -> String {
        let raw = try parameters.require("id")
        return raw.removingPercentEncoding ?? raw
    }
}
