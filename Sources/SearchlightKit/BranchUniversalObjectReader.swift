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
    public static func read(path: String) -> DecodedInput {
        let data: Data
        do {
            if path == "-" {
                data = try readStandardInput()
            } else {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            }
        } catch {
            var input = DecodedInput(path: path)
            input.rejections.append(
                SearchlightError(
                    .unreadableInput, "Cannot read the file: \(FileSystem.describe(error))", path: path))
            return input
        }
        let format: Format = isLines(path: path) ? .lines : .automatic
        return decode(data, path: path, format: format)
    }

    /// Decodes BUO input held in memory; `path` names it in errors.
    public static func decode(_ data: Data, path: String, format: Format = .automatic) -> DecodedInput {
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        var input = DecodedInput(path: path)
        let firstByte = bytes.first { !isSpace($0) }
        guard let firstByte else {
            if format != .lines {
                input.rejections.append(
                    SearchlightError(
                        .invalidJSON,
                        "The input is empty; expected a BUO object, an array of objects, or JSON Lines",
                        path: path))
            }
            return input
        }
        switch format {
        case .lines:
            decodeLines(bytes, into: &input)
        case .document:
            decodeDocument(bytes, into: &input)
        case .automatic:
            // A document unless it fails to parse as one and its first line is an object on its own.
            if firstByte == UInt8(ascii: "{"), let value = try? parse(bytes) {
                addDocument(value, into: &input)
            } else if firstByte == UInt8(ascii: "{"), looksLikeLines(bytes) {
                decodeLines(bytes, into: &input)
            } else {
                decodeDocument(bytes, into: &input)
            }
        }
        return input
    }

    // MARK: Documents

    private static func decodeDocument(_ bytes: Data.SubSequence, into input: inout DecodedInput) {
        do {
            addDocument(try parse(bytes), into: &input)
        } catch {
            let location = syntaxErrorLocation(in: bytes)
            input.rejections.append(
                SearchlightError(
                    .invalidJSON,
                    "The input is not valid JSON: \(location.reason); nothing in it was indexed",
                    path: input.path, line: location.line, column: location.column))
        }
    }

    private static func addDocument(_ value: JSONValue, into input: inout DecodedInput) {
        switch value {
        case .object(let object):
            add(object, item: 1, line: nil, into: &input)
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                guard case .object(let object) = element else {
                    input.rejections.append(
                        SearchlightError(
                            .notAnObject,
                            "Array element is \(element.typeDescription), not a BUO object",
                            path: input.path, item: index + 1))
                    continue
                }
                add(object, item: index + 1, line: nil, into: &input)
            }
        default:
            input.rejections.append(
                SearchlightError(
                    .notAnObject,
                    "The input holds \(value.typeDescription); expected a BUO object, an array of objects, or JSON Lines",
                    path: input.path))
        }
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

    private static func looksLikeLines(_ bytes: Data.SubSequence) -> Bool {
        let lines = bytes.split(separator: UInt8(ascii: "\n")).filter { $0.contains(where: { !isSpace($0) }) }
        guard lines.count > 1, let first = lines.first, case .object = try? parse(first) else { return false }
        return true
    }

    // MARK: Objects

    private static func add(_ object: [String: JSONValue], item: Int, line: Int?, into input: inout DecodedInput) {
        do {
            var domain: String?
            switch object["domain"] {
            case nil, .null?: domain = nil
            case .string(let name)?: domain = name
            case let other?:
                throw FieldError(
                    code: .invalidField, message: "\"domain\" must be a string, not \(other.typeDescription)")
            }
            let decoded = try BranchUniversalObject(json: object)
            input.objects.append(DecodedObject(object: decoded, domain: domain, item: item, line: line))
        } catch let error as FieldError {
            input.rejections.append(
                SearchlightError(error.code, error.message, path: input.path, item: item, line: line))
        } catch {
            input.rejections.append(
                SearchlightError(.internalError, "\(error)", path: input.path, item: item, line: line))
        }
    }

    private static func parse(_ bytes: Data.SubSequence) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
