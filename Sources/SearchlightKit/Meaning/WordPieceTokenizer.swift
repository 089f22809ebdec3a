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
    private let vocabulary: WordPieceVocabulary
    let unknown: Int32
    let classification: Int32
    let separator: Int32
    /// The most ids a text gets, [CLS] and [SEP] included.
    let maximumLength: Int

    private static let longestWord = 100

    /// Whether the vocabulary's table was read from the kept one given, rather than made.
    let readKeptTable: Bool

    /// A tokenizer over `vocabulary`, a `vocab.txt`: one piece a line, its id its line's number
    /// from 0; its table read from `table` (``tableBytes`` of the same file) when that is one.
    init(vocabulary file: MappedFile, table: MappedFile?, maximumLength: Int) throws(SearchlightError) {
        let kept = table.flatMap { WordPieceVocabulary(file, table: $0) }
        readKeptTable = kept != nil
        let vocabulary = kept ?? WordPieceVocabulary(file)
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

    /// The vocabulary's table, for a process after to read (``init(vocabulary:table:maximumLength:)``).
    var tableBytes: [UInt8] { vocabulary.tableBytes }

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
