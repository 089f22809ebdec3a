/// An item as the index holds it: a BUO in a domain, as Core Spotlight's `CSSearchableItem`.
///
/// Identity is the pair (``domainIdentifier``, ``uniqueIdentifier``): indexing the same pair
/// again replaces the item.
public struct SearchableItem: Sendable, Hashable {
    /// The app or site that owns the item (Core Spotlight's `domainIdentifier`).
    public var domainIdentifier: String
    /// The content, with its expiration as stored (after the maximum and default lifetimes).
    public var object: BranchUniversalObject
    /// The absolute path of the file the item was indexed from; `nil` for an item from standard
    /// input, a request or the API. `index --mirror` removes an item when its file no longer
    /// holds it.
    public var source: String?

    public init(
        object: BranchUniversalObject, domainIdentifier: String = SearchableItem.defaultDomain, source: String? = nil
    ) {
        self.object = object
        self.domainIdentifier = domainIdentifier
        self.source = source
    }

    /// The domain used when none is given.
    public static let defaultDomain = "default"

    /// The canonical identifier (Core Spotlight's `uniqueIdentifier`).
    public var uniqueIdentifier: String { object.canonicalIdentifier }

    public var contentIndexMode: ContentIndexMode { object.effectiveIndexMode }

    /// Epoch milliseconds after which the item no longer exists; `nil` for never.
    public var expirationDate: Int64? { object.expirationDate }

    /// True when the item has expired at `now` (epoch ms): expiration at or before now.
    public func isExpired(at now: Int64) -> Bool {
        guard let expirationDate else { return false }
        return expirationDate <= now
    }
}

extension SearchableItem {
    /// The Branch dictionary plus `domain`, `contentIndexMode` and the `source` file: what `get`
    /// and `export` print and what indexing reads back to the same item (a `source` key read is
    /// ignored: the file read is the source).
    public var dictionary: [String: JSONValue] {
        var dictionary = object.branchDictionary
        dictionary["domain"] = .string(domainIdentifier)
        dictionary["contentIndexMode"] = .string(contentIndexMode.rawValue)
        if let source { dictionary["source"] = .string(source) }
        return dictionary
    }

    /// The ``dictionary`` with the item's recorded views (``BranchUniversalObject/viewsKey``) when
    /// there are any: what `export` writes, so that indexing it back restores them.
    public var exportedDictionary: [String: JSONValue] {
        var dictionary = dictionary
        if let views = object.viewCount, views > 0 { dictionary[BranchUniversalObject.viewsKey] = .integer(views) }
        return dictionary
    }

    /// Reads an item back from its ``dictionary``.
    init(storedDictionary: [String: JSONValue]) throws(FieldError) {
        var object = try BranchUniversalObject(json: storedDictionary)
        object.contentIndexMode = object.effectiveIndexMode
        guard case .string(let domain) = storedDictionary["domain"] else {
            throw FieldError(code: .invalidField, message: "stored item has no domain")
        }
        self.init(object: object, domainIdentifier: domain)
    }

    /// Checks a domain identifier: non-empty, at most 200 bytes, no spaces or control characters,
    /// no empty dot component.
    public static func validateDomain(_ domain: String) throws(SearchlightError) {
        let problem: String?
        if domain.isEmpty {
            problem = "is empty"
        } else if domain.utf8.count > 200 {
            problem = "is longer than 200 bytes"
        } else if domain.unicodeScalars.contains(where: {
            $0.properties.isWhitespace || $0.value < 0x20 || $0 == "\u{7F}"
        }) {
            problem = "contains white space or control characters"
        } else if domain.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            problem = "has an empty component (a leading, trailing or double dot)"
        } else {
            problem = nil
        }
        if let problem {
            throw SearchlightError(
                .invalidArgument,
                "The domain \(quoted(domain)) \(problem); use a name like com.example.shop")
        }
    }
}
