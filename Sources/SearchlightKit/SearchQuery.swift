/// A search: the query text, who is asking, and which page of results.
///
/// The query language is SPEC §2.1: words are ANDed, stemmed and folded for case and accents;
/// `"phrases"`, `-exclusion`, `AND`/`OR`/`NOT`/parentheses, `word*` and as-you-type prefix
/// matching of the last word; `title:`, `keyword:`, `description:` and the exact filters `id:`,
/// `schema:`, `mode:` and `domain:`. An empty query matches every visible item.
///
/// ```swift
/// let query = SearchQuery("title:\"deep linking\" -firebase", domainIdentifier: "com.example.shop")
/// let results = try index.search(query)
/// ```
public struct SearchQuery: Sendable, Hashable {
    /// Which items a search may see by index mode (on top of the domain rule).
    public enum Scope: String, Sendable, Hashable, Codable, CaseIterable {
        case all, `public`, `private`
    }

    public var text: String
    /// The caller's domain: it sees that domain's private items and every domain's public items.
    /// `nil` sees every domain (the index owner's `--all-domains`).
    public var domainIdentifier: String?
    public var scope: Scope
    public var limit: Int
    public var offset: Int

    /// The most results one search returns.
    public static let maximumLimit = 1000

    public init(
        _ text: String, domainIdentifier: String? = SearchableItem.defaultDomain, scope: Scope = .all,
        limit: Int = 20, offset: Int = 0
    ) {
        self.text = text
        self.domainIdentifier = domainIdentifier
        self.scope = scope
        self.limit = limit
        self.offset = offset
    }

    /// Checks the paging, the domain and the query's syntax, so that a malformed query gets a
    /// message saying what is wrong and where, rather than a silent reinterpretation.
    ///
    /// - Throws: ``SearchlightError/Code/invalidQuery`` naming the query and the column, or
    ///   ``SearchlightError/Code/invalidArgument`` for the paging or the domain.
    public func validate() throws(SearchlightError) {
        _ = try parsed()
    }

    /// The query's one typed form, after the checks of ``validate()``.
    func parsed() throws(SearchlightError) -> QueryExpression {
        guard limit >= 0, limit <= Self.maximumLimit else {
            throw .invalidArgument("The limit must be between 0 and \(Self.maximumLimit), not \(limit)")
        }
        guard offset >= 0 else { throw .invalidArgument("The offset must not be negative (\(offset))") }
        if let domainIdentifier { try SearchableItem.validateDomain(domainIdentifier) }
        return try QueryParser.parse(text)
    }
}
