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
    /// How many words, phrases and filters the expression holds: what a search's cost grows with.
    var termCount: Int {
        switch self {
        case .everything: 0
        case .word, .phrase, .filter: 1
        case .and(let operands), .or(let operands), .xor(let operands): operands.reduce(0) { $0 + $1.termCount }
        case .exclude(let kept, let excluded): excluded.reduce(kept.termCount) { $0 + $1.termCount }
        }
    }
}
