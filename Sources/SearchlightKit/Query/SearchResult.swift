/// One result of a search: the item's main fields, its relevance and a snippet.
public struct SearchResult: Sendable, Hashable, Encodable {
    public var canonicalIdentifier: String
    public var domain: String
    public var title: String?
    public var contentDescription: String?
    public var keywords: [String]
    public var canonicalUrl: String?
    public var imageUrl: String?
    public var contentIndexMode: ContentIndexMode
    /// Epoch milliseconds, or `nil` for never.
    public var expirationDate: Int64?
    /// Relevance, 0–100 (100 for every item of an empty query).
    public var score: Int
    /// The description around the matches. JSON carries it as HTML, each match in `<mark>`.
    public var snippet: Snippet
    /// What found the item: its words, its meaning (docs/reference.md, *Meaning*), or both. JSON
    /// carries it as `matchedBy`, a list of `"words"` and `"meaning"`.
    public var matchedBy: MatchedBy

    /// What found a result.
    public struct MatchedBy: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// The query's words match the item.
        public static let words = MatchedBy(rawValue: 1)
        /// The item is near the query in meaning.
        public static let meaning = MatchedBy(rawValue: 2)

        /// Its names, as JSON lists them.
        public var names: [String] { (contains(.words) ? ["words"] : []) + (contains(.meaning) ? ["meaning"] : []) }
    }

    init(
        canonicalIdentifier: String, domain: String, title: String?, contentDescription: String?, keywords: [String],
        canonicalUrl: String?, imageUrl: String?, contentIndexMode: ContentIndexMode, expirationDate: Int64?,
        score: Int, snippet: Snippet, matchedBy: MatchedBy
    ) {
        self.canonicalIdentifier = canonicalIdentifier
        self.domain = domain
        self.title = title
        self.contentDescription = contentDescription
        self.keywords = keywords
        self.canonicalUrl = canonicalUrl
        self.imageUrl = imageUrl
        self.contentIndexMode = contentIndexMode
        self.expirationDate = expirationDate
        self.score = score
        self.snippet = snippet
        self.matchedBy = matchedBy
    }

    init(item: SearchableItem, score: Int, snippet: Snippet, matchedBy: MatchedBy = .words) {
        let object = item.object
        self.init(
            canonicalIdentifier: object.canonicalIdentifier, domain: item.domainIdentifier, title: object.title,
            contentDescription: object.contentDescription, keywords: object.keywords,
            canonicalUrl: object.canonicalUrl, imageUrl: object.imageUrl, contentIndexMode: item.contentIndexMode,
            expirationDate: object.expirationDate, score: score, snippet: snippet, matchedBy: matchedBy)
    }

    enum CodingKeys: String, CodingKey {
        case canonicalIdentifier, domain, title, contentDescription, keywords, canonicalUrl, imageUrl
        case contentIndexMode, expirationDate, score, matchedBy, snippet
    }

    /// Every key is written, `null` where a field is absent.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(canonicalIdentifier, forKey: .canonicalIdentifier)
        try container.encode(domain, forKey: .domain)
        try container.encode(title, forKey: .title)
        try container.encode(contentDescription, forKey: .contentDescription)
        try container.encode(keywords, forKey: .keywords)
        try container.encode(canonicalUrl, forKey: .canonicalUrl)
        try container.encode(imageUrl, forKey: .imageUrl)
        try container.encode(contentIndexMode, forKey: .contentIndexMode)
        try container.encode(expirationDate, forKey: .expirationDate)
        try container.encode(score, forKey: .score)
        try container.encode(matchedBy.names, forKey: .matchedBy)
        try container.encode(snippet.html, forKey: .snippet)
    }
}

/// A page of search results.
public struct SearchResults: Sendable, Hashable, Encodable {
    public var query: String
    /// How many items match in all: exact up to about a thousand past the page, estimated beyond
    /// (``totalIsEstimate``).
    public var total: Int
    /// Whether ``total`` is an estimate: the search stopped counting matches a thousand past its
    /// page (or after a second, for a count). JSON carries it as `totalIsEstimate`, beside `total`,
    /// as Meilisearch's `estimatedTotalHits` and Elasticsearch's `total.relation` say it.
    public var totalIsEstimate: Bool
    /// Whether the page was read from the index's impact tiers, proven to be the page a full
    /// evaluation gives (docs/design.md, *Impact tiers*), rather than evaluated in full: for the
    /// project's tests and benchmarks.
    package var fromTiers = false
    public var offset: Int
    public var limit: Int
    /// A corrected query, when nothing matched and the index knows a likelier spelling.
    public var suggestion: String?
    public var results: [SearchResult]
    /// No visible item has every plain word of the query: these are the items with the most of
    /// them, best first (docs/reference.md, *The query language*). `total` counts them.
    public var relaxed: Bool
    /// How the query was read, when that is not as it was typed: a quote never closed closed at the
    /// end, a parenthesis or an operator with nothing to act on read as a word (`red AND` as
    /// `red and`), a name that is not a field read as a phrase (`"colour:blue"`), or, when nothing
    /// was found, its phrases read as words (with ``relaxed``). JSON carries it only then.
    public var readAs: String?
    /// The counts the query asked for (``SearchQuery/facets``), in its order; JSON carries them as
    /// an object by name, and only when asked for.
    public var facets: [Facet]

    public init(
        query: String, total: Int, offset: Int, limit: Int, suggestion: String?, results: [SearchResult],
        relaxed: Bool = false, facets: [Facet] = [], totalIsEstimate: Bool = false, readAs: String? = nil
    ) {
        self.readAs = readAs
        self.facets = facets
        self.totalIsEstimate = totalIsEstimate
        self.query = query
        self.total = total
        self.offset = offset
        self.limit = limit
        self.suggestion = suggestion
        self.results = results
        self.relaxed = relaxed
    }

    enum CodingKeys: String, CodingKey {
        case query, readAs, total, totalIsEstimate, offset, limit, suggestion, results, relaxed, facets
    }

    /// Facets by name, in the order asked for.
    private struct FacetsByName: Encodable {
        var facets: [Facet]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: MemberName.self)
            for facet in facets { try container.encode(facet, forKey: MemberName(stringValue: facet.name)) }
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(query, forKey: .query)
        try container.encodeIfPresent(readAs, forKey: .readAs)
        try container.encode(total, forKey: .total)
        try container.encode(totalIsEstimate, forKey: .totalIsEstimate)
        try container.encode(offset, forKey: .offset)
        try container.encode(limit, forKey: .limit)
        try container.encode(suggestion, forKey: .suggestion)
        try container.encode(results, forKey: .results)
        try container.encode(relaxed, forKey: .relaxed)
        if !facets.isEmpty { try container.encode(FacetsByName(facets: facets), forKey: .facets) }
    }
}
