/// A search query as the query language (docs/reference.md) reads it: the one typed form of a query, made by
/// ``QueryParser`` and handed to the index without being tokenized again.
indirect enum QueryExpression: Sendable, Hashable {
    /// Every item: the empty query.
    case everything
    /// One word of free text.
    case word(Word)
    /// Words in this order, next to each other.
    case phrase(String, field: TextField)
    /// An exact filter, with its value as written.
    case filter(Filter, String)
    /// Items whose number or date in `attribute` lies between `low` and `high`, both included.
    case range(ItemAttribute, low: Bound, high: Bound)
    /// Items whose text in `attribute` is this one (case- and accent-insensitive).
    case attribute(ItemAttribute, String)
    /// Items within `metres` of a point (``ItemAttribute/location``).
    case near(latitude: Double, longitude: Double, metres: Double)
    case and([QueryExpression])
    case or([QueryExpression])
    case xor([QueryExpression])
    /// Items matching `kept` and none of `excluded`.
    case exclude(QueryExpression, excluded: [QueryExpression])

    /// Where free text is looked for.
    enum TextField: Sendable, Hashable {
        /// The title, the keywords and the description: a plain word.
        case any
        case title
        case description
    }

    /// How a word matches.
    enum Match: Sendable, Hashable {
        /// The word itself (stemmed).
        case exact
        /// `word*`: any word beginning with it.
        case prefix
        /// The query's last word, as typed so far: the word itself or any word beginning with it.
        case partial
    }

    struct Word: Sendable, Hashable {
        var text: String
        var field: TextField
        var match: Match
        /// Where the word stands in the query text, in characters, for spelling suggestions.
        var location: Range<Int>
    }

    /// One end of a range: a number (epoch ms for a date), or milliseconds from the time of the
    /// search (`7d`), which only the search knows.
    struct Bound: Sendable, Hashable {
        var value: Double
        var fromNow = false

        static let lowest = Bound(value: -.infinity)
        static let highest = Bound(value: .infinity)

        /// The number the index compares with, at `now` (epoch ms).
        func resolved(now: Int64) -> Double { fromNow ? Double(now) + value : value }
    }

    /// The exact filters.
    enum Filter: String, Sendable, Hashable, CaseIterable {
        case keyword
        case identifier = "id"
        case schema
        case mode
        case domain
    }
}

extension QueryExpression {
    /// The free text the expression looks for, in its order: its words and phrases, less what
    /// it excludes. What a search's vector of meaning is made of; empty when it has none.
    var meaningText: String {
        switch self {
        case .word(let word): word.text
        case .phrase(let text, _): text
        case .everything, .filter, .range, .attribute, .near: ""
        case .and(let operands), .or(let operands), .xor(let operands):
            operands.map(\.meaningText).filter { !$0.isEmpty }.joined(separator: " ")
        case .exclude(let kept, _): kept.meaningText
        }
    }

    /// Whether the expression is free text alone: words and phrases side by side, without an
    /// operator, an exclusion, a field or a filter. A search embeds such a query as it was typed.
    var isFreeText: Bool {
        switch self {
        case .word(let word): word.field == .any
        case .phrase(_, let field): field == .any
        case .and(let operands): operands.allSatisfy(\.isFreeText)
        default: false
        }
    }

    /// How many words, phrases and filters the expression holds: what a search's cost grows with.
    var termCount: Int {
        switch self {
        case .everything: 0
        case .word, .phrase, .filter, .range, .attribute, .near: 1
        case .and(let operands), .or(let operands), .xor(let operands): operands.reduce(0) { $0 + $1.termCount }
        case .exclude(let kept, let excluded): excluded.reduce(kept.termCount) { $0 + $1.termCount }
        }
    }
}
