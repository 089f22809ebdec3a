/// Splits a JSON document into its items as its bytes arrive, holding at most one item's bytes:
/// the elements of a top-level array, or a top-level value on its own.
///
/// It follows only the document's structure (strings, nesting, the separators between elements);
/// each item's own grammar is left to the decoder. An item longer than ``ItemLimits/itemBytes`` is
/// counted and skipped, never held. Unless `allowingLines` is false, a top-level object alone on
/// the first line that another object follows on a later line makes the input JSON Lines
/// (`linesFollow`).
struct JSONDocumentSplitter {
    /// An item: its bytes (nil when it was too long to keep), its length, where it starts, and
    /// whether it is an element of a top-level array.
    struct Item {
        var isElement: Bool
        var bytes: [UInt8]?
        var length: Int
        var line: Int
        var column: Int
    }

    enum Shape: Equatable {
        /// Nothing but white space so far.
        case empty
        /// A top-level array: its elements are the items.
        case array
        /// A top-level value on its own (an object, or a value that is not one).
        case value
    }

    private(set) var shape = Shape.empty
    /// Where the structure first breaks, and what is wrong there.
    private(set) var failure: (line: Int, column: Int, reason: String)?
    /// A top-level object on the first line, another object after it: the input is JSON Lines.
    private(set) var linesFollow = false
    private let allowsLines: Bool

    init(allowingLines: Bool = true) { allowsLines = allowingLines }

    private enum Phase {
        case start
        /// In a top-level array, before an element; `afterComma` refuses a closing bracket.
        case beforeElement(afterComma: Bool)
        /// In a top-level array, after an element.
        case afterElement
        /// Inside an item.
        case inItem
        /// After the top-level value: white space only.
        case end
    }

    private var phase = Phase.start
    private var line = 1
    private var column = 1
    private var atFirstByte = true
    /// The closing brackets of the item's open containers, innermost last.
    private var closers: [UInt8] = []
    private var inString = false
    private var escaped = false
    /// A number or literal at the item's top: it ends at the first delimiter.
    private var inBareValue = false
    private var item = Item(isElement: false, bytes: [], length: 0, line: 1, column: 1)
    /// The line the top-level value ended on, and whether a line ended since.
    private var topEndLine = 0
    private var topStartLine = 0
    private var newlineSinceTop = false

