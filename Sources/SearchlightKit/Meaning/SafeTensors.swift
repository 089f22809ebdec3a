import FoundationEssentials

/// The float32 tensors of a safetensors file: an 8-byte little-endian header length, a JSON header
/// naming each tensor's type, shape and byte range, then the tensors' bytes. What the header says
/// is kept as a small table (``tableBytes``): a process that maps a kept table
/// (``init(_:table:)``) decodes no JSON, where decoding the header took about 5 % of a search by
/// meaning as a whole process (`JSONDecoder` looks up each generic type's conformances at run
/// time).
final class SafeTensors {
    /// Each tensor's floats, where the file is mapped.
    private(set) var floats: [String: (pointer: UnsafePointer<Float>, count: Int)] = [:]

    private struct Entry: Decodable {
        let dtype: String
        let shape: [Int]
        let offsets: [Int]
        enum CodingKeys: String, CodingKey {
            case dtype, shape
            case offsets = "data_offsets"
        }
    }

    /// A header entry, or nil for the `__metadata__` member (and anything else not a tensor).
    private struct MaybeEntry: Decodable {
        let entry: Entry?
        init(from decoder: any Decoder) throws { entry = try? Entry(from: decoder) }
    }

    /// The tensors of `file`, the safetensors file at `path`, as its header says.
    init(_ file: MappedFile, path: String) throws(SearchlightError) {
        let bytes = file.bytes
        func invalid(_ reason: String) -> SearchlightError {
            SearchlightError(.meaningUnavailable, "The meaning model's \(path) is not a safetensors file: \(reason)")
        }
        guard bytes.count >= 8 else { throw invalid("it is shorter than its header's length") }
        let headerLength = Int(UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)))
        guard headerLength <= bytes.count - 8 else { throw invalid("its header runs past its end") }
        let header: [String: MaybeEntry]
        do {
            header = try JSONDecoder().decode(
                [String: MaybeEntry].self, from: Data(bytes[8..<(8 + headerLength)]))
        } catch {
            throw invalid("its header is not JSON (\(error))")
        }
        let start = 8 + headerLength
        for (name, maybe) in header {
            guard let entry = maybe.entry, entry.dtype == "F32" else { continue }
            guard entry.offsets.count == 2, entry.offsets[0] >= 0, entry.offsets[0] <= entry.offsets[1],
                entry.offsets[1] <= bytes.count - start, (entry.offsets[1] - entry.offsets[0]) % 4 == 0,
                let pointer = Self.floats(in: file, at: start + entry.offsets[0])
            else { throw invalid("the bytes of \(name) are out of place") }
            let count = (entry.offsets[1] - entry.offsets[0]) / 4
            guard count == entry.shape.reduce(1, *) else { throw invalid("\(name)'s shape does not fit its bytes") }
            floats[name] = (pointer, count)
        }
    }

    /// A kept table's first bytes: then the file's length and the count of tensors (64 bits each),
    /// then each tensor's name length, offset in the file and count of floats (64 bits each) and
    /// its name's UTF-8 bytes, native integers.
    private static let magic = Array("SLTENSR1".utf8)

    /// The tensors of `file` as the table kept in `table` (``tableBytes``) says; nil when `table`
    /// is not such a table of a file of `file`'s length, or names bytes outside it or out of line.
    init?(_ file: MappedFile, table: MappedFile) {
        let kept = table.bytes
        var at = 0
        func number() -> Int? {
            guard kept.count - at >= 8 else { return nil }
            defer { at += 8 }
            return Int(exactly: kept.loadUnaligned(fromByteOffset: at, as: UInt64.self))
        }
        guard kept.count >= Self.magic.count, kept.prefix(Self.magic.count).elementsEqual(Self.magic) else {
            return nil
        }
        at = Self.magic.count
        guard number() == file.count, let tensors = number() else { return nil }
        for _ in 0..<tensors {
            guard let length = number(), let offset = number(), let count = number(), length <= kept.count - at,
                offset >= 8, count <= (file.count - offset) / 4, let pointer = Self.floats(in: file, at: offset)
            else { return nil }
            guard let name = String(validating: kept[at..<(at + length)], as: UTF8.self) else { return nil }
            at += length
            floats[name] = (pointer, count)
        }
        guard at == kept.count, floats.count == tensors else { return nil }
    }

    /// What the table kept for these tensors holds (``init(_:table:)``), of `file`, the file read.
    func tableBytes(of file: MappedFile) -> [UInt8] {
        var bytes = Self.magic
        func append(_ number: Int) { withUnsafeBytes(of: UInt64(number)) { bytes += $0 } }
        append(file.count)
        append(floats.count)
        let base = file.bytes.baseAddress!
        for (name, tensor) in floats.sorted(by: { $0.key < $1.key }) {
            append(name.utf8.count)
            append(UnsafeRawPointer(tensor.pointer) - base)
            append(tensor.count)
            bytes += name.utf8
        }
        return bytes
    }

    /// The floats at `offset` in `file`, when they are aligned as floats are.
    private static func floats(in file: MappedFile, at offset: Int) -> UnsafePointer<Float>? {
        guard let base = file.bytes.baseAddress, offset >= 0, offset <= file.count else { return nil }
        let pointer = base + offset
        guard Int(bitPattern: pointer) % MemoryLayout<Float>.alignment == 0 else { return nil }
        return pointer.assumingMemoryBound(to: Float.self)
    }
}
