import FoundationEssentials

/// Makes the last occurrence of a key count, as in JavaScript and Python: `JSONDecoder` keeps the
/// first. Text whose objects repeat a key is decoded again without the earlier occurrences.
enum JSONDuplicateKeys {
    /// The member names in `bytes` (valid JSON), counted: more than the decoded value's keys
    /// means some object repeats one.
    static func memberCount(in bytes: UnsafeRawBufferPointer) -> Int {
        var count = 0
        var index = 0
        let end = bytes.count
        while index < end {
            guard bytes[index] == UInt8(ascii: "\"") else {
                index += 1
                continue
            }
            index += 1
            while index < end {
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\\") {
                    index += 1
                } else if byte == UInt8(ascii: "\"") {
                    break
                }
            }
            var next = index
            while next < end, BranchUniversalObjectReader.isSpace(bytes[next]) { next += 1 }
            if next < end, bytes[next] == UInt8(ascii: ":") { count += 1 }
        }
        return count
    }

    /// The keys of `value` and of every object in it.
    static func keyCount(in value: JSONValue) -> Int {
        switch value {
        case .object(let members): members.count + members.values.reduce(0) { $0 + keyCount(in: $1) }
        case .array(let elements): elements.reduce(0) { $0 + keyCount(in: $1) }
        default: 0
        }
    }

    /// `bytes` (valid JSON) without the earlier occurrences of each repeated key in each object.
    static func keepingLast(_ bytes: [UInt8]) -> [UInt8] {
        var scanner = Scanner(bytes: bytes)
        scanner.value()
        guard !scanner.removed.isEmpty else { return bytes }
        var kept: [UInt8] = []
        kept.reserveCapacity(bytes.count)
        var start = 0
        // Ranges nest (a repeat inside an overridden member) or are apart; a nested one is already gone.
        for range in scanner.removed.sorted(by: { $0.lowerBound < $1.lowerBound }) where range.lowerBound >= start {
            kept += bytes[start..<range.lowerBound]
            start = range.upperBound
        }
        kept += bytes[start...]
        return kept
    }

    /// Walks valid JSON, noting the members that a later member of the same name overrides.
    private struct Scanner {
        let bytes: [UInt8]
        var position = 0
        /// The byte ranges of overridden members: from the key to the next member's key.
        var removed: [Range<Int>] = []

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func value() {
            skipSpace()
            guard position < bytes.count else { return }
            switch bytes[position] {
            case UInt8(ascii: "{"): object()
            case UInt8(ascii: "["):
                position += 1
                skipSpace()
                while position < bytes.count, bytes[position] != UInt8(ascii: "]") {
                    value()
                    skipSpace()
                    if position < bytes.count, bytes[position] == UInt8(ascii: ",") { position += 1 }
                    skipSpace()
                }
                position += 1
            case UInt8(ascii: "\""): _ = string()
            default:
                while position < bytes.count, !isDelimiter(bytes[position]) { position += 1 }
            }
        }

        private mutating func object() {
            position += 1
            // Where each member's key starts, in order, and each key's latest member.
            var starts: [Int] = []
            var latest: [String: Int] = [:]
            skipSpace()
            while position < bytes.count, bytes[position] != UInt8(ascii: "}") {
                starts.append(position)
                let key = string()
                // An overridden member runs from its key to the key of the member after it.
                if let earlier = latest[key] { removed.append(starts[earlier]..<starts[earlier + 1]) }
                latest[key] = starts.count - 1
                skipSpace()
                position += 1  // the colon
                value()
                skipSpace()
                if position < bytes.count, bytes[position] == UInt8(ascii: ",") { position += 1 }
                skipSpace()
            }
            position += 1
        }

        /// Reads a string; returns its value.
        private mutating func string() -> String {
            let start = position
            position += 1
            var escaped = false
            while position < bytes.count {
                let byte = bytes[position]
                position += 1
                if byte == UInt8(ascii: "\\") {
                    escaped = true
                    position += 1
                } else if byte == UInt8(ascii: "\"") {
                    break
                }
            }
            let quoted = bytes[start..<position]
            guard escaped else { return String(decoding: quoted.dropFirst().dropLast(), as: UTF8.self) }
            return (try? JSONDecoder().decode(String.self, from: Data(quoted)))
                ?? String(decoding: quoted, as: UTF8.self)
        }

        private mutating func skipSpace() {
            while position < bytes.count, BranchUniversalObjectReader.isSpace(bytes[position]) { position += 1 }
        }

        private func isDelimiter(_ byte: UInt8) -> Bool {
            BranchUniversalObjectReader.isSpace(byte) || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]")
                || byte == UInt8(ascii: "}")
        }
    }
}
