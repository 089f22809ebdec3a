@_spi(_Unicode) import Swift

/// BERT's uncased tokenizer, as the model's `tokenizer.json` describes it: the text cleaned of
/// control characters, CJK ideographs split apart, accents stripped (canonical decomposition
/// without its non-spacing marks) and lower-cased; then split at white space and punctuation; then
/// each word split greedily into the longest pieces the vocabulary has (`##` marking a piece
/// inside a word), a word it cannot split, or one longer than 100 characters, being `[UNK]`.
///
/// Its ids equal those of Hugging Face's `tokenizers` for the same vocabulary
/// (`Tests/fixtures/embedding/reference.json`).
struct WordPieceTokenizer: Sendable {
    private let vocabulary: Vocabulary
    let unknown: Int32
    let classification: Int32
    let separator: Int32
    /// The most ids a text gets, [CLS] and [SEP] included.
    let maximumLength: Int

    private static let longestWord = 100

    /// A tokenizer over `vocabulary`, a `vocab.txt`: one piece a line, its id its line's number
    /// from 0.
    init(vocabulary text: UnsafeRawBufferPointer, maximumLength: Int) throws(SearchlightError) {
        let vocabulary = Vocabulary(text)
        guard let unknown = vocabulary.id(of: "[UNK]"), let classification = vocabulary.id(of: "[CLS]"),
            let separator = vocabulary.id(of: "[SEP]")
        else {
            throw SearchlightError(
                .internalError, "The model's vocabulary has no [UNK], [CLS] or [SEP]: it is not a BERT vocabulary")
        }
        self.vocabulary = vocabulary
        self.unknown = unknown
        self.classification = classification
        self.separator = separator
        self.maximumLength = max(2, maximumLength)
    }

    /// The ids of `text`: [CLS], its pieces (as many as fit), [SEP].
    func ids(_ text: String) -> [Int32] {
        var ids: [Int32] = [classification]
        let room = maximumLength - 1
        for word in Self.words(of: text) {
            appendPieces(of: word, to: &ids)
            if ids.count >= room { break }
        }
        if ids.count > room { ids.removeLast(ids.count - room) }
        ids.append(separator)
        return ids
    }

    /// Whether the vocabulary holds `word` (one of ``words(of:)``) whole, as one piece.
    func holdsWhole(_ word: [Unicode.Scalar]) -> Bool {
        var bytes: [UInt8] = []
        for scalar in word { bytes.append(contentsOf: UTF8.encode(scalar)!) }
        return bytes.withUnsafeBufferPointer { vocabulary.id(of: $0, inWord: false) } != nil
    }

    /// The words of `text`, normalized as BERT's normalizer does and split as its pre-tokenizer does.
    static func words(of text: String) -> [[Unicode.Scalar]] {
        var words: [[Unicode.Scalar]] = []
        var word: [Unicode.Scalar] = []
        func endWord() {
            if !word.isEmpty { words.append(word) }
            word.removeAll(keepingCapacity: true)
        }
        for scalar in text._nfd {
            let properties = scalar.properties
            // Cleaning drops NUL, U+FFFD and control characters other than tab and line ends
            // (joining what they stood between); the pre-tokenizer splits at white space.
            if scalar.value == 0 || scalar.value == 0xFFFD { continue }
            if isControl(scalar), scalar != "\t", scalar != "\n", scalar != "\r" { continue }
            if properties.isWhitespace {
                endWord()
                continue
            }
            if properties.generalCategory == .nonspacingMark { continue }
            if isIdeograph(scalar) || isPunctuation(scalar) {
                endWord()
                words.append([scalar])
                continue
            }
            for lower in properties.lowercaseMapping.unicodeScalars {
                // A letter that lower-cases to several (İ to i and a dot above) loses its marks too.
                if lower.properties.generalCategory != .nonspacingMark { word.append(lower) }
            }
        }
        endWord()
        return words
    }

    private func appendPieces(of word: [Unicode.Scalar], to ids: inout [Int32]) {
        guard word.count <= Self.longestWord else {
            ids.append(unknown)
            return
        }
        // The word's UTF-8 bytes, and where each of its scalars starts in them.
        var bytes: [UInt8] = []
        var starts: [Int] = []
        starts.reserveCapacity(word.count + 1)
        for scalar in word {
            starts.append(bytes.count)
            bytes.append(contentsOf: UTF8.encode(scalar)!)
        }
        starts.append(bytes.count)
        var pieces: [Int32] = []
        let found: Bool = bytes.withUnsafeBufferPointer { bytes in
            var start = 0
            while start < word.count {
                var end = word.count
                var id: Int32?
                while start < end {
                    let piece = UnsafeBufferPointer(rebasing: bytes[starts[start]..<starts[end]])
                    if let known = vocabulary.id(of: piece, inWord: start > 0) {
                        id = known
                        break
                    }
                    end -= 1
                }
                guard let id else { return false }
                pieces.append(id)
                start = end
            }
            return true
        }
        if found { ids.append(contentsOf: pieces) } else { ids.append(unknown) }
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .unassigned, .privateUse, .surrogate: true
        default: false
        }
    }

    private static func isPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if (33...47).contains(value) || (58...64).contains(value) || (91...96).contains(value)
            || (123...126).contains(value)
        {
            return true
        }
        switch scalar.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
            .initialPunctuation, .finalPunctuation, .otherPunctuation:
            return true
        default:
            return false
        }
    }

    /// The CJK Unified Ideographs and their extensions and compatibility forms, which BERT's
    /// normalizer sets apart as words of their own.
    private static func isIdeograph(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x4E00...0x9FFF, 0x3400...0x4DBF, 0x20000...0x2A6DF, 0x2A700...0x2B73F, 0x2B740...0x2B81F,
            0x2B820...0x2CEAF, 0xF900...0xFAFF, 0x2F800...0x2FA1F:
            true
        default:
            false
        }
    }
}

