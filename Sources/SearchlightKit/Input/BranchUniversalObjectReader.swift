public import FoundationEssentials

/// Reads BUO input: one JSON object, a JSON array of objects, or JSON Lines.
///
/// A syntax error rejects a whole JSON document with its line and column; in JSON Lines a broken
/// line rejects that line only. An item that cannot be read is rejected with its position and the
/// other items are kept.
///
/// ```swift
/// let input = BranchUniversalObjectReader.read(path: "corpus/articles.json")
/// for rejection in input.rejections { print(rejection) }
/// ```
public enum BranchUniversalObjectReader {
    /// How to split an input into objects.
    public enum Format: Sendable {
        /// JSON Lines for `.jsonl` and `.ndjson`; otherwise a JSON document, or JSON Lines when
        /// the content is several lines that are each a JSON object.
        case automatic
        case document
        case lines
    }

    /// The file extensions read when walking a directory.
    public static let fileExtensions: Set<String> = ["json", "jsonl", "ndjson"]

    /// All of standard input, for front ends that read it themselves (a list of identifiers).
    ///
    /// - Throws: ``SearchlightError/Code/unreadableInput`` when reading fails.
    public static func readStandardInput() throws(SearchlightError) -> Data {
        try FileReader.standardInput().readToEnd()
    }

    /// Reads and decodes one file (`-` for standard input). An unreadable file gives one rejection.
    ///
    /// The file is read in bounded memory (`read(path:piece:filter:emit:)`); what is kept is
    /// its decoded items.
    public static func read(path: String) -> DecodedInput {
        var whole = DecodedInput(path: path)
        read(path: path, piece: 2_000) { piece in
            whole.source = piece.source
            whole.objects += piece.objects
            whole.rejections += piece.rejections
            return true
        }
        return whole
    }

    /// Decodes BUO input held in memory; `path` names it in errors.
    public static func decode(_ data: Data, path: String, format: Format = .automatic) -> DecodedInput {
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        var input = DecodedInput(path: path)
        if format == .lines {
            decodeLines(bytes, into: &input)
            return input
        }
        var splitter = JSONDocumentSplitter(allowingLines: format == .automatic)
        var document = DocumentReading(path: path)
        let add = { (item: JSONDocumentSplitter.Item) in
            if document.failure == nil { document.add(item, into: &input) }
        }
        bytes.withUnsafeBytes { splitter.feed($0, emit: add) }
        splitter.finish(emit: add)
        if splitter.linesFollow {
            input = DecodedInput(path: path)
            decodeLines(bytes, into: &input)
            return input
        }
        if let failure = document.failure ?? splitter.failure {
            input = DecodedInput(path: path)
            input.rejections.append(syntaxError(failure, path: path))
        } else if splitter.shape == .empty {
            input.rejections.append(emptyInput(path: path))
        }
        return input
    }

    // MARK: Documents

    /// What reading a document's items has found: its items counted, and its first broken one.
    struct DocumentReading {
        var path: String
        var count = 0
        var failure: (line: Int, column: Int, reason: String)?

        /// Decodes one item of the document into `input`; a broken one sets `failure` instead.
        mutating func add(_ item: JSONDocumentSplitter.Item, into input: inout DecodedInput) {
            count += 1
            guard let bytes = item.bytes else {
                input.rejections.append(oversized(bytes: item.length, path: path, item: count, line: item.line))
                return
            }
            let value: JSONValue
            do {
                value = try parse(bytes[...])
            } catch {
                // Located in the document: the item's own position, then the place in the item.
                let location = syntaxErrorLocation(in: Data(bytes)[...])
                let line = location.line ?? 1
                let column = location.column ?? 1
                failure = (
                    item.line + line - 1, line == 1 ? item.column + column - 1 : column, location.reason
                )
                return
            }
            switch (item.isElement, value) {
            case (true, .object(let object)):
                BranchUniversalObjectReader.add(object, item: count, line: nil, into: &input)
            case (true, _):
                input.rejections.append(
                    SearchlightError(
                        .notAnObject, "Array element is \(value.typeDescription), not a BUO object",
                        path: path, item: count))
            case (_, .object(let object)):
                BranchUniversalObjectReader.add(object, item: 1, line: nil, into: &input)
            default:
                input.rejections.append(
                    SearchlightError(
                        .notAnObject,
                        "The input holds \(value.typeDescription); expected a BUO object, an array of objects, "
                            + "or JSON Lines",
                        path: path))
            }
        }
    }

