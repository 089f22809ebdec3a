/// A search: the query text, who is asking, and which page of results.
///
/// The query language is SPEC §2.1: words are ANDed, stemmed and folded for case and accents;
/// `"phrases"`, `-exclusion`, `AND`/`OR`/`NOT`/parentheses, `word*` and as-you-type prefix
/// matching of the last word; `title:`, `keyword:`, `description:` and the exact filters `id:`,
/// `schema:`, `mode:` and `domain:`. An empty query matches every visible item.
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

    /// The most results one search returns.
    public static let maximumLimit = 1000

    public init(
        _ text: String, domainIdentifier: String? = SearchableItem.defaultDomain, scope: Scope = .all,
        limit: Int = 20, offset: Int = 0
    ) {
        self.text = text
        self.domainIdentifier = domainIdentifier
        self.scope = scope
        self.limit = limit
        self.offset = offset
    }

    /// The field prefixes the language knows.
    static let fields: Set<String> = ["title", "keyword", "description", "id", "schema", "mode", "domain"]

    /// Checks the query's structure before Xapian sees it, so that a malformed query gets a
    /// message saying what is wrong and where, rather than a silent reinterpretation.
    ///
    /// - Throws: ``SearchlightError/Code/invalidQuery`` naming the query and the column.
    public func validate() throws(SearchlightError) {
        guard limit >= 0, limit <= Self.maximumLimit else {
            throw .invalidArgument("The limit must be between 0 and \(Self.maximumLimit), not \(limit)")
        }
        guard offset >= 0 else { throw .invalidArgument("The offset must not be negative (\(offset))") }
        if let domainIdentifier { try SearchableItem.validateDomain(domainIdentifier) }

        enum Token: Equatable {
            case word(String), open, close, binary(String), not
        }
        var tokens: [(token: Token, column: Int)] = []
        var depth = 0
        var openColumns: [Int] = []
        let characters = Array(text)
        var index = 0
        func fail(_ message: String, column: Int) -> SearchlightError {
            SearchlightError(.invalidQuery, "The query \(quoted(text)) \(message) (column \(column))")
        }
        while index < characters.count {
            let character = characters[index]
            let column = index + 1
            if character.isWhitespace {
                index += 1
            } else if character == "(" {
                tokens.append((.open, column))
                depth += 1
                openColumns.append(column)
                index += 1
            } else if character == ")" {
                guard depth > 0 else { throw fail("has a ')' with no '(' before it", column: column) }
                if let last = tokens.last?.token, last == .open {
                    throw fail("has empty parentheses", column: column)
                }
                depth -= 1
                openColumns.removeLast()
                tokens.append((.close, column))
                index += 1
            } else if Self.isQuote(character) {
                guard let end = characters[(index + 1)...].firstIndex(where: Self.isQuote) else {
                    throw fail("has a quote that is never closed; add a closing \"", column: column)
                }
                tokens.append((.word("\"…\""), column))
                index = end + 1
            } else {
                var word = ""
                while index < characters.count, !characters[index].isWhitespace, characters[index] != "(",
                    characters[index] != ")"
                {
                    if Self.isQuote(characters[index]) {
                        // `title:"a phrase"` or `-"a phrase"`: the phrase belongs to this word.
                        guard let end = characters[(index + 1)...].firstIndex(where: Self.isQuote) else {
                            throw fail("has a quote that is never closed; add a closing \"", column: index + 1)
                        }
                        word += "\"…\""
                        index = end + 1
                        continue
                    }
                    word.append(characters[index])
                    index += 1
                }
                switch word {
                case "AND", "OR", "XOR": tokens.append((.binary(word), column))
                case "NOT": tokens.append((.not, column))
                default:
                    if let colon = word.firstIndex(of: ":"), Self.fields.contains(String(word[..<colon]).lowercased()),
                        word.index(after: colon) == word.endIndex
                    {
                        let nextIsGroup = index < characters.count && characters[index] == "("
                        if !nextIsGroup {
                            throw fail("has \(quoted(word)) with nothing after it; write \(word)value", column: column)
                        }
                    }
                    tokens.append((.word(word), column))
                }
            }
        }
        if depth > 0 { throw fail("has a '(' that is never closed", column: openColumns.last ?? 1) }

        // Operators need operands: a binary operator between two terms, NOT before one.
        for (position, entry) in tokens.enumerated() {
            let previous = position > 0 ? tokens[position - 1].token : nil
            let next = position + 1 < tokens.count ? tokens[position + 1].token : nil
            let startsOperand: (Token?) -> Bool = { token in
                switch token {
                case .word?, .open?, .not?: true
                default: false
                }
            }
            switch entry.token {
            case .binary(let name):
                let endsOperand: Bool
                switch previous {
                case .word?, .close?: endsOperand = true
                default: endsOperand = false
                }
                if !endsOperand || !startsOperand(next) {
                    throw fail("has \(name) without a term on each side", column: entry.column)
                }
            case .not:
                if !startsOperand(next) { throw fail("has NOT without a term after it", column: entry.column) }
            default:
                break
            }
        }
    }

    static func isQuote(_ character: Character) -> Bool {
        character == "\"" || character == "\u{201C}" || character == "\u{201D}" || character == "\u{201E}"
    }
}
