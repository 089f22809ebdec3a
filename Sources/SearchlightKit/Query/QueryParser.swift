/// Reads the query language (docs/reference.md, *The query language*) into a ``QueryExpression``: the one place a query's
/// text is tokenized.
///
/// Precedence, loosest first, as in Xapian's own parser: `OR`, `XOR`, `AND` and `NOT`, then words
/// side by side (ANDed, each `-word` excluded).
///
/// A search box never refuses a question for its syntax (SPEC §2.1): a quote never closed runs to
/// the end, an unmatched parenthesis, an operator with nothing to act on, a name that is not a
/// field and a field with nothing after it are read as words, and each such reading is an edit of
/// the text (``Reading``) from which ``Parsed/readAs`` is made. Only a value that a field filter
/// cannot read (a range that is not a date, `mode:secret`) is an ``SearchlightError/Code/invalidQuery``,
/// naming the query, what is wrong and the column.
struct QueryParser {
    let text: String
    let characters: [Character]
    /// The attributes `name:value` may name: the built-in ones and the index's custom fields.
    let attributes: [ItemAttribute]
    var tokens: [Token] = []
    var position = 0
    /// How the text was read where it was not read as written, in the order found.
    var readings: [Reading] = []
    /// The free-text phrases that select (no `-` on them or on a group around them, no field):
    /// what a query finding nothing reads as words.
    var freePhrases: [PhraseQuotes] = []

    init(_ text: String, attributes: [ItemAttribute] = ItemAttribute.all) {
        self.text = text
        self.attributes = attributes
        characters = Array(text)
    }

    /// A query as read.
    struct Parsed {
        var expression: QueryExpression
        /// It joins something with an explicit operator (`AND`, `OR`, `XOR`, `NOT`): only a query
        /// without one may be relaxed.
        var hasOperators: Bool
        /// The query as it was read, when that is not as it was written: a quote closed at the
        /// end, a parenthesis or an operator read as a word (`red and`), a name that is not a
        /// field read as a phrase (`"colour:blue"`).
        var readAs: String?
        /// The query read with its free-text phrases as words (their quotes taken out), when it
        /// has any; nil otherwise.
        var phrasesAsWords: String?
    }

    /// Parses the whole query.
    ///
    /// - Throws: ``SearchlightError/Code/invalidQuery`` for a value a field cannot read.
    static func parse(_ text: String, attributes: [ItemAttribute] = ItemAttribute.all) throws(SearchlightError)
        -> Parsed
    {
        var parser = QueryParser(text, attributes: attributes)
        try parser.tokenize()
        parser.readLoneOperatorsAsWords()
        parser.markPartialWord()
        let readAs = parser.readings.isEmpty ? nil : parser.applying(parser.readings)
        // Phrases of punctuation alone have no words to read.
        let phrasesAsWords =
            parser.freePhrases.contains { phrase in
                parser.characters[phrase.content].contains { $0.isLetter || $0.isNumber }
            } ? parser.applying(parser.phraseReadings()) : nil
        guard !parser.tokens.isEmpty else {
            return Parsed(expression: .everything, hasOperators: false, readAs: readAs)
        }
        let expression = parser.parseOr(field: .any)
        guard parser.position == parser.tokens.count else {
            // Unreachable: every parenthesis left is matched and every operator has its operands.
            throw parser.fail("cannot be parsed", column: 1)
        }
        let hasOperators = parser.tokens.contains { if case .op = $0 { true } else { false } }
        // Nothing to search for (punctuation alone) matches nothing.
        return Parsed(
            expression: expression ?? .or([]), hasOperators: hasOperators, readAs: readAs,
            phrasesAsWords: hasOperators ? nil : phrasesAsWords)
    }

    // MARK: Tokens

    enum Sign {
        case none, plus, minus
    }

    enum Operator: String {
        case and = "AND", or = "OR", xor = "XOR", not = "NOT"
    }

    enum Token {
        case open(column: Int, sign: Sign, field: QueryExpression.TextField)
        case close(column: Int)
        case op(Operator, column: Int)
        /// A word, phrase or filter; `nil` when it held nothing to search for (`*` alone).
        case item(QueryExpression?, sign: Sign)
    }

    /// An open parenthesis not yet closed: where its token begins (its sign or field name), the
    /// parenthesis itself, its place among the tokens, and what it applies to what it holds.
    struct OpenGroup {
        var start: Int
        var parenthesis: Int
        var token: Int
        var sign: Sign
        var field: QueryExpression.TextField
    }

