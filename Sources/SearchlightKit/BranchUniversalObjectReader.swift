public import Foundation

/// One BUO read from an input, with where it was.
public struct DecodedObject: Sendable, Hashable {
    public var object: BranchUniversalObject
    /// The item's own `domain` key, as `export` writes it.
    public var domain: String?
    /// The 1-based position of the item in its file.
    public var item: Int
    /// The 1-based line, for JSON Lines.
    public var line: Int?

    public init(object: BranchUniversalObject, domain: String? = nil, item: Int, line: Int? = nil) {
        self.object = object
        self.domain = domain
        self.item = item
        self.line = line
    }
}

/// Everything read from one input file: its objects and its rejections.
public struct DecodedInput: Sendable, Hashable {
    public var path: String
    public var objects: [DecodedObject] = []
    public var rejections: [SearchlightError] = []

    public init(path: String) { self.path = path }
}

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

    /// Expands the command-line inputs: files stay, directories are walked recursively (sorted,
    /// hidden entries skipped) for `.json`, `.jsonl` and `.ndjson` files, and `-` stays.
    ///
    /// - Throws: ``SearchlightError/Code/unreadableInput`` for a path that does not exist.
    public static func inputFiles(for paths: [String]) throws(SearchlightError) -> [String] {
        var files: [String] = []
        let manager = FileManager.default
        for path in paths {
            if path == "-" {
                files.append(path)
                continue
            }
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw SearchlightError(.unreadableInput, "No such file or directory: \(path)", path: path)
            }
            guard isDirectory.boolValue else {
                files.append(path)
                continue
            }
            let root = URL(fileURLWithPath: path)
            guard
                let walker = manager.enumerator(
                    at: root, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
            else {
                throw SearchlightError(.unreadableInput, "Cannot read the directory \(path)", path: path)
            }
            var found: [String] = []
            for case let url as URL in walker where fileExtensions.contains(url.pathExtension.lowercased()) {
                if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                    found.append(url.path)
                }
            }
            files += found.sorted()
        }
        return files
    }

    /// True for a file named as JSON Lines (`.jsonl`, `.ndjson`).
    public static func isLines(path: String) -> Bool {
        let lowered = path.lowercased()
        return lowered.hasSuffix(".jsonl") || lowered.hasSuffix(".ndjson")
    }

    /// Reads and decodes one file (`-` for standard input). An unreadable file gives one rejection.
    public static func read(path: String) -> DecodedInput {
        let data: Data
        do {
            if path == "-" {
                data = FileHandle.standardInput.readDataToEndOfFile()
            } else {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            }
        } catch {
            var input = DecodedInput(path: path)
            input.rejections.append(
                SearchlightError(
                    .unreadableInput, "Cannot read the file: \(error.localizedDescription)", path: path))
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
                    "\(subject(input.path)) is not valid JSON: \(location.reason); nothing in it was indexed",
                    path: input.path, line: location.line, column: location.column))
        }
    }

    /// How messages name an input.
    private static func subject(_ path: String) -> String {
        switch path {
        case "-": "Standard input"
        case "request body": "The request body"
        default: "The file"
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
                    "The file holds \(value.typeDescription); expected a BUO object, an array of objects, or JSON Lines",
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
    private static func decodeLine(
        _ line: Data.SubSequence, number lineNumber: Int, item: inout Int, into input: inout DecodedInput
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
        } catch {
            let location = syntaxErrorLocation(in: line)
            input.rejections.append(
                SearchlightError(
                    .invalidJSON, "The line is not valid JSON: \(location.reason); the other lines were read",
                    path: input.path, item: item, line: lineNumber, column: location.column))
        }
    }

    /// Reads a JSON Lines file in pieces of about `piece` lines, handing each to `body` as it is
    /// decoded, so that a file of any size is read in bounded memory. A second thread reads and
    /// decodes at most two pieces ahead of `body`, which runs on the calling thread. Item
    /// positions and line numbers run on across pieces. An unreadable file gives one piece
    /// holding its rejection. If `body` throws, reading stops and the error is rethrown.
    ///
    /// ```swift
    /// try BranchUniversalObjectReader.readLines(path: "items.jsonl") { piece in store(piece) }
    /// ```
    public static func readLines<E: Error>(
        path: String, piece: Int = 2_000, _ body: (DecodedInput) throws(E) -> Void
    ) throws(E) {
        let pieces = PieceQueue(capacity: 2)
        let reader = Thread {
            decodeLines(path: path, piece: piece) { pieces.put($0) }
            pieces.finish()
        }
        reader.start()
        defer {
            pieces.cancel()
            pieces.waitUntilFinished()
        }
        while let next = pieces.take() { try body(next) }
    }

    /// Reads and decodes the file, calling `emit` with each piece; `emit` returns false to stop.
    private static func decodeLines(path: String, piece: Int, emit: (DecodedInput) -> Bool) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            var input = DecodedInput(path: path)
            input.rejections.append(SearchlightError(.unreadableInput, "Cannot read the file", path: path))
            _ = emit(input)
            return
        }
        defer { try? handle.close() }
        var input = DecodedInput(path: path)
        var pending = Data()
        var item = 0
        var lineNumber = 0
        var lines = 0
        var atStart = true
        while true {
            let block: Data
            do {
                block = try handle.read(upToCount: 1 << 20) ?? Data()
            } catch {
                input.rejections.append(
                    SearchlightError(
                        .unreadableInput, "Cannot read the file: \(error.localizedDescription)", path: path))
                break
            }
            if block.isEmpty { break }
            pending.append(block)
            if atStart, pending.count >= 3 {
                if pending.starts(with: [0xEF, 0xBB, 0xBF]) { pending.removeFirst(3) }
                atStart = false
            }
            var start = pending.startIndex
            while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                lineNumber += 1
                decodeLine(pending[start..<newline], number: lineNumber, item: &item, into: &input)
                start = pending.index(after: newline)
                lines += 1
                if lines >= piece {
                    guard emit(input) else { return }
                    input = DecodedInput(path: path)
                    lines = 0
                }
            }
            pending.removeSubrange(pending.startIndex..<start)
        }
        if !pending.isEmpty {
            lineNumber += 1
            decodeLine(pending[...], number: lineNumber, item: &item, into: &input)
        }
        _ = emit(input)
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

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

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

/// Decoded pieces handed from the reading thread to the indexing one, at most `capacity` waiting.
private final class PieceQueue: @unchecked Sendable {
    // Every field is guarded by `condition`.
    private let condition = NSCondition()
    private var pieces: [DecodedInput] = []
    private let capacity: Int
    private var finished = false
    private var cancelled = false

    init(capacity: Int) { self.capacity = capacity }

    /// Waits for room, then adds a piece; returns false once the consumer has gone.
    func put(_ piece: DecodedInput) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while pieces.count >= capacity, !cancelled { condition.wait() }
        guard !cancelled else { return false }
        pieces.append(piece)
        condition.broadcast()
        return true
    }

    /// The next piece, or nil when the producer has finished and nothing is left.
    func take() -> DecodedInput? {
        condition.lock()
        defer { condition.unlock() }
        while pieces.isEmpty, !finished { condition.wait() }
        guard !pieces.isEmpty else { return nil }
        condition.broadcast()
        return pieces.removeFirst()
    }

    /// Called by the producer when it has put its last piece.
    func finish() {
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Called by the consumer when it stops taking: the producer stops at its next piece.
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    func waitUntilFinished() {
        condition.lock()
        while !finished { condition.wait() }
        condition.unlock()
    }
}
