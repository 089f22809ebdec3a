/// How ``QueryParser`` reads what is not written as the query language has it (SPEC §2.1): each
/// such reading is an edit of the text, from which ``QueryParser/Parsed/readAs`` is made, and the
/// free-text phrases' quotes, which a query finding nothing reads without.
extension QueryParser {
    /// One edit of the query's text: the characters in `range` read as `replacement`.
    struct Reading {
        var range: Range<Int>
        var replacement: String
    }

    /// Where a free-text phrase's quotes stand: a quote typed (its index), or one the reading added
    /// (its place in ``readings``).
    struct PhraseQuotes {
        enum Quote {
            case typed(Int)
            case added(reading: Int)
        }
        var opening: Quote
        var closing: Quote
        /// The phrase's text.
        var content: Range<Int>
        /// The parentheses of the groups around it.
        var groups: [Int]
    }

    /// Records that the characters in `range` are read as `replacement`; returns its place.
    @discardableResult
    mutating func read(_ range: Range<Int>, as replacement: String) -> Int {
        readings.append(Reading(range: range, replacement: replacement))
        return readings.count - 1
    }

    /// The text with `edits` made, its spaces collapsed.
    func applying(_ edits: [Reading]) -> String {
        var edited = characters
        // From the end, so that each range still points where it did; of two at one place, the
        // later recorded first, so that they read in the order recorded.
        for edit in edits.enumerated().sorted(by: {
            ($0.element.range.lowerBound, $0.offset) > ($1.element.range.lowerBound, $1.offset)
        }) {
            edited.replaceSubrange(edit.element.range, with: Array(edit.element.replacement))
        }
        return edited.split(whereSeparator: \.isWhitespace).map { String($0) }.joined(separator: " ")
    }

    /// ``readings`` with the free-text phrases' quotes taken out (their typed quotes removed, the
    /// quotes the reading added not added), and their text read as words of free text alone: what
    /// would be syntax outside quotes (a parenthesis, a colon, a sign, `*`, an operator) read as
    /// a word.
    func phraseReadings() -> [Reading] {
        var skipped = Set<Int>()
        var edits: [Reading] = []
        for phrase in freePhrases {
            for quote in [phrase.opening, phrase.closing] {
                switch quote {
                case .typed(let index): edits.append(Reading(range: index..<(index + 1), replacement: " "))
                case .added(let reading): skipped.insert(reading)
                }
            }
            var words = Array(characters[phrase.content])
            for (offset, character) in words.enumerated() {
                let startsWord = offset == 0 || words[offset - 1].isWhitespace
                if character == "(" || character == ")" || character == ":" || character == "*"
                    || ((character == "-" || character == "+") && startsWord)
                {
                    words[offset] = " "
                    let index = phrase.content.lowerBound + offset
                    edits.append(Reading(range: index..<(index + 1), replacement: " "))
                }
            }
            var offset = 0
            while offset < words.count {
                guard !words[offset].isWhitespace else {
                    offset += 1
                    continue
                }
                var end = offset
                while end < words.count, !words[end].isWhitespace { end += 1 }
                let word = String(words[offset..<end])
                if Operator(rawValue: word) != nil {
                    let index = phrase.content.lowerBound + offset
                    edits.append(Reading(range: index..<(index + word.count), replacement: word.lowercased()))
                }
                offset = end
            }
        }
        return readings.enumerated().filter { !skipped.contains($0.offset) }.map(\.element) + edits
    }

    /// Operators need operands: a binary operator between two terms, NOT before one. One without
    /// them is read as a word (`red AND` as `red and`).
    mutating func readLoneOperatorsAsWords() {
        func startsOperand(_ token: Token?) -> Bool {
            switch token {
            case .item?, .open?, .op(.not, _)?: true
            default: false
            }
        }
        for index in tokens.indices {
            guard case .op(let op, let column) = tokens[index] else { continue }
            let next = index + 1 < tokens.count ? tokens[index + 1] : nil
            let hasOperands: Bool
            if op == .not {
                hasOperands = startsOperand(next)
            } else {
                switch index > 0 ? tokens[index - 1] : nil {
                case .item?, .close?: hasOperands = startsOperand(next)
                default: hasOperands = false
                }
            }
            guard !hasOperands else { continue }
            let location = (column - 1)..<(column - 1 + op.rawValue.count)
            let word = op.rawValue.lowercased()
            read(location, as: word)
            tokens[index] = .item(.word(.init(text: word, field: .any, match: .exact, location: location)), sign: .none)
        }
    }
}
