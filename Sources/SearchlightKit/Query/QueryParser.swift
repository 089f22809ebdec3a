/// Reads the query language (docs/reference.md, *The query language*) into a ``QueryExpression``: the one place a query's
/// text is tokenized.
///
/// Precedence, loosest first, as in Xapian's own parser: `OR`, `XOR`, `AND` and `NOT`, then words
/// side by side (ANDed, each `-word` excluded). A malformed query is an
/// ``SearchlightError/Code/invalidQuery`` naming the query, what is wrong and the column.
struct QueryParser {
    let text: String
    let characters: [Character]
    /// The attributes `name:value` may name: the built-in ones and the index's custom fields.
    let attributes: [ItemAttribute]
    var tokens: [Token] = []
    var position = 0

    init(_ text: String, attributes: [ItemAttribute] = ItemAttribute.all) {
        self.text = text
        self.attributes = attributes
        characters = Array(text)
    }

    /// Parses the whole query, and tells whether it joins anything with an explicit operator
    /// (`AND`, `OR`, `XOR`, `NOT`): only a query without one may be relaxed.
    static func parse(_ text: String, attributes: [ItemAttribute] = ItemAttribute.all) throws(SearchlightError) -> (
        expression: QueryExpression, hasOperators: Bool
    ) {
        var parser = QueryParser(text, attributes: attributes)
        try parser.tokenize()
        guard !parser.tokens.isEmpty else { return (.everything, false) }
        try parser.checkOperators()
        let expression = parser.parseOr(field: .any)
        guard parser.position == parser.tokens.count else {
            throw parser.fail("cannot be parsed", column: 1)
        }
        let hasOperators = parser.tokens.contains { if case .op = $0 { true } else { false } }
        // Nothing to search for (punctuation alone) matches nothing.
        return (expression ?? .or([]), hasOperators)
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

    // MARK: Operators

    /// Operators need operands: a binary operator between two terms, NOT before one.
    func checkOperators() throws(SearchlightError) {
        func startsOperand(_ token: Token?) -> Bool {
            switch token {
            case .item?, .open?, .op(.not, _)?: true
            default: false
            }
        }
        for (index, token) in tokens.enumerated() {
            guard case .op(let op, let column) = token else { continue }
            let next = index + 1 < tokens.count ? tokens[index + 1] : nil
            if op == .not {
                if !startsOperand(next) { throw fail("has NOT without a term after it", column: column) }
                continue
            }
            let endsOperand: Bool
            switch index > 0 ? tokens[index - 1] : nil {
            case .item?, .close?: endsOperand = true
            default: endsOperand = false
            }
            if !endsOperand || !startsOperand(next) {
                throw fail("has \(op.rawValue) without a term on each side", column: column)
            }
        }
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
