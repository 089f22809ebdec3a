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
    private let vocabulary: [String: Int32]
    let unknown: Int32
    let classification: Int32
    let separator: Int32
    /// The most ids a text gets, [CLS] and [SEP] included.
    let maximumLength: Int

    private static let longestWord = 100

    /// A tokenizer over `vocabulary`, a `vocab.txt`: one piece a line, its id its line's number
    /// from 0.
    init(vocabulary text: String, maximumLength: Int) throws(SearchlightError) {
        var vocabulary: [String: Int32] = [:]
        vocabulary.reserveCapacity(32_768)
        var id: Int32 = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let piece = line.hasSuffix("\r") ? String(line.dropLast()) : String(line)
            if !piece.isEmpty, vocabulary[piece] == nil { vocabulary[piece] = id }
            id += 1
        }
        guard let unknown = vocabulary["[UNK]"], let classification = vocabulary["[CLS]"],
            let separator = vocabulary["[SEP]"]
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
        var piece = ""
        piece.unicodeScalars.append(contentsOf: word)
        return vocabulary[piece] != nil
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
        var pieces: [Int32] = []
        var start = 0
        while start < word.count {
            var end = word.count
            var found: Int32?
            while start < end {
                var piece = start > 0 ? "##" : ""
                piece.unicodeScalars.append(contentsOf: word[start..<end])
                if let id = vocabulary[piece] {
                    found = id
                    break
                }
                end -= 1
            }
            guard let found else {
                ids.append(unknown)
                return
            }
            pieces.append(found)
            start = end
        }
        ids.append(contentsOf: pieces)
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
