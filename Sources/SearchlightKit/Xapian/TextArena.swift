internal import CXapian

/// Text handed to the shim: Swift strings packed into one buffer, so that one pointer scope covers
/// every `cx_text` of a call.

extension cx_text {
    var bytes: [UInt8] {
        guard let data, length > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: length))
    }

    var string: String {
        guard let data, length > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }

    /// The text, or `nil` for a text whose data is NULL (absent).
    var presentString: String? { data == nil ? nil : string }
}

/// What the shim needs of an item, as Swift values.
struct StoredItem {
    var domain: String
    var identifier: String
    var title: String
    var description: String
    var schema: String
    var keywords: [String]
    var data: [UInt8]
    var isPublic: Bool
    var expiration: Int64
    /// The digest of the raw input line, when the item depends on nothing else; 0 for none.
    var lineDigest: UInt64 = 0
    /// The recorded views the input gives, or -1 to keep those stored.
    var views: Int64 = -1
    /// The absolute path of the file the item was read from, or empty.
    var source = ""
    /// The item's attributes (``ItemAttribute``).
    var values: [AttributeValue] = []
    /// The attributes `data` leaves out, their keys put back from `values` on reading
    /// (`cx_item.moved`).
    var moved: UInt32 = 0
    /// The document id to store a new item at, or 0 for the database's next (`cx_item.document_id`).
    var documentID: UInt32 = 0
}

extension StoredItem: Codable {
    private enum CodingKeys: String, CodingKey {
        case domain, identifier, title, description, schema, keywords, data, isPublic, expiration, lineDigest
        case views, source, values, moved, documentID
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        domain = try container.decode(String.self, forKey: .domain)
        identifier = try container.decode(String.self, forKey: .identifier)
        title = try container.decode(String.self, forKey: .title)
        description = try container.decode(String.self, forKey: .description)
        schema = try container.decode(String.self, forKey: .schema)
        keywords = try container.decode([String].self, forKey: .keywords)
        // The stored JSON as text: an array of its bytes would be four times as long.
        data = Array(try container.decode(String.self, forKey: .data).utf8)
        isPublic = try container.decode(Bool.self, forKey: .isPublic)
        expiration = try container.decode(Int64.self, forKey: .expiration)
        lineDigest = try container.decode(UInt64.self, forKey: .lineDigest)
        views = try container.decode(Int64.self, forKey: .views)
        source = try container.decode(String.self, forKey: .source)
        values = try container.decode([AttributeValue].self, forKey: .values)
        moved = try container.decode(UInt32.self, forKey: .moved)
        documentID = try container.decode(UInt32.self, forKey: .documentID)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(domain, forKey: .domain)
        try container.encode(identifier, forKey: .identifier)
        try container.encode(title, forKey: .title)
        try container.encode(description, forKey: .description)
        try container.encode(schema, forKey: .schema)
        try container.encode(keywords, forKey: .keywords)
        try container.encode(String(decoding: data, as: UTF8.self), forKey: .data)
        try container.encode(isPublic, forKey: .isPublic)
        try container.encode(expiration, forKey: .expiration)
        try container.encode(lineDigest, forKey: .lineDigest)
        try container.encode(views, forKey: .views)
        try container.encode(source, forKey: .source)
        try container.encode(values, forKey: .values)
        try container.encode(moved, forKey: .moved)
        try container.encode(documentID, forKey: .documentID)
    }
}

/// Packs many strings into one buffer so that one pointer scope covers all the `cx_text`s of a call.
struct TextArena {
    private var storage: [UInt8] = []

    struct Range {
        var start: Int
        var count: Int
    }

    struct ItemRanges {
        var domain, identifier, title, description, schema, data, source: Range
        var keywords: [Range]
        var isPublic: Bool
        var expiration: Int64
        var lineDigest: UInt64
        var views: Int64
        var values: [ValueRanges]
        var moved: UInt32
        var documentID: UInt32

        func item(in texts: Texts) -> cx_item {
            cx_item(
                domain: texts.text(domain), identifier: texts.text(identifier), title: texts.text(title),
                description: texts.text(description), schema: texts.text(schema), data: texts.text(data),
                keywords: texts.keywordPointer(keywords), keyword_count: keywords.count, is_public: isPublic,
                expiration_ms: expiration, line_digest: lineDigest, views: views, source: texts.text(source),
                values: texts.valuePointer(values), value_count: values.count, moved: moved,
                document_id: documentID)
        }
    }

