/// Reads the query language of SPEC §2.1 into a ``QueryExpression``: the one place a query's
/// text is tokenized.
///
/// Precedence, loosest first, as in Xapian's own parser: `OR`, `XOR`, `AND` and `NOT`, then words
/// side by side (ANDed, each `-word` excluded). A malformed query is an
/// ``SearchlightError/Code/invalidQuery`` naming the query, what is wrong and the column.
struct QueryParser {
    private let text: String
    private let characters: [Character]
    private var tokens: [Token] = []
    private var position = 0

    init(_ text: String) {
        self.text = text
        characters = Array(text)
    }

    /// Parses the whole query.
    static func parse(_ text: String) throws(SearchlightError) -> QueryExpression {
        var parser = QueryParser(text)
        try parser.tokenize()
        guard !parser.tokens.isEmpty else { return .everything }
        try parser.checkOperators()
        let expression = parser.parseOr(field: .any)
        guard parser.position == parser.tokens.count else {
            throw parser.fail("cannot be parsed", column: 1)
        }
        // Nothing to search for (punctuation alone) matches nothing.
        return expression ?? .or([])
    }

    // MARK: Tokens

    private enum Sign {
        case none, plus, minus
    }

    private enum Operator: String {
        case and = "AND", or = "OR", xor = "XOR", not = "NOT"
    }

    private enum Token {
        case open(column: Int, sign: Sign, field: QueryExpression.TextField)
        case close(column: Int)
        case op(Operator, column: Int)
        /// A word, phrase or filter; `nil` when it held nothing to search for (`*` alone).
        case item(QueryExpression?, sign: Sign)
    }

    private func fail(_ message: String, column: Int) -> SearchlightError {
        SearchlightError(.invalidQuery, "The query \(quoted(text)) \(message) (column \(column))")
    }

    static func isQuote(_ character: Character) -> Bool {
        character == "\"" || character == "\u{201C}" || character == "\u{201D}" || character == "\u{201E}"
    }

    /// Characters that end an unquoted word.
    private func endsWord(_ character: Character) -> Bool {
        character.isWhitespace || character == "(" || character == ")" || Self.isQuote(character)
    }

    private mutating func tokenize() throws(SearchlightError) {
        var openColumns: [Int] = []
        var index = 0
        while index < characters.count {
            let character = characters[index]
            let column = index + 1
            if character.isWhitespace {
                index += 1
                continue
            }
            if character == ")" {
                guard !openColumns.isEmpty else { throw fail("has a ')' with no '(' before it", column: column) }
                if case .open? = tokens.last { throw fail("has empty parentheses", column: column) }
                openColumns.removeLast()
                tokens.append(.close(column: column))
                index += 1
                continue
            }
            // A sign binds to what follows it directly: `-word`, `-"a phrase"`, `-(a OR b)`.
            var sign = Sign.none
            if character == "-" || character == "+", index + 1 < characters.count,
                !characters[index + 1].isWhitespace, characters[index + 1] != ")"
            {
                sign = character == "-" ? .minus : .plus
                index += 1
            } else if character == "-" || character == "+" {
                index += 1  // a sign with nothing after it
                continue
            }
            let start = index
            if characters[index] == "(" {
                tokens.append(.open(column: start + 1, sign: sign, field: .any))
                openColumns.append(start + 1)
                index += 1
            } else if Self.isQuote(characters[index]) {
                let phrase = try quotedText(from: index)
                tokens.append(.item(.phrase(phrase.text, field: .any), sign: sign))
                index = phrase.end
            } else {
                var end = index
                while end < characters.count, !endsWord(characters[end]) { end += 1 }
                let word = String(characters[index..<end])
                if sign == .none, let op = Operator(rawValue: word) {
                    tokens.append(.op(op, column: start + 1))
                    index = end
                } else if let colon = word.firstIndex(of: ":"), let field = Field(word[..<colon]) {
                    index = try fieldValue(
                        field, name: String(word[..<colon]), at: start, sign: sign,
                        valueStart: start + word.distance(from: word.startIndex, to: colon) + 1,
                        openColumns: &openColumns)
                } else {
                    tokens.append(.item(plainWord(from: index, to: end, field: .any), sign: sign))
                    index = end
                }
            }
        }
        if let column = openColumns.last { throw fail("has a '(' that is never closed", column: column) }
        markPartialWord()
    }

    /// The text between a quote at `index` and the next quote; `end` is past the closing quote.
    private func quotedText(from index: Int) throws(SearchlightError) -> (text: String, end: Int) {
        guard let close = characters[(index + 1)...].firstIndex(where: Self.isQuote) else {
            throw fail("has a quote that is never closed; add a closing \"", column: index + 1)
        }
        return (String(characters[(index + 1)..<close]), close + 1)
    }