/// A `vocab.txt`'s pieces, found by their UTF-8 bytes: an open-addressed table of ids over a copy of
/// the file's bytes, made without a string for each of its 30,000 lines (a dictionary of strings
/// took a quarter of a search's whole process).
private struct Vocabulary: Sendable {
    private let text: [UInt8]
    /// Where each line starts in `text`, and one past the last line's end.
    private let lineStarts: [Int32]
    /// Each slot an id plus one, 0 when empty; a power of two, at least twice the lines.
    private let slots: [Int32]

    init(_ bytes: UnsafeRawBufferPointer) {
        text = Array(bytes)
        var starts: [Int32] = [0]
        starts.reserveCapacity(32_768)
        text.withUnsafeBufferPointer { text in
            for offset in text.indices where text[offset] == UInt8(ascii: "\n") { starts.append(Int32(offset + 1)) }
        }
        if starts.last != Int32(text.count) { starts.append(Int32(text.count) + 1) }
        lineStarts = starts
        let lines = starts.count - 1
        var size = 1
        while size < 2 * max(lines, 1) { size <<= 1 }
        var slots = [Int32](repeating: 0, count: size)
        text.withUnsafeBufferPointer { text in
            starts.withUnsafeBufferPointer { starts in
                slots.withUnsafeMutableBufferPointer { slots in
                    for line in 0..<lines {
                        let piece = Self.line(line, of: text, starts: starts)
                        guard !piece.isEmpty else { continue }
                        var slot = Self.hash(piece, inWord: false) & (size - 1)
                        while slots[slot] != 0 {
                            // A piece listed twice keeps its first id.
                            if Self.line(Int(slots[slot] - 1), of: text, starts: starts).elementsEqual(piece) { break }
                            slot = (slot + 1) & (size - 1)
                        }
                        if slots[slot] == 0 { slots[slot] = Int32(line + 1) }
                    }
                }
            }
        }
        self.slots = slots
    }

    /// The id of `piece`, written as in the file.
    func id(of piece: String) -> Int32? {
        var piece = piece
        return piece.withUTF8 { id(of: $0, inWord: false) }
    }

    /// The id of `bytes` as a piece that starts a word, or (`inWord`) as one inside a word, which
    /// the file writes after `##`.
    func id(of bytes: UnsafeBufferPointer<UInt8>, inWord: Bool) -> Int32? {
        text.withUnsafeBufferPointer { text in
            let mask = slots.count - 1
            var slot = Self.hash(bytes, inWord: inWord) & mask
            while true {
                let entry = slots[slot]
                if entry == 0 { return nil }
                var line = lineStarts.withUnsafeBufferPointer { Self.line(Int(entry - 1), of: text, starts: $0) }
                if inWord {
                    if line.count == bytes.count + 2, line[0] == Self.mark, line[1] == Self.mark {
                        line = UnsafeBufferPointer(rebasing: line[2...])
                        if line.elementsEqual(bytes) { return entry - 1 }
                    }
                } else if line.elementsEqual(bytes) {
                    return entry - 1
                }
                slot = (slot + 1) & mask
            }
        }
    }

    private static let mark = UInt8(ascii: "#")

    /// Line `line`'s bytes, without its line end.
    private static func line(_ line: Int, of text: UnsafeBufferPointer<UInt8>, starts: UnsafeBufferPointer<Int32>)
        -> UnsafeBufferPointer<UInt8>
    {
        let start = Int(starts[line])
        var end = Int(starts[line + 1]) - 1
        if end > start, text[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        return UnsafeBufferPointer(rebasing: text[start..<end])
    }

    /// FNV-1a over the piece's bytes as the file writes them (`##` first, `inWord`).
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>, inWord: Bool) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        if inWord {
            for _ in 0..<2 { hash = (hash ^ UInt64(mark)) &* 0x100_0000_01b3 }
        }
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(truncatingIfNeeded: hash ^ (hash >> 32))
    }
}