    func fail(_ message: String, column: Int) -> SearchlightError {
        SearchlightError(.invalidQuery, "The query \(quoted(text)) \(message) (column \(column))")
    }

    static func isQuote(_ character: Character) -> Bool {
        character == "\"" || character == "\u{201C}" || character == "\u{201D}" || character == "\u{201E}"
    }

    /// Characters that end an unquoted word.
    func endsWord(_ character: Character) -> Bool {
        character.isWhitespace || character == "(" || character == ")" || Self.isQuote(character)
    }

    // MARK: Grammar

    var current: Token? { position < tokens.count ? tokens[position] : nil }

    mutating func parseOr(field: QueryExpression.TextField) -> QueryExpression? {
        var operands = [parseXor(field: field)]
        while case .op(.or, _)? = current {
            position += 1
            operands.append(parseXor(field: field))
        }
        return combine(operands, QueryExpression.or)
    }

    mutating func parseXor(field: QueryExpression.TextField) -> QueryExpression? {
        var operands = [parseAnd(field: field)]
        while case .op(.xor, _)? = current {
            position += 1
            operands.append(parseAnd(field: field))
        }
        return combine(operands, QueryExpression.xor)
    }

    /// `a AND b`, `a NOT b`, `a AND NOT b`.
    mutating func parseAnd(field: QueryExpression.TextField) -> QueryExpression? {
        var left = parseUnary(field: field)
        while true {
            var excluding = false
            if case .op(.and, _)? = current {
                position += 1
                if case .op(.not, _)? = current {
                    position += 1
                    excluding = true
                }
            } else if case .op(.not, _)? = current {
                position += 1
                excluding = true
            } else {
                return left
            }
            let right = parseUnary(field: field)
            if excluding {
                left = right.map { .exclude(left ?? .everything, excluded: [$0]) } ?? left
            } else {
                left = combine([left, right], QueryExpression.and)
            }
        }
    }

    /// `NOT a` at the start of an operand: everything but `a`.
    mutating func parseUnary(field: QueryExpression.TextField) -> QueryExpression? {
        guard case .op(.not, _)? = current else { return parseGroup(field: field) }
        position += 1
        return parseUnary(field: field).map { .exclude(.everything, excluded: [$0]) } ?? .everything
    }

    /// Words and groups side by side: the unsigned and `+` ones ANDed, the `-` ones excluded.
    mutating func parseGroup(field: QueryExpression.TextField) -> QueryExpression? {
        var kept: [QueryExpression] = []
        var excluded: [QueryExpression] = []
        var sawAny = false
        loop: while let token = current {
            let operand: QueryExpression?
            let sign: Sign
            switch token {
            case .item(let item, let itemSign):
                position += 1
                operand = item.map { field == .any ? $0 : $0.inField(field) }
                sign = itemSign
            case .open(_, let groupSign, let groupField):
                position += 1
                operand = parseOr(field: groupField == .any ? field : groupField)
                if case .close? = current { position += 1 }
                sign = groupSign
            default:
                break loop
            }
            sawAny = true
            guard let operand else { continue }
            if sign == .minus { excluded.append(operand) } else { kept.append(operand) }
        }
        guard sawAny, !(kept.isEmpty && excluded.isEmpty) else { return nil }
        let positive: QueryExpression = kept.isEmpty ? .everything : kept.count == 1 ? kept[0] : .and(kept)
        return excluded.isEmpty ? positive : .exclude(positive, excluded: excluded)
    }

    /// One operand stays itself; none is nothing to search for.
    func combine(
        _ operands: [QueryExpression?], _ make: ([QueryExpression]) -> QueryExpression
    ) -> QueryExpression? {
        let present = operands.compactMap { $0 }
        switch present.count {
        case 0: return nil
        case 1: return present[0]
        default: return make(present)
        }
    }
}

extension QueryExpression {
    /// The expression with its plain words and phrases looked for in `field` (`title:(a b)`).
    func inField(_ field: TextField) -> QueryExpression {
        switch self {
        case .word(var word) where word.field == .any:
            word.field = field
            return .word(word)
        case .phrase(let text, .any): return .phrase(text, field: field)
        case .and(let operands): return .and(operands.map { $0.inField(field) })
        case .or(let operands): return .or(operands.map { $0.inField(field) })
        case .xor(let operands): return .xor(operands.map { $0.inField(field) })
        case .exclude(let kept, let excluded):
            return .exclude(kept.inField(field), excluded: excluded.map { $0.inField(field) })
        default: return self
        }
    }
}
