/// A search: the query text, who is asking, and which page of results.
///
/// The query language (docs/reference.md, *The query language*): words are ANDed, stemmed and folded for case and accents;
/// `"phrases"`, `-exclusion`, `AND`/`OR`/`NOT`/parentheses, `word*` and as-you-type prefix
/// matching of the last word; `title:`, `keyword:`, `description:` and the exact filters `id:`,
/// `schema:`, `mode:` and `domain:`; ranges and filters over the item's attributes (`price:<30`,
/// `created:>=7d`, `category:kitchen`, `near:48.85,2.35,5km`; ``ItemAttribute``). An empty query
/// matches every visible item. Results come by relevance, or in the order of ``sort``, and may
/// carry counts over every match (``facets``).
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
    /// The order of the results: these keys, relevance breaking their ties; empty for relevance
    /// alone (``SortKey``).
    public var sort: [SortKey]
    /// The attributes counted over every match the caller may see (``Facet``), by name.
    public var facets: [String]
    /// How much meaning weighs against words in the ranking, from 0 (words only) to 1 (meaning
    /// only), when the index has vectors of meaning and the model is installed (``MeaningModel``).
    /// `nil`: ``defaultSemanticRatio``, and words alone, silently, where meaning cannot be had; a
    /// ratio given asks for meaning, and a search that cannot have it fails saying why.
    public var semanticRatio: Double?
    /// Whether a plain word of 5 letters or more also finds the words a typo from it (one for 5 to 8
    /// letters, two from 9; the first letter kept), a match as typed ranking above a corrected
    /// one (docs/reference.md, *Typos*). Numbers, identifiers, phrases and field filters are
    /// exact either way.
    public var typos = true
    /// The languages the query is read in, as language tags (`fr`, `pt-BR`): its words stemmed in
    /// each (SPEC §2.5). Empty: the languages of the items the caller may see.
    public var languages: [String] = []

    /// The balance of meaning and words when a search names none, chosen on judged relevance
    /// (docs/ranking.md).
    public static let defaultSemanticRatio = 0.3

    /// The most results one search returns.
    public static let maximumLimit = 1000

    /// The furthest page a search reaches: results past this many are not ranked.
    public static let maximumOffset = 10_000

    /// The longest query text, in UTF-8 bytes.
    public static let maximumLength = 4096

    /// The most words, phrases and filters one query may hold.
    public static let maximumTerms = 256

    public init(
        _ text: String, domainIdentifier: String? = SearchableItem.defaultDomain, scope: Scope = .all,
        limit: Int = 20, offset: Int = 0, sort: [SortKey] = [], facets: [String] = [], semanticRatio: Double? = nil,
        typos: Bool = true, languages: [String] = []
    ) {
        self.languages = languages
        self.semanticRatio = semanticRatio
        self.typos = typos
        self.text = text
        self.domainIdentifier = domainIdentifier
        self.scope = scope
        self.limit = limit
        self.offset = offset
        self.sort = sort
        self.facets = facets
    }

    /// The most attributes one search counts.
    public static let maximumFacets = 8

    /// Checks the paging, the domain and the values of the query's fields, so that a value a field
    /// cannot read gets a message saying what is wrong and where. (The syntax itself is never
    /// refused: see ``SearchResults/readAs``.) Fields are
    /// the built-in ones (``ItemAttribute``): a query naming an index's custom field is checked by
    /// ``SearchableIndex/search(_:now:)``, which knows the index's fields.
    ///
    /// - Throws: ``SearchlightError/Code/invalidQuery`` naming the query and the column,
    ///   ``SearchlightError/Code/queryTooLarge`` past ``maximumLength`` or ``maximumTerms``, or
    ///   ``SearchlightError/Code/invalidArgument`` for the paging or the domain.
    public func validate() throws(SearchlightError) {
        _ = try parsed()
    }

    /// A query as the index reads it.
    struct Reading {
        /// The query's one typed form.
        var expression: QueryExpression
        /// It may be relaxed: it joins its words with no explicit operator.
        var relaxable: Bool
        var sort: [IndexSortKey]
        /// The attributes it counts.
        var facets: [ItemAttribute]
        /// How the text was read, when not as written (``QueryParser/Parsed/readAs``).
        var readAs: String?
        /// The text with its free-text phrases read as words, when it has any.
        var phrasesAsWords: String?
    }

    /// The query as the index reads it, after the checks of ``validate()``.
    func parsed(attributes: [ItemAttribute] = ItemAttribute.all) throws(SearchlightError) -> Reading {
        guard limit >= 0, limit <= Self.maximumLimit else {
            throw .invalidArgument("The limit must be between 0 and \(Self.maximumLimit), not \(limit)")
        }
        guard offset >= 0, offset <= Self.maximumOffset else {
            throw .invalidArgument("The offset must be between 0 and \(Self.maximumOffset), not \(offset)")
        }
        if let domainIdentifier { try SearchableItem.validateDomain(domainIdentifier) }
        if let bad = languages.first(where: { BranchUniversalObject.languageCode(of: $0) == nil }) {
            throw .invalidArgument("A query's language must be a language tag such as fr or pt-BR, not \"\(bad)\"")
        }
        if let semanticRatio, !(0...1).contains(semanticRatio) {
            throw .invalidArgument(
                "The semantic ratio must be between 0 (words only) and 1 (meaning only), not \(semanticRatio)")
        }
        // The keys' and counts' names first: a bad one is named before the query is read.
        _ = try sortKeys(among: attributes)
        let facets = try facetAttributes(among: attributes)
        // A long query is named by its beginning.
        let shortened = text.count > 40 ? quoted(String(text.prefix(40))) + "…" : quoted(text)
        let length = text.utf8.count
        guard length <= Self.maximumLength else {
            throw SearchlightError(
                .queryTooLarge,
                "The query \(shortened) is \(length) bytes long; a query may have at most "
                    + "\(Self.maximumLength): search for fewer words")
        }
        let parsed = try QueryParser.parse(text, attributes: attributes)
        let terms = parsed.expression.termCount
        guard terms <= Self.maximumTerms else {
            throw SearchlightError(
                .queryTooLarge,
                "The query \(shortened) has \(terms) words, phrases and filters; a query may "
                    + "have at most \(Self.maximumTerms): search for fewer words")
        }
        return Reading(
            expression: parsed.expression, relaxable: !parsed.hasOperators,
            sort: try sortKeys(among: attributes, expression: parsed.expression), facets: facets,
            readAs: parsed.readAs, phrasesAsWords: parsed.phrasesAsWords)
    }
}
