internal import CXapian

/// What the shim's schema fixes that the Kit's types build on: the value slots it keeps for itself
/// and for the attributes, and the one table of an item's fields.
extension XapianDatabase {
    /// The slot of the expiration, which the ``ItemAttribute/expires`` attribute reads.
    static let expirationSlot = CX_SLOT_EXPIRATION.rawValue
    /// The slot of the recorded views, sortable, which the ``ItemAttribute/views`` attribute reads.
    static let viewsSlot = CX_SLOT_VIEWS.rawValue
    /// The first slot of the attributes the Kit assigns (``ItemAttribute``).
    static let firstAttributeSlot = CX_SLOT_FIRST_ATTRIBUTE.rawValue

    /// The language `text` is written in, as Compact Language Detector 2 tells it among the
    /// languages whose words the index reads: its ISO 639-1 code, or `nil` when it cannot tell.
    /// `host`, where the text is published, hints by its country's domain (`cuisine.example.fr`),
    /// and `expected`, the language most texts are in (the index's default; empty for a question), by
    /// its prior.
    static func detectLanguage(_ text: String, host: String = "", expected: String) -> String? {
        var code = [CChar](repeating: 0, count: 8)
        let length = withText(text) { text in
            withText(host) { host in withText(expected) { cx_detect_language(text, host, $0, &code, code.count) } }
        }
        return length == 0 ? nil : String(decoding: code.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The rows of `cx_item_fields`, as the Kit reads them (``ItemField``).
    static let itemFields: [ItemField] = {
        var count = 0
        let rows = cx_item_fields(&count)
        return UnsafeBufferPointer(start: rows, count: count).map(ItemField.init)
    }()
}

extension ItemField {
    fileprivate init(_ row: cx_item_field) {
        let types: [cx_json_type: ValueType] = [
            CX_JSON_TEXT: .text, CX_JSON_NUMBER: .number, CX_JSON_DATE: .date, CX_JSON_BOOL: .bool,
            CX_JSON_TEXTS: .texts, CX_JSON_MODE: .mode, CX_JSON_COUNT: .count,
        ]
        let uses: [cx_field_use: Use] = [
            CX_USE_STORED: .stored, CX_USE_IDENTITY: .identity, CX_USE_WORDS: .words, CX_USE_KEYWORDS: .keywords,
            CX_USE_MODE: .mode, CX_USE_FILTER: .filter, CX_USE_ATTRIBUTE: .attribute,
        ]
        let kinds: [cx_value_kind: ItemAttribute.Kind] = [
            CX_VALUE_TEXT: .text, CX_VALUE_NUMBER: .number, CX_VALUE_POINT: .point,
        ]
        let type = types[row.json] ?? .text
        var attribute: (name: String, slot: UInt32, kind: ItemAttribute.Kind)?
        if let name = row.attribute {
            // A date is kept as a number of epoch milliseconds.
            let kind = type == .date ? .date : kinds[row.kind] ?? .number
            attribute = (String(cString: name), row.slot, kind)
        }
        self.init(
            name: String(cString: row.name), branchKey: row.branch_key.map { String(cString: $0) },
            camelKey: String(cString: row.camel_key), camelAlias: row.camel_alias.map { String(cString: $0) },
            isNested: row.nested, type: type, use: uses[row.use] ?? .stored, attribute: attribute,
            isGivenBack: row.given_back)
    }
}