    static func syntaxError(_ failure: (line: Int, column: Int, reason: String), path: String) -> SearchlightError {
        SearchlightError(
            .invalidJSON, "The input is not valid JSON: \(failure.reason); nothing in it was indexed",
            path: path, line: failure.line, column: failure.column)
    }

    static func emptyInput(path: String) -> SearchlightError {
        SearchlightError(
            .invalidJSON, "The input is empty; expected a BUO object, an array of objects, or JSON Lines", path: path)
    }

    // MARK: JSON Lines

    private static func decodeLines(_ bytes: Data.SubSequence, into input: inout DecodedInput) {
        var item = 0
        var lineNumber = 0
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            decodeLine(line, number: lineNumber, item: &item, into: &input)
        }
    }

    /// Decodes one line of JSON Lines; a blank line is skipped, a bad one rejected alone.
    static func decodeLine(
        _ line: Data.SubSequence, number lineNumber: Int, item: inout Int, into input: inout DecodedInput,
        lineDigest: UInt64? = nil
    ) {
        guard line.contains(where: { !isSpace($0) }) else { return }
        item += 1
        guard line.count <= ItemLimits.itemBytes else {
            input.rejections.append(oversized(bytes: line.count, path: input.path, item: item, line: lineNumber))
            return
        }
        do {
            let value = try parse(line)
            guard case .object(let object) = value else {
                input.rejections.append(
                    SearchlightError(
                        .notAnObject, "The line holds \(value.typeDescription), not a BUO object",
                        path: input.path, item: item, line: lineNumber))
                return
            }
            add(object, item: item, line: lineNumber, into: &input)
            if let lineDigest, input.objects.last?.item == item {
                input.objects[input.objects.count - 1].lineDigest = lineDigest
            }
        } catch {
            let location = syntaxErrorLocation(in: line)
            input.rejections.append(
                SearchlightError(
                    .invalidJSON, "The line is not valid JSON: \(location.reason); the other lines were read",
                    path: input.path, item: item, line: lineNumber, column: location.column))
        }
    }

    /// The rejection of an item whose JSON is `bytes` long, over ``ItemLimits/itemBytes``.
    static func oversized(bytes: Int, path: String, item: Int, line: Int?) -> SearchlightError {
        SearchlightError(
            .itemTooLarge,
            ItemLimits.overItemBytes("The item's JSON is \(ItemLimits.describe(bytes))")
                + "; the other items were read",
            path: path, item: item, line: line)
    }

    // MARK: Objects

    static func add(_ object: [String: JSONValue], item: Int, line: Int?, into input: inout DecodedInput) {
        do throws(FieldError) {
            let domain = try envelopeString("domain", of: object)
            let source = try envelopeString("source", of: object)
            let decoded = try BranchUniversalObject(json: object)
            input.objects.append(
                DecodedObject(
                    object: decoded, domain: domain, source: source?.isEmpty == false ? source : nil, item: item,
                    line: line))
        } catch {
            input.rejections.append(
                SearchlightError(error.code, error.message, path: input.path, item: item, line: line))
        }
    }

    /// One of ``BranchUniversalObject/envelopeKeys``, which `export` writes: a string, or nil.
    private static func envelopeString(_ key: String, of object: [String: JSONValue]) throws(FieldError) -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case let other?:
            throw FieldError(code: .invalidField, message: "\"\(key)\" must be a string, not \(other.typeDescription)")
        }
    }

    static func parse(_ bytes: ArraySlice<UInt8>) throws -> JSONValue { try decodeJSON(Data(bytes)) }

    static func parse(_ bytes: Data.SubSequence) throws -> JSONValue { try decodeJSON(Data(bytes)) }

    /// Decodes JSON text; where an object repeats a key, the last occurrence counts.
    private static func decodeJSON(_ data: Data) throws -> JSONValue {
        let value = try JSONDecoder().decode(JSONValue.self, from: data)
        let members = data.withUnsafeBytes { JSONDuplicateKeys.memberCount(in: $0) }
        guard members > JSONDuplicateKeys.keyCount(in: value) else { return value }
        return try JSONDecoder().decode(JSONValue.self, from: Data(JSONDuplicateKeys.keepingLast(Array(data))))
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
