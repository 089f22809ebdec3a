import Foundation
public import SearchlightKit

/// What a caller may do: read (search, get, stats), write (also index and remove in its domain),
/// admin (everything, in every domain).
public enum Role: String, Sendable, Codable, Comparable {
    case read, write, admin

    public static func < (lhs: Role, rhs: Role) -> Bool {
        let order: [Role] = [.read, .write, .admin]
        return order.firstIndex(of: lhs)! < order.firstIndex(of: rhs)!
    }
}

/// Who is calling: a token's domain and role, or nobody (public items only, read only).
public struct Caller: Sendable, Hashable {
    public var domain: String?
    public var role: Role?

    public static let anonymous = Caller(domain: nil, role: nil)

    public func allows(_ role: Role) -> Bool { self.role.map { $0 >= role } ?? false }
}

/// The bearer tokens the service accepts, from a JSON file:
/// `{"tokens":[{"token":"…","domain":"com.example.shop","role":"write"}]}`.
///
/// Tokens are compared in constant time and never logged.
public struct AccessTokens: Sendable {
    struct Entry: Sendable, Codable {
        var token: String
        var domain: String
        var role: Role
    }

    struct File: Codable {
        var tokens: [Entry]
    }

    private let entries: [(token: [UInt8], caller: Caller)]

    /// No tokens: every request is anonymous.
    public static let none = AccessTokens(entries: [])

    init(entries: [Entry]) {
        self.entries = entries.map { (Array($0.token.utf8), Caller(domain: $0.domain, role: $0.role)) }
    }

    /// Reads and checks a tokens file.
    ///
    /// - Throws: ``SearchlightError/Code/invalidArgument`` naming the file and what is wrong.
    public init(contentsOf path: String) throws(SearchlightError) {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw SearchlightError(
                .invalidArgument, "Cannot read the tokens file \(path): \(error.localizedDescription)")
        }
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: data)
        } catch {
            throw SearchlightError(
                .invalidArgument,
                "The tokens file \(path) \(Self.problem(error)); it must be "
                    + "{\"tokens\":[{\"token\":\"…\",\"domain\":\"…\",\"role\":\"read|write|admin\"}]}")
        }
        var seen: Set<String> = []
        for entry in file.tokens {
            guard entry.token.utf8.count >= 16 else {
                throw SearchlightError(
                    .invalidArgument, "A token in \(path) is shorter than 16 characters; use long random tokens")
            }
            guard seen.insert(entry.token).inserted else {
                throw SearchlightError(.invalidArgument, "A token appears twice in \(path)")
            }
            do {
                try SearchableItem.validateDomain(entry.domain)
            } catch {
                throw SearchlightError(.invalidArgument, "In the tokens file \(path): \(error.message)")
            }
        }
        self.init(entries: file.tokens)
    }

    /// What a decoding failure says is wrong with the file, in words.
    private static func problem(_ error: any Error) -> String {
        func place(_ path: [any CodingKey]) -> String {
            path.reduce("") { text, key in
                key.intValue.map { "\(text)[\($0)]" } ?? (text.isEmpty ? key.stringValue : "\(text).\(key.stringValue)")
            }
        }
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?:
            let within = place(context.codingPath)
            return "has no \"\(key.stringValue)\"" + (within.isEmpty ? "" : " in \(within)")
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
            return "has the wrong type of value at \(place(context.codingPath))"
        case .dataCorrupted(let context)? where context.codingPath.last?.stringValue == "role":
            return "names an unknown role at \(place(context.codingPath)) (the roles are read, write and admin)"
        case .dataCorrupted(let context)? where !context.codingPath.isEmpty:
            return "has an invalid value at \(place(context.codingPath))"
        default:
            return "is not valid JSON"
        }
    }

    public var count: Int { entries.count }

    /// The caller an `Authorization` header names: anonymous without one.
    ///
    /// - Throws: ``SearchlightError/Code/unauthorized`` for a header that is not `Bearer <known token>`.
    public func caller(authorization: String?) throws(SearchlightError) -> Caller {
        guard let authorization else { return .anonymous }
        let prefix = "bearer "
        guard authorization.count > prefix.count, authorization.prefix(prefix.count).lowercased() == prefix else {
            throw SearchlightError(.unauthorized, "The Authorization header must be \"Bearer <token>\"")
        }
        let presented = Array(authorization.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces).utf8)
        var found: Caller?
        // Every token is compared, each in time independent of where the bytes differ.
        for entry in entries where Self.constantTimeEqual(entry.token, presented) {
            found = entry.caller
        }
        guard let found else { throw SearchlightError(.unauthorized, "Unknown token") }
        return found
    }

    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: lhs.count ^ rhs.count)
        for index in 0..<max(lhs.count, rhs.count) {
            let left = index < lhs.count ? lhs[index] : 0
            let right = index < rhs.count ? rhs[index] : 0
            difference |= left ^ right
        }
        return difference == 0
    }
}
