/// Finds where JSON text first breaks RFC 8259's grammar, for error messages: `JSONDecoder` only
/// says that the data is not valid JSON.
///
/// Only called once decoding has failed, so it is written for clarity, not speed. Nesting is kept
/// on a stack of its own, not the call stack, so hostile input cannot overflow it.
enum JSONSyntax {
    /// The first error: the byte offset of the first byte that cannot be part of valid JSON (the
    /// input's length when it ends too early), and what is wrong there. `nil` when the grammar
    /// holds (the decoder then refused something else).
    static func firstError(in bytes: some Collection<UInt8>) -> (offset: Int, reason: String)? {
        var scanner = Scanner(Array(bytes))
        return scanner.scanDocument()
    }

    static let unexpectedCharacter = "unexpected character"
    static let unexpectedEnd = "the input ends before the JSON is complete"
    static let invalidUTF8 = "the text is not valid UTF-8 (save the file as UTF-8)"
    static let controlCharacter = "a control character in a string must be escaped"
    static let tooDeep = "too many nested arrays or objects (at most \(maximumDepth))"

    /// The deepest nesting `JSONDecoder` accepts.
    static let maximumDepth = 512

    private struct Scanner {
        private enum Container { case object, array }
        private let bytes: [UInt8]
        private var position = 0
        private var stack: [Container] = []

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
        }

        typealias Failure = (offset: Int, reason: String)

        mutating func scanDocument() -> Failure? {
            // A byte order mark may open the text.
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
            var expectingValue = true
            while true {
                skipSpace()
                if expectingValue {
                    guard position < bytes.count else { return (position, JSONSyntax.unexpectedEnd) }
                    if let failure = scanValueOrOpen(&expectingValue) { return failure }
                    continue
                }
                guard let container = stack.last else { break }
                guard position < bytes.count else { return (position, JSONSyntax.unexpectedEnd) }
                let byte = bytes[position]
                let closing = container == .object ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if byte == closing {
                    position += 1
                    stack.removeLast()
                } else if byte == UInt8(ascii: ",") {
                    position += 1
                    if container == .object, let failure = scanMemberName() { return failure }
                    expectingValue = true
                } else {
                    return (position, JSONSyntax.unexpectedCharacter)
                }
            }
            return position < bytes.count ? (position, JSONSyntax.unexpectedCharacter) : nil
        }

        /// Scans a scalar value, or opens an object or array: an empty one is scanned whole; else
        /// it is pushed (with an object's first member name) and a value is still expected.
        private mutating func scanValueOrOpen(_ expectingValue: inout Bool) -> Failure? {
            expectingValue = false
            switch bytes[position] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let container: Container = bytes[position] == UInt8(ascii: "{") ? .object : .array
                position += 1
                skipSpace()
                let closing = container == .object ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if position < bytes.count, bytes[position] == closing {
                    position += 1
                    return nil
                }
                stack.append(container)
                guard stack.count <= JSONSyntax.maximumDepth else { return (position - 1, JSONSyntax.tooDeep) }
                expectingValue = true
                return container == .object ? scanMemberName() : nil
            case UInt8(ascii: "\""):
                return scanString()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return scanNumber()
            case UInt8(ascii: "t"): return scanLiteral("true")
            case UInt8(ascii: "f"): return scanLiteral("false")
            case UInt8(ascii: "n"): return scanLiteral("null")
            default:
                return (position, JSONSyntax.unexpectedCharacter)
            }
        }

        /// Scans `"name":` inside an object.
        private mutating func scanMemberName() -> Failure? {
            skipSpace()
            guard position < bytes.count else { return (position, JSONSyntax.unexpectedEnd) }
            guard bytes[position] == UInt8(ascii: "\"") else { return (position, JSONSyntax.unexpectedCharacter) }
            if let failure = scanString() { return failure }
            skipSpace()
            guard position < bytes.count else { return (position, JSONSyntax.unexpectedEnd) }
            guard bytes[position] == UInt8(ascii: ":") else { return (position, JSONSyntax.unexpectedCharacter) }
            position += 1
            return nil
        }

        private mutating func scanString() -> Failure? {
            position += 1
            while position < bytes.count {
                let byte = bytes[position]
                switch byte {
                case UInt8(ascii: "\""):
                    position += 1
                    return nil
                case UInt8(ascii: "\\"):
                    position += 1
                    guard position < bytes.count else { return (position, JSONSyntax.unexpectedEnd) }
                    switch bytes[position] {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                        UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        position += 1
                    case UInt8(ascii: "u"):
                        position += 1
                        for _ in 0..<4 {
                            guard position < bytes.count else { return (position, JSONSyntax.unexpectedEnd) }
                            guard isHexDigit(bytes[position]) else { return (position, JSONSyntax.unexpectedCharacter) }
                            position += 1
                        }
                    default:
                        return (position, JSONSyntax.unexpectedCharacter)
                    }
                case 0..<0x20:
                    return (position, JSONSyntax.controlCharacter)
                case 0x80...:
                    guard let length = utf8SequenceLength(at: position) else {
                        return (position, JSONSyntax.invalidUTF8)
                    }
                    position += length
                default:
                    position += 1
                }
            }
            return (position, JSONSyntax.unexpectedEnd)
        }

        private mutating func scanNumber() -> Failure? {
            if bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard position < bytes.count else { return (position, JSONSyntax.unexpectedEnd) }
            if bytes[position] == UInt8(ascii: "0") {
                position += 1
            } else if let failure = scanDigits() {
                return failure
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                position += 1
                if let failure = scanDigits() { return failure }
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-")
                {
                    position += 1
                }
                if let failure = scanDigits() { return failure }
            }
            return nil
        }

        /// One or more decimal digits.
        private mutating func scanDigits() -> Failure? {
            guard position < bytes.count else { return (position, JSONSyntax.unexpectedEnd) }
            guard isDigit(bytes[position]) else { return (position, JSONSyntax.unexpectedCharacter) }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
            return nil
        }

        private mutating func scanLiteral(_ literal: StaticString) -> Failure? {
            let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
            for byte in expected {
                guard position < bytes.count else { return (position, JSONSyntax.unexpectedEnd) }
                guard bytes[position] == byte else { return (position, JSONSyntax.unexpectedCharacter) }
                position += 1
            }
            return nil
        }

        private mutating func skipSpace() {
            while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
        }

        /// The length of the well-formed UTF-8 sequence starting at `start`, if it is one.
        private func utf8SequenceLength(at start: Int) -> Int? {
            let end = min(bytes.count, start + 4)
            var decoder = UTF8()
            var iterator = bytes[start..<end].makeIterator()
            guard case .scalarValue(let scalar) = decoder.decode(&iterator) else { return nil }
            return UTF8.width(scalar)
        }

        private func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

        private func isHexDigit(_ byte: UInt8) -> Bool {
            isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
        }
    }
}
