import FoundationEssentials

extension BranchUniversalObjectReader {
    /// Where a JSON syntax error is, as a 1-based line and column (counted in characters), and
    /// what is wrong there (``JSONSyntax``).
    static func syntaxErrorLocation(in bytes: Data.SubSequence) -> (line: Int?, column: Int?, reason: String) {
        guard let error = JSONSyntax.firstError(in: bytes) else { return (nil, nil, "invalid JSON") }
        var line = 1
        var column = 1
        for byte in bytes.prefix(error.offset) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column, error.reason)
    }
}
