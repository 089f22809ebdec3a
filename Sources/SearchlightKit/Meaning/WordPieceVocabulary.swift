/// A `vocab.txt`'s pieces, found by their UTF-8 bytes: an open-addressed table of ids over the
/// file's bytes, made without a string for each of its 30,000 lines (a dictionary of strings took a
/// quarter of a search's whole process). The table is made once and kept (``tableBytes``): a
/// process that maps a kept table (``init(_:table:)``) makes nothing, where making it took about
/// 6 % of a search by meaning as a whole process.
struct WordPieceVocabulary: @unchecked Sendable {
    /// What holds the bytes below: the mapped files, or the table made here. Nothing writes them,
    /// which is what makes the `@unchecked Sendable` true.
    private let owners: [AnyObject]
    private let text: UnsafeBufferPointer<UInt8>
    /// Where each line starts in `text`, and one past the last line's end.
    private let lineStarts: UnsafeBufferPointer<Int32>
    /// Each slot an id plus one, 0 when empty; a power of two, at least twice the lines.
    private let slots: UnsafeBufferPointer<Int32>

    /// The memory of a table made here.
    private final class Made {
        let storage: UnsafeMutableBufferPointer<Int32>
        init(count: Int) {
            storage = .allocate(capacity: count)
            storage.initialize(repeating: 0)
        }
        deinit { storage.deallocate() }
    }

    /// A kept table's first bytes: then the count of lines and of slots (32 bits each), the text's
    /// length (64 bits), the line starts and the slots, native 32-bit integers.
    private static let magic = Array("SLVOCAB1".utf8)
    private static let headerSize = 24

    /// The table made over `file`, a `vocab.txt` kept mapped for as long as the table lives.
    init(_ file: MappedFile) {
        let bytes = file.bytes.bindMemory(to: UInt8.self)
        var starts: [Int32] = [0]
        starts.reserveCapacity(32_768)
        for offset in bytes.indices where bytes[offset] == UInt8(ascii: "\n") { starts.append(Int32(offset + 1)) }
        if starts.last != Int32(bytes.count) { starts.append(Int32(bytes.count) + 1) }
        let lines = starts.count - 1
        var size = 1
        while size < 2 * max(lines, 1) { size <<= 1 }
        let made = Made(count: starts.count + size)
        _ = made.storage.initialize(from: starts)
        let lineStarts = UnsafeBufferPointer(rebasing: made.storage[0..<starts.count])
        let slots = UnsafeMutableBufferPointer(rebasing: made.storage[starts.count...])
        for line in 0..<lines {
            let piece = Self.line(line, of: bytes, starts: lineStarts)
            guard !piece.isEmpty else { continue }
            var slot = Self.hash(piece, inWord: false) & (size - 1)
            while slots[slot] != 0 {
                // A piece listed twice keeps its first id.
                if Self.line(Int(slots[slot] - 1), of: bytes, starts: lineStarts).elementsEqual(piece) { break }
                slot = (slot + 1) & (size - 1)
            }
            if slots[slot] == 0 { slots[slot] = Int32(line + 1) }
        }
        owners = [file, made]
        text = bytes
        self.lineStarts = lineStarts
        self.slots = UnsafeBufferPointer(slots)
    }

    /// The table kept in `table` (``tableBytes``) over `file`, the `vocab.txt` it was made of; nil
    /// when `table` is not such a table over a text of `file`'s length, points outside it, or
    /// takes more slots than it has lines.
    init?(_ file: MappedFile, table: MappedFile) {
        let kept = table.bytes
        guard kept.count >= Self.headerSize, kept.prefix(8).elementsEqual(Self.magic) else { return nil }
        let lines = Int(kept.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        let size = Int(kept.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
        let length = kept.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
        guard length == UInt64(file.count), size > 0, size & (size - 1) == 0, size >= 2 * lines,
            kept.count == Self.headerSize + 4 * (lines + 1 + size)
        else { return nil }
        let numbers = UnsafeRawBufferPointer(rebasing: kept[Self.headerSize...]).bindMemory(to: Int32.self)
        let lineStarts = UnsafeBufferPointer(rebasing: numbers[0..<(lines + 1)])
        let slots = UnsafeBufferPointer(rebasing: numbers[(lines + 1)...])
        // Every line within the text, every slot a line or none, and no more slots taken than there
        // are lines (an empty slot ends every look-up): a damaged table is never read past its
        // text, nor searched for ever.
        var previous: Int32 = -1
        for start in lineStarts {
            guard start > previous, Int(start) <= file.count + 1 else { return nil }
            previous = start
        }
        var taken = 0
        for slot in slots {
            guard slot >= 0, Int(slot) <= lines else { return nil }
            if slot != 0 { taken += 1 }
        }
        guard lineStarts.first == 0, taken <= lines else { return nil }
        owners = [file, table]
        text = file.bytes.bindMemory(to: UInt8.self)
        self.lineStarts = lineStarts
        self.slots = slots
    }

    /// The table as a kept file holds it (``init(_:table:)``).
    var tableBytes: [UInt8] {
        var bytes = Self.magic
        bytes.reserveCapacity(Self.headerSize + 4 * (lineStarts.count + slots.count))
        withUnsafeBytes(of: UInt32(lineStarts.count - 1)) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(slots.count)) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt64(text.count)) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: UnsafeRawBufferPointer(lineStarts))
        bytes.append(contentsOf: UnsafeRawBufferPointer(slots))
        return bytes
    }

    /// The id of `piece`, written as in the file.
    func id(of piece: String) -> Int32? {
        var piece = piece
        return piece.withUTF8 { id(of: $0, inWord: false) }
    }

    /// The id of `bytes` as a piece that starts a word, or (`inWord`) as one inside a word, which
    /// the file writes after `##`.
    func id(of bytes: UnsafeBufferPointer<UInt8>, inWord: Bool) -> Int32? {
        let mask = slots.count - 1
        var slot = Self.hash(bytes, inWord: inWord) & mask
        while true {
            let entry = slots[slot]
            if entry == 0 { return nil }
            var line = Self.line(Int(entry - 1), of: text, starts: lineStarts)
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
