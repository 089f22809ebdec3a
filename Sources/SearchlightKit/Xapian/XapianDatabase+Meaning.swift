internal import CXapian
import FoundationEssentials

// Items' vectors of meaning, kept as values (CX_SLOT_MEANING).

extension XapianDatabase {
    /// The metadata key naming the model that made the index's vectors (``MeaningModel/name``).
    static let meaningModelKey = "searchlight.meaning.model"

    /// How many items the index holds, how many have a vector of meaning, and the storage position
    /// after its last item (where the items written next begin).
    func meaningCounts() throws(SearchlightError) -> (items: Int, withMeaning: Int, end: UInt32) {
        let handle = try open()
        var items: UInt64 = 0
        var withMeaning: UInt64 = 0
        var end: UInt32 = 0
        try check { error in cx_database_meaning_counts(handle, &items, &withMeaning, &end, error) }
        return (Int(items), Int(withMeaning), end)
    }

    /// The model the index records for its vectors, or nil when it records none.
    func meaningModel() throws(SearchlightError) -> String? {
        let recorded = try metadata(Self.meaningModelKey)
        return recorded.isEmpty ? nil : recorded
    }

    /// Records `name` as the model of the index's vectors (nil: none), in the writer's transaction.
    func setMeaningModel(_ name: String?) throws(SearchlightError) {
        try setMetadata(Self.meaningModelKey, name ?? "")
    }

    /// One item's vector, for ``setMeaning(_:)``.
    struct Meaning: Sendable, Codable {
        /// The item's storage position and content digest when its text was read: the vector is
        /// not stored on an item rewritten since.
        var position: UInt32
        var digest: UInt64
        /// Empty for an item in a language the model does not read: it is marked as needing none.
        var vector: [Float]

        init(position: UInt32, digest: UInt64, vector: [Float]) {
            self.position = position
            self.digest = digest
            self.vector = vector
        }

        // A batch's journal keeps a vector as its floats' bytes (Base64 in JSON): a quarter of
        // its numbers written out.
        private enum CodingKeys: String, CodingKey { case position, digest, vector }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            position = try container.decode(UInt32.self, forKey: .position)
            digest = try container.decode(UInt64.self, forKey: .digest)
            let bytes = try container.decode(Data.self, forKey: .vector)
            guard bytes.count % MemoryLayout<Float>.size == 0 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .vector, in: container, debugDescription: "\(bytes.count) bytes are no vector of floats")
            }
            var vector = [Float](repeating: 0, count: bytes.count / MemoryLayout<Float>.size)
            _ = vector.withUnsafeMutableBytes { bytes.copyBytes(to: $0) }
            self.vector = vector
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(position, forKey: .position)
            try container.encode(digest, forKey: .digest)
            try container.encode(vector.withUnsafeBytes { Data($0) }, forKey: .vector)
        }
    }

    /// Stores vectors, and marks the items in a language the model does not read, in the writer's
    /// transaction; returns how many of each were stored.
    func setMeaning(_ meanings: [Meaning]) throws(SearchlightError) -> (vectors: Int, unread: Int) {
        let handle = try open()
        let embedded = meanings.filter { !$0.vector.isEmpty }
        let unread = meanings.filter(\.vector.isEmpty)
        var stored = 0
        var marked = 0
        if let dimensions = embedded.first?.vector.count {
            let vectors = embedded.flatMap(\.vector)
            try check { error in
                cx_database_set_meaning(
                    handle, embedded.map(\.position), embedded.map(\.digest), vectors, embedded.count,
                    UInt32(dimensions), &stored, error)
            }
        }
        if !unread.isEmpty {
            try check { error in
                cx_database_mark_unread(
                    handle, unread.map(\.position), unread.map(\.digest), unread.count, &marked, error)
            }
        }
        return (stored, marked)
    }

    /// Removes every vector, in the writer's transaction.
    func clearMeaning() throws(SearchlightError) {
        let handle = try open()
        try check { error in cx_database_clear_meaning(handle, error) }
    }
}
