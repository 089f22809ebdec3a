import Foundation
import Hummingbird
import Logging
import SearchlightKit

/// A ``SearchlightError`` as an HTTP response: `{"error":{"code","message"}}` with its status.
struct APIError: HTTPResponseError {
    var error: SearchlightError

    var status: HTTPResponse.Status {
        switch error.code {
        case .unauthorized: .unauthorized
        case .forbidden: .forbidden
        case .itemNotFound: .notFound
        case .publicContentNotRemovable: .conflict
        case .bodyTooLarge: .contentTooLarge
        case .indexLocked, .indexUnavailable: .serviceUnavailable
        case .writeFailed, .internalError: .internalServerError
        default: .badRequest
        }
    }

    struct Body: Encodable {
        struct Detail: Encodable {
            var code: Int
            var message: String
        }
        var error: Detail
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(Body(error: .init(code: error.code.rawValue, message: error.located)))
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension SearchlightError {
    /// The error as an HTTP response error.
    var api: APIError { APIError(error: self) }
}

/// Runs `body`, turning a ``SearchlightError`` into an ``APIError``.
func api<T>(_ body: () throws(SearchlightError) -> T) throws -> T {
    do {
        return try body()
    } catch {
        throw error.api
    }
}

/// The async form.
func api<T>(_ body: () async throws(SearchlightError) -> T) async throws -> T {
    do {
        return try await body()
    } catch {
        throw error.api
    }
}
