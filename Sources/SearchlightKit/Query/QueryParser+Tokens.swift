/// Splitting a query's text into the tokens ``QueryParser`` reads: words, phrases, fields and their
/// values, parentheses and operators, each with its column for error messages.
extension QueryParser {
    mutating func tokenize() throws(SearchlightError) {
        var groups: [OpenGroup] = []
        /// The parentheses of the closed groups that exclude or name a field.
        var bindingGroups = Set<Int>()
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character.isWhitespace {
                index += 1
                continue
            }
            if character == ")" {
                if let group = groups.popLast() {
                    if case .open? = tokens.last {
                        // Empty parentheses hold nothing to search for. Each is read apart: what
                        // lies between them was read already (an empty pair inside: `(( ))`).
                        tokens.removeLast()
                        read(group.start..<(group.parenthesis + 1), as: " ")
                        read(index..<(index + 1), as: " ")
                    } else {
                        tokens.append(.close(column: index + 1))
                        if group.sign == .minus || group.field != .any { bindingGroups.insert(group.parenthesis) }
                    }
                } else {
                    // A parenthesis that closes nothing is read as a word, which holds nothing to search for.
                    read(index..<(index + 1), as: " ")
                }
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
                groups.append(
                    OpenGroup(
                        start: sign == .none ? start : start - 1, parenthesis: start, token: tokens.count, sign: sign,
                        field: .any))
                tokens.append(.open(column: start + 1, sign: sign, field: .any))
                index += 1
            } else if Self.isQuote(characters[index]) {
                let phrase = quotedText(from: index)
                if sign != .minus {
                    freePhrases.append(
                        PhraseQuotes(
                            opening: .typed(index), closing: phrase.closing, content: (index + 1)..<phrase.contentEnd,
                            groups: groups.map(\.parenthesis)))
                }
                tokens.append(.item(.phrase(phrase.text, field: .any), sign: sign))
                index = phrase.end
            } else {
                var end = index
                while end < characters.count, !endsWord(characters[end]) { end += 1 }
                let word = text(index..<end)
                if sign == .none, let op = Operator(rawValue: word) {
                    tokens.append(.op(op, column: start + 1))
                    index = end
                } else if let colon = word.firstIndex(of: ":"),
                    let field = Field(word[..<colon], attributes: attributes)
                {
                    index = try fieldValue(
                        field, name: String(word[..<colon]), at: start, sign: sign,
                        valueStart: start + word.distance(from: word.startIndex, to: colon) + 1, groups: &groups)
                } else if let colon = word.firstIndex(of: ":"), Self.looksLikeField(word, colon: colon) {
                    // A name that is not a field (`colour:blue`) is read as a phrase of its text.
                    let opening = read(start..<start, as: "\"")
                    let closing = read(end..<end, as: "\"")
                    if sign != .minus {
                        freePhrases.append(
                            PhraseQuotes(
                                opening: .added(reading: opening), closing: .added(reading: closing),
                                content: start..<end, groups: groups.map(\.parenthesis)))
                    }
                    tokens.append(.item(.phrase(word, field: .any), sign: sign))
                    index = end
                } else {
                    tokens.append(.item(plainWord(from: index, to: end, field: .any), sign: sign))
                    index = end
                }
            }
        }
        // A parenthesis never closed is read as a word, which holds nothing to search for; so is
        // the sign or field before it.
        for group in groups.reversed() {
            tokens.remove(at: group.token)
            read(group.start..<(group.parenthesis + 1), as: " ")
        }
        // A phrase in a group that excludes or names a field is not free text.
        freePhrases.removeAll { !$0.groups.allSatisfy { !bindingGroups.contains($0) } }
    }

    /// The text between a quote at `index` and the next quote, or the end of the query when no
    /// quote closes it (a closing quote is read there); `end` is past the closing quote.
    mutating func quotedText(from index: Int) -> (text: String, end: Int, closing: PhraseQuotes.Quote, contentEnd: Int)
    {
        guard let close = characters[(index + 1)...].firstIndex(where: Self.isQuote) else {
            let added = read(characters.count..<characters.count, as: "\"")
            return (text((index + 1)..<characters.count), characters.count, .added(reading: added), characters.count)
        }
        return (text((index + 1)..<close), close + 1, .typed(close), close)
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

    /// Reads `field:value`, `field:"a phrase"` or `title:(…)`; returns the index after it. A field
    /// with nothing after it (`title:` alone), or a filter before a parenthesis (`category:(a b)`),
    /// is read as a word of its name.
    mutating func fieldValue(
        _ field: Field, name: String, at start: Int, sign: Sign, valueStart: Int, groups: inout [OpenGroup]
    ) throws(SearchlightError) -> Int {
        let column = start + 1
        let isText = if case .text = field { true } else { false }
        guard valueStart < characters.count, !characters[valueStart].isWhitespace, characters[valueStart] != ")",
            isText || characters[valueStart] != "("
        else {
            read((valueStart - 1)..<valueStart, as: " ")
            tokens.append(.item(plainWord(from: start, to: valueStart - 1, field: .any), sign: sign))
            return valueStart
        }
        let first = characters[valueStart]
        switch field {
        case .text(let textField):
            if first == "(" {
                groups.append(
                    OpenGroup(
                        start: sign == .none ? start : start - 1, parenthesis: valueStart, token: tokens.count,
                        sign: sign, field: textField))
                tokens.append(.open(column: valueStart + 1, sign: sign, field: textField))
                return valueStart + 1
            }
            if Self.isQuote(first) {
                let phrase = quotedText(from: valueStart)
                tokens.append(.item(.phrase(phrase.text, field: textField), sign: sign))
                return phrase.end
            }
            var end = valueStart
            while end < characters.count, !endsWord(characters[end]) { end += 1 }
            tokens.append(.item(plainWord(from: valueStart, to: end, field: textField), sign: sign))
            return end
        case .filter, .attribute, .near:
            var value: String
            var end: Int
            if Self.isQuote(first) {
                (value, end, _, _) = quotedText(from: valueStart)
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
}