    /// A word of free text from `start` to `end`; a trailing `*` makes it a prefix.
    private func plainWord(from start: Int, to end: Int, field: QueryExpression.TextField) -> QueryExpression? {
        var last = end
        while last > start, characters[last - 1] == "*" { last -= 1 }
        guard last > start else { return nil }
        let match: QueryExpression.Match = last < end ? .prefix : .exact
        return .word(.init(text: String(characters[start..<last]), field: field, match: match, location: start..<last))
    }

    /// The names before `:` that the language knows.
    private enum Field {
        case text(QueryExpression.TextField)
        case filter(QueryExpression.Filter)

        init?(_ name: Substring) {
            switch name.lowercased() {
            case "title": self = .text(.title)
            case "description": self = .text(.description)
            default:
                guard let filter = QueryExpression.Filter(rawValue: name.lowercased()) else { return nil }
                self = .filter(filter)
            }
        }
    }

    /// Reads `field:value`, `field:"a phrase"` or `title:(…)`; returns the index after it.
    private mutating func fieldValue(
        _ field: Field, name: String, at start: Int, sign: Sign, valueStart: Int, openColumns: inout [Int]
    ) throws(SearchlightError) -> Int {
        let column = start + 1
        guard valueStart < characters.count, !characters[valueStart].isWhitespace, characters[valueStart] != ")"
        else {
            throw fail("has \(quoted(name + ":")) with nothing after it; write \(name):value", column: column)
        }
        let first = characters[valueStart]
        switch field {
        case .text(let textField):
            if first == "(" {
                tokens.append(.open(column: valueStart + 1, sign: sign, field: textField))
                openColumns.append(valueStart + 1)
                return valueStart + 1
            }
            if Self.isQuote(first) {
                let phrase = try quotedText(from: valueStart)
                tokens.append(.item(.phrase(phrase.text, field: textField), sign: sign))
                return phrase.end
            }
            var end = valueStart
            while end < characters.count, !endsWord(characters[end]) { end += 1 }
            tokens.append(.item(plainWord(from: valueStart, to: end, field: textField), sign: sign))
            return end
        case .filter(let filter):
            if first == "(" {
                throw fail("groups the values of \(name):; write \(name):value for each", column: column)
            }
            var value: String
            var end: Int
            if Self.isQuote(first) {
                (value, end) = try quotedText(from: valueStart)
            } else {
                end = valueStart
                while end < characters.count, !characters[end].isWhitespace, characters[end] != ")" { end += 1 }
                value = String(characters[valueStart..<end])
            }
            if filter == .mode, !["public", "private"].contains(value.lowercased()) {
                throw fail("cannot be parsed: mode: takes public or private, not '\(value)'", column: column)
            }
            tokens.append(.item(.filter(filter, value), sign: sign))
            return end
        }
    }

    /// The query's last word, when it ends the query and is not excluded, matches as typed so far.
    private mutating func markPartialWord() {
        guard case .item(.word(var word)?, let sign)? = tokens.last, sign != .minus, word.match == .exact else {
            return
        }
        word.match = .partial
        tokens[tokens.count - 1] = .item(.word(word), sign: sign)
    }

    // MARK: Operators

    /// Operators need operands: a binary operator between two terms, NOT before one.
    private func checkOperators() throws(SearchlightError) {
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

    private var current: Token? { position < tokens.count ? tokens[position] : nil }

    private mutating func parseOr(field: QueryExpression.TextField) -> QueryExpression? {
        var operands = [parseXor(field: field)]
        while case .op(.or, _)? = current {
            position += 1
            operands.append(parseXor(field: field))
        }
        return combine(operands, QueryExpression.or)
    }

    private mutating func parseXor(field: QueryExpression.TextField) -> QueryExpression? {
        var operands = [parseAnd(field: field)]
        while case .op(.xor, _)? = current {
            position += 1
            operands.append(parseAnd(field: field))
        }
        return combine(operands, QueryExpression.xor)
    }

    /// `a AND b`, `a NOT b`, `a AND NOT b`.
    private mutating func parseAnd(field: QueryExpression.TextField) -> QueryExpression? {
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
    private mutating func parseUnary(field: QueryExpression.TextField) -> QueryExpression? {
        guard case .op(.not, _)? = current else { return parseGroup(field: field) }
        position += 1
        return parseUnary(field: field).map { .exclude(.everything, excluded: [$0]) } ?? .everything
    }

    /// Words and groups side by side: the unsigned and `+` ones ANDed, the `-` ones excluded.
    private mutating func parseGroup(field: QueryExpression.TextField) -> QueryExpression? {
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
    private func combine(
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
