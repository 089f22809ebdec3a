import Foundation
import Hummingbird
import Logging
import SearchlightKit

/// How a request's caller and parameters become a domain and a scope.
extension Caller {
    /// The domain a read acts as: the token's; for admin, the `domain` parameter or every domain;
    /// for no token, none (public items only).
    func readDomain(_ request: Request) throws -> (domain: String?, publicOnly: Bool) {
        guard let role, let domain else { return (nil, true) }
        let named = request.parameter("domain")
        if role == .admin { return (named, false) }
        if let named, named != domain {
            throw SearchlightError(.forbidden, "This token reads domain \(domain) only, not \(named)")
        }
        return (domain, false)
    }

    /// The domain a write acts on: the token's; for admin, the `domain` parameter when given.
    ///
    /// - Throws: 401 without a token, 403 for a read token or another domain.
    func writeDomain(_ request: Request) throws -> String {
        guard let role, let domain else {
            throw SearchlightError(.unauthorized, "Writing needs a token with the write or admin role")
        }
        guard role >= .write else {
            throw SearchlightError(.forbidden, "This token may read only; writing needs the write or admin role")
        }
        let named = request.parameter("domain")
        if role == .admin { return named ?? domain }
        if let named, named != domain {
            throw SearchlightError(.forbidden, "This token writes domain \(domain) only, not \(named)")
        }
        return domain
    }

    func require(_ needed: Role, to action: String) throws {
        guard role != nil else {
            throw SearchlightError(.unauthorized, "\(action) needs a token with the \(needed.rawValue) role")
        }
        guard allows(needed) else {
            throw SearchlightError(.forbidden, "\(action) needs the \(needed.rawValue) role")
        }
    }
}

extension Request {
    /// A query parameter as a form sends it: `+` is a space, then percent-decoding. The first,
    /// when it is given more than once.
    func parameter(_ name: String) -> String? { parameters(name).first }

    /// Every value of a query parameter given more than once (`facets=a&facets=b`), in order.
    func parameters(_ name: String) -> [String] {
        guard let query = uri.query else { return [] }
        return query.split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.first.map(String.init)?.removingPercentEncoding == name else { return nil }
            let value = parts.count > 1 ? String(parts[1]) : ""
            return value.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? value
        }
    }

    /// The boolean in query parameter `name` (`true` or `false`), `value` when it is absent, or
    /// 400 naming it.
    func boolean(_ name: String, default value: Bool) throws -> Bool {
        guard let text = parameter(name) else { return value }
        guard let boolean = Bool(text) else {
            throw SearchlightError(.invalidArgument, "The parameter \(name) must be true or false, not \(text)")
        }
        return boolean
    }

    /// The number in query parameter `name`, or nil when it is absent.
    func number(_ name: String) throws -> Double? {
        guard let text = parameter(name) else { return nil }
        guard let number = Double(text), number.isFinite else {
            throw SearchlightError(.invalidArgument, "The parameter \(name) must be a number, not \(text)")
        }
        return number
    }

    /// An integer query parameter, or 400 naming it.
    func integer(_ name: String, default value: Int) throws -> Int {
        guard let text = parameter(name) else { return value }
        guard let number = Int(text) else {
            throw SearchlightError(.invalidArgument, "The parameter \(name) must be a whole number, not \(text)")
        }
        return number
    }

    /// The body, up to the service's limit; 413 beyond it. The 413 says `Connection: close`, and
    /// the connection drops the rest of the body, within a bound, before it closes
    /// (``ConnectionGuardHandler/drainLimit``).
    func collectBody(context: SearchlightRequestContext) async throws -> ByteBuffer {
        let limit = context.maxUploadSize
        var collected = ByteBuffer()
        for try await part in body {
            guard collected.readableBytes + part.readableBytes <= limit else { throw SearchlightError.bodyTooLarge }
            collected.writeImmutableBuffer(part)
        }
        return collected
    }
}
