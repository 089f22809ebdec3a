import Foundation

extension BranchUniversalObjectReader {
    /// The whole number right after `marker` in `text`.
    private static func number(after marker: String, in text: String) -> Int? {
        guard let range = text.range(of: marker) else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isASCII && $0.isNumber })
    }

    /// The text between two markers.
    private static func text(between start: String, and end: String, in text: String) -> String? {
        guard let lower = text.range(of: start),
            let upper = text.range(of: end, range: lower.upperBound..<text.endIndex)
        else { return nil }
        return String(text[lower.upperBound..<upper.lowerBound])
    }

    /// Where a JSON syntax error is, as a 1-based line and column, with Foundation's reason.
    ///
    /// `JSONDecoder` does not say where; `JSONSerialization` names the byte offset in its message
    /// ("around character 15") or the end of the input.
    static func syntaxErrorLocation(in bytes: Data.SubSequence) -> (line: Int?, column: Int?, reason: String) {
        var reason = "invalid JSON"
        var offset: Int?
        do {
            _ = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        } catch {
            let description =
                ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String)
                ?? (error as NSError).localizedDescription
            reason = description.trimmingCharacters(in: CharacterSet(charactersIn: ". "))
            if let position = number(after: "around character ", in: description)
                ?? number(after: "from character ", in: description)
            {
                offset = position
            } else if let numberText = text(between: "Number ", and: " is not representable", in: description),
                let range = Data(bytes).range(of: Data(numberText.utf8))
            {
                offset = range.lowerBound
            } else if description.lowercased().contains("end of file")
                || description.lowercased().contains("end of data")
            {
                offset = bytes.count
            }
        }
        // Foundation's wording, made to read as part of the sentence the reader writes.
        if reason.hasPrefix("Invalid value around character") { reason = "unexpected character" }
        if reason.hasPrefix("Unexpected end of file") { reason = "the input ends before the JSON is complete" }
        if reason.hasPrefix("Invalid UTF-8") { reason = "the text is not valid UTF-8 (save the file as UTF-8)" }
        for marker in [" around character ", " starting from character "] {
            if let range = reason.range(of: marker) { reason = String(reason[..<range.lowerBound]) }
        }
        if let range = reason.range(of: "is not representable in Swift") {
            reason.replaceSubrange(range, with: "is out of range")
        }
        guard var remaining = offset else { return (nil, nil, reason) }
        remaining = min(remaining, bytes.count)
        var line = 1
        var column = 1
        for byte in bytes.prefix(remaining) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column, reason)
    }
}