    /// Follows `chunk`, calling `emit` with each item it completes; stops at a failure or when
    /// the input turns out to be JSON Lines.
    mutating func feed(_ chunk: UnsafeRawBufferPointer, emit: (Item) -> Void) {
        var index = 0
        let count = chunk.count
        while index < count, failure == nil, !linesFollow {
            let byte = chunk[index]
            if atFirstByte {
                atFirstByte = false
                // A byte order mark may open the text.
                if byte == 0xEF, count - index >= 3, chunk[index + 1] == 0xBB, chunk[index + 2] == 0xBF {
                    index += 3
                    continue
                }
            }
            switch phase {
            case .inItem:
                // The bulk of the input: inside an item, up to the end of the chunk or of the item.
                let start = index
                var ended = false
                while index < count {
                    let byte = chunk[index]
                    index += 1
                    if inString {
                        if escaped {
                            escaped = false
                        } else if byte == UInt8(ascii: "\\") {
                            escaped = true
                        } else if byte == UInt8(ascii: "\"") {
                            inString = false
                            if closers.isEmpty {
                                ended = true
                                break
                            }
                        }
                    } else if inBareValue && isDelimiter(byte) {
                        // The delimiter belongs to what follows the item.
                        index -= 1
                        inBareValue = false
                        ended = true
                        break
                    } else {
                        switch byte {
                        case UInt8(ascii: "\""): inString = true
                        case UInt8(ascii: "{"), UInt8(ascii: "["):
                            closers.append(byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]"))
                            if closers.count + (item.isElement ? 1 : 0) > JSONSyntax.maximumDepth {
                                advance(over: chunk, from: start, to: index - 1)
                                fail(JSONSyntax.tooDeep)
                                return
                            }
                        case UInt8(ascii: "}"), UInt8(ascii: "]"):
                            guard closers.last == byte else {
                                advance(over: chunk, from: start, to: index - 1)
                                fail(JSONSyntax.unexpectedCharacter)
                                return
                            }
                            closers.removeLast()
                            if closers.isEmpty { ended = true }
                        default: break
                        }
                        if ended { break }
                    }
                }
                keep(chunk, from: start, to: index)
                advance(over: chunk, from: start, to: index)
                if ended {
                    emit(item)
                    if shape == .array {
                        phase = .afterElement
                    } else {
                        phase = .end
                        topEndLine = line
                    }
                }
                continue
            case .start:
                if !isSpace(byte) {
                    if byte == UInt8(ascii: "[") {
                        shape = .array
                        phase = .beforeElement(afterComma: false)
                    } else {
                        shape = .value
                        topStartLine = line
                        startItem(with: byte)
                        continue
                    }
                }
            case .beforeElement(let afterComma):
                if byte == UInt8(ascii: "]") && !afterComma {
                    phase = .end
                } else if !isSpace(byte) {
                    guard byte != UInt8(ascii: "]"), byte != UInt8(ascii: ",") else {
                        fail(JSONSyntax.unexpectedCharacter)
                        return
                    }
                    startItem(with: byte)
                    continue
                }
            case .afterElement:
                if byte == UInt8(ascii: ",") {
                    phase = .beforeElement(afterComma: true)
                } else if byte == UInt8(ascii: "]") {
                    phase = .end
                } else if !isSpace(byte) {
                    fail(JSONSyntax.unexpectedCharacter)
                    return
                }
            case .end:
                if byte == UInt8(ascii: "\n") {
                    newlineSinceTop = true
                } else if !isSpace(byte) {
                    if allowsLines, shape == .value, byte == UInt8(ascii: "{"), newlineSinceTop, topStartLine == 1,
                        topEndLine == 1
                    {
                        linesFollow = true
                    } else {
                        fail(JSONSyntax.unexpectedCharacter)
                    }
                    return
                }
            }
            step(byte)
            index += 1
        }
    }

    /// Ends the input, completing a bare value that ends with it; a failure when the input ends
    /// inside a value or an array.
    mutating func finish(emit: (Item) -> Void) {
        guard failure == nil, !linesFollow else { return }
        switch phase {
        case .start, .end: break
        case .inItem where inBareValue:
            inBareValue = false
            phase = .end
            emit(item)
        default: fail(JSONSyntax.unexpectedEnd)
        }
    }

    // MARK: Steps

    private mutating func startItem(with byte: UInt8) {
        phase = .inItem
        item = Item(isElement: shape == .array, bytes: [], length: 0, line: line, column: column)
        closers.removeAll(keepingCapacity: true)
        inString = false
        escaped = false
        inBareValue = false
        switch byte {
        case UInt8(ascii: "\""):
            // Opened on the next pass through `.inItem`, which sees the quote.
            break
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            break
        default:
            inBareValue = true
        }
    }

    /// Adds `chunk[start..<end]` to the item, unless it has grown too long to keep.
    private mutating func keep(_ chunk: UnsafeRawBufferPointer, from start: Int, to end: Int) {
        item.length += end - start
        guard item.bytes != nil else { return }
        if item.length > ItemLimits.itemBytes {
            item.bytes = nil
        } else {
            item.bytes!.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[start..<end]))
        }
    }

    /// Counts lines and columns (in characters) over `chunk[start..<end]`.
    private mutating func advance(over chunk: UnsafeRawBufferPointer, from start: Int, to end: Int) {
        for index in start..<end { step(chunk[index]) }
    }

    private mutating func step(_ byte: UInt8) {
        if byte == UInt8(ascii: "\n") {
            line += 1
            column = 1
        } else if byte & 0xC0 != 0x80 {
            column += 1
        }
    }

    private mutating func fail(_ reason: String) {
        failure = (line, column, reason)
    }

    private func isSpace(_ byte: UInt8) -> Bool { BranchUniversalObjectReader.isSpace(byte) }

    private func isDelimiter(_ byte: UInt8) -> Bool {
        isSpace(byte) || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}")
    }
}