    /// An attribute's value, its text in the arena.
    struct ValueRanges {
        var slot: UInt32
        var kind: cx_value_kind
        var number: Double
        var second: Double
        var text: Range
    }

    mutating func add(_ string: String) -> Range { add(bytes: Array(string.utf8)) }

    mutating func add(bytes: [UInt8]) -> Range {
        let range = Range(start: storage.count, count: bytes.count)
        storage.append(contentsOf: bytes)
        return range
    }

    mutating func add(_ item: StoredItem) -> ItemRanges {
        ItemRanges(
            domain: add(item.domain), identifier: add(item.identifier), title: add(item.title),
            description: add(item.description), schema: add(item.schema), data: add(bytes: item.data),
            source: add(item.source),
            keywords: item.keywords.map { add($0) }, isPublic: item.isPublic, expiration: item.expiration,
            lineDigest: item.lineDigest, views: item.views, values: item.values.map { add($0) }, moved: item.moved,
            documentID: item.documentID)
    }

    mutating func add(_ value: AttributeValue) -> ValueRanges {
        switch value.content {
        case .number(let number):
            ValueRanges(slot: value.slot, kind: CX_VALUE_NUMBER, number: number, second: 0, text: add(""))
        case .text(let text):
            ValueRanges(slot: value.slot, kind: CX_VALUE_TEXT, number: 0, second: 0, text: add(text))
        case .point(let latitude, let longitude):
            ValueRanges(slot: value.slot, kind: CX_VALUE_POINT, number: latitude, second: longitude, text: add(""))
        }
    }

    /// The texts of one call; keyword and value arrays are allocated here and freed when the call
    /// returns.
    final class Texts {
        let base: UnsafePointer<CChar>?
        private var keywordBuffers: [UnsafeMutableBufferPointer<cx_text>] = []
        private var valueBuffers: [UnsafeMutableBufferPointer<cx_value>] = []

        init(base: UnsafePointer<CChar>?) { self.base = base }
        deinit {
            keywordBuffers.forEach { $0.deallocate() }
            valueBuffers.forEach { $0.deallocate() }
        }

        func valuePointer(_ values: [ValueRanges]) -> UnsafePointer<cx_value>? {
            guard !values.isEmpty else { return nil }
            let buffer = UnsafeMutableBufferPointer<cx_value>.allocate(capacity: values.count)
            for (index, value) in values.enumerated() {
                buffer[index] = cx_value(
                    slot: value.slot, kind: value.kind, number: value.number, second: value.second,
                    text: text(value.text))
            }
            valueBuffers.append(buffer)
            return UnsafePointer(buffer.baseAddress)
        }

        func text(_ range: Range) -> cx_text {
            cx_text(data: range.count == 0 ? nil : base.map { $0 + range.start }, length: range.count)
        }

        func keywordPointer(_ ranges: [Range]) -> UnsafePointer<cx_text>? {
            guard !ranges.isEmpty else { return nil }
            let buffer = UnsafeMutableBufferPointer<cx_text>.allocate(capacity: ranges.count)
            for (index, range) in ranges.enumerated() { buffer[index] = text(range) }
            keywordBuffers.append(buffer)
            return UnsafePointer(buffer.baseAddress)
        }
    }

    /// Packs `items` and calls `body` with them as `cx_item`s, valid for the call.
    static func withItems<T, E: Error>(_ items: [StoredItem], _ body: (UnsafeBufferPointer<cx_item>) throws(E) -> T)
        throws(E) -> T
    {
        var arena = TextArena()
        let ranges = items.map { arena.add($0) }
        return try arena.withTexts { texts throws(E) in
            let cItems = ranges.map { $0.item(in: texts) }
            return try cItems.withUnsafeBufferPointer { buffer throws(E) in try body(buffer) }
        }
    }

    func withTexts<T, E: Error>(_ body: (Texts) throws(E) -> T) throws(E) -> T {
        try storage.withUnsafeBufferPointer { bytes throws(E) in
            try body(Texts(base: UnsafeRawPointer(bytes.baseAddress)?.assumingMemoryBound(to: CChar.self)))
        }
    }
}

func withText<T, E: Error>(_ string: String, _ body: (cx_text) throws(E) -> T) throws(E) -> T {
    var arena = TextArena()
    let range = arena.add(string)
    return try arena.withTexts { texts throws(E) in try body(texts.text(range)) }
}
