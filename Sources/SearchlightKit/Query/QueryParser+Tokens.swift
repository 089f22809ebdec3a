/// Splitting a query's text into the tokens ``QueryParser`` reads: words, phrases, fields and their
/// values, parentheses and operators, each with its column for error messages.
extension QueryParser {
    mutating func tokenize() throws(SearchlightError) {
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
                let word = text(index..<end)
                if sign == .none, let op = Operator(rawValue: word) {
                    tokens.append(.op(op, column: start + 1))
                    index = end
                } else if sign == .none, word.wholeMatch(of: /(NEAR|ADJ)(\/[0-9]+)?/) != nil, endsTerm(tokens.last),
                    characters[end...].contains(where: { !$0.isWhitespace })
                {
                    // Xapian's proximity operators, between two terms.
                    throw fail(
                        "uses \(word.prefix { $0.isLetter }), a proximity operator Searchlight does not support; "
                            + "put the words in quotes to find them side by side, or join them with AND",
                        column: start + 1)
                } else if let colon = word.firstIndex(of: ":"),
                    let field = Field(word[..<colon], attributes: attributes)
                {
                    index = try fieldValue(
                        field, name: String(word[..<colon]), at: start, sign: sign,
                        valueStart: start + word.distance(from: word.startIndex, to: colon) + 1,
                        openColumns: &openColumns)
                } else if let colon = word.firstIndex(of: ":"), Self.looksLikeField(word, colon: colon) {
                    throw fail(
                        "has \(quoted(String(word[...colon]))), which is not a field; the fields are "
                            + fieldNames + " (put it in quotes to search for the text)",
                        column: start + 1)
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
    func quotedText(from index: Int) throws(SearchlightError) -> (text: String, end: Int) {
        guard let close = characters[(index + 1)...].firstIndex(where: Self.isQuote) else {
            throw fail("has a quote that is never closed; add a closing \"", column: index + 1)
        }
        return (text((index + 1)..<close), close + 1)
    }

    /// A word of free text from `start` to `end`; a trailing `*` makes it a prefix.
    func plainWord(from start: Int, to end: Int, field: QueryExpression.TextField) -> QueryExpression? {
        var last = end
        while last > start, characters[last - 1] == "*" { last -= 1 }
        guard last > start else { return nil }
        let match: QueryExpression.Match = last < end ? .prefix : .exact
        return .word(.init(text: text(start..<last), field: field, match: match, location: start..<last))
    }

    /// The names before `:` that the language knows.
    enum Field {
        case text(QueryExpression.TextField)
        case filter(QueryExpression.Filter)
        /// A date, number or text the item carries (``ItemAttribute``).
        case attribute(ItemAttribute)
        /// `near:` a point, over ``ItemAttribute/location``.
        case near

        init?(_ name: Substring, attributes: [ItemAttribute]) {
            switch name.lowercased() {
            case "title": self = .text(.title)
            case "description": self = .text(.description)
            case "near", ItemAttribute.location.name: self = .near
            default:
                if let filter = QueryExpression.Filter(rawValue: name.lowercased()) {
                    self = .filter(filter)
                } else if let attribute = ItemAttribute.named(name, in: attributes) {
                    self = .attribute(attribute)
                } else {
                    return nil
                }
            }
        }
    }

    /// Whether `word` reads as `name:value` for a name the language does not know: letters before
    /// the colon and something after it, other than a link's `//`.
    static func looksLikeField(_ word: String, colon: String.Index) -> Bool {
        let name = word[..<colon]
        let value = word[word.index(after: colon)...]
        return !name.isEmpty && name.allSatisfy { $0.isASCII && $0.isLetter } && !value.isEmpty
            && !value.hasPrefix("/") && value.first != ":"
    }

    /// The names before `:` that the language knows, the index's custom fields among them, for
    /// messages.
    var fieldNames: String {
        (["title", "description"] + QueryExpression.Filter.allCases.map(\.rawValue)
            + attributes.filter { $0.kind != .point }.map(\.name) + ["near"]).joined(separator: ", ")
    }

    /// Reads `field:value`, `field:"a phrase"` or `title:(…)`; returns the index after it.
    mutating func fieldValue(
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
        case .filter, .attribute, .near:
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
                value = text(valueStart..<end)
            }
            tokens.append(.item(try filterValue(field, value, column: column), sign: sign))
            return end
        }
    }

    /// What an exact filter, an attribute or `near:` asks for with `value`.
    private func filterValue(_ field: Field, _ value: String, column: Int) throws(SearchlightError) -> QueryExpression {
        switch field {
        case .filter(let filter):
            if filter == .mode, !["public", "private"].contains(value.lowercased()) {
                throw fail("cannot be parsed: mode: takes public or private, not '\(value)'", column: column)
            }
            return .filter(filter, value)
        case .attribute(let attribute) where attribute.kind == .text:
            return .attribute(attribute, value)
        case .attribute(let attribute):
            return try range(of: attribute, value, column: column)
        case .near:
            return try near(value, column: column)
        case .text:
            preconditionFailure("a text field's value is read as words")
        }
    }

    /// The characters in `range` as a string. Appending each one keeps this concrete: the generic
    /// `String(_:)` over a slice looks its conformances up at run time, a cost paid by every search
    /// process.
    func text(_ range: Range<Int>) -> String {
        var text = ""
        for character in characters[range] { text.append(character) }
        return text
    }

    /// The query's last word, when it ends the query and is not excluded, matches as typed so far.
    mutating func markPartialWord() {
        guard case .item(.word(var word)?, let sign)? = tokens.last, sign != .minus, word.match == .exact else {
            return
        }
        word.match = .partial
        tokens[tokens.count - 1] = .item(.word(word), sign: sign)
    }

    /// Whether `token` ends a term, so that a binary operator may follow it.
    private func endsTerm(_ token: Token?) -> Bool {
        switch token {
        case .item?, .close?: true
        default: false
        }
    }
}
