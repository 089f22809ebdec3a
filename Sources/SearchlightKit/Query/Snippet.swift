/// The description of a search result around its matches, with the matched words marked as
/// ranges of the text. Each front end renders the marks its own way: the JSON output and the
/// search page as HTML `<mark>`, the terminal in bold.
///
/// ```swift
/// let snippet = result.snippet
/// print(snippet.rendered(open: "[", close: "]"))  // "How [deep] [linking] works…"
/// ```
public struct Snippet: Sendable, Hashable {
    /// Plain text; an ellipsis (…) stands where the description was cut.
    public var text: String
    /// The matched words, in order and not overlapping.
    public var matches: [Range<String.Index>]

    public init(text: String, matches: [Range<String.Index>] = []) {
        self.text = text
        self.matches = matches
    }

    /// The text with each match between `open` and `close`; `escape` rewrites the text between
    /// and inside them.
    public func rendered(open: String, close: String, escape: (Substring) -> String = { String($0) }) -> String {
        var output = ""
        var position = text.startIndex
        for match in matches where match.lowerBound >= position && match.upperBound <= text.endIndex {
            output += escape(text[position..<match.lowerBound]) + open + escape(text[match]) + close
            position = match.upperBound
        }
        return output + escape(text[position...])
    }

    /// HTML: the text escaped, each match inside `<mark>`…`</mark>`. The `snippet` of JSON results.
    public var html: String { rendered(open: "<mark>", close: "</mark>", escape: Self.escapeHTML) }

    static func escapeHTML(_ text: Substring) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
