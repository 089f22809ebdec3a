internal import CXapian
import FoundationEssentials

// What the index records of its custom fields, and the values it gives stored items.

/// How the index records its custom fields: JSON under this metadata key.
private struct FieldRecord: Codable {
    var name: String
    var type: FieldType
    var slot: UInt32
}

extension XapianDatabase {
    static let fieldsKey = "searchlight.fields"

    /// The custom fields the index records, in the order they were added.
    func customFields() throws(SearchlightError) -> [ItemAttribute] {
        let text = try metadata(Self.fieldsKey)
        guard !text.isEmpty else { return [] }
        let records: [FieldRecord]
        do {
            records = try JSONDecoder().decode([FieldRecord].self, from: Data(text.utf8))
        } catch {
            throw SearchlightError(
                .indexUnavailable, "The index at \(path) records its custom fields unreadably: \(error)",
                failure: .corrupt)
        }
        return records.map { ItemAttribute(custom: $0.name, type: $0.type, slot: $0.slot) }
    }

    static let languageKey = "searchlight.language"

    /// The language code of the index's items that name none and whose text is not told
    /// (``SearchableIndex/defaultLanguage()``): English unless one is recorded.
    func defaultLanguage() throws(SearchlightError) -> String {
        let code = try metadata(Self.languageKey)
        return code.isEmpty ? "en" : code
    }

    /// Records `fields` as the index's custom fields, in this write.
    func setCustomFields(_ fields: [ItemAttribute]) throws(SearchlightError) {
        let records = fields.map { FieldRecord(name: $0.name, type: FieldType($0.kind), slot: $0.slot) }
        let json: String
        do {
            json = records.isEmpty ? "" : String(decoding: try JSONEncoder().encode(records), as: UTF8.self)
        } catch {
            throw SearchlightError(.internalError, "Cannot encode the custom fields: \(error)")
        }
        try setMetadata(Self.fieldsKey, json)
    }

    /// The Kit's record under `key` (a `searchlight.` key), empty for none.
    func metadata(_ key: String) throws(SearchlightError) -> String {
        let handle = try open()
        var text: UnsafeMutablePointer<CChar>?
        try withText(key) { key throws(SearchlightError) in
            try check { error in cx_database_metadata(handle, key, &text, error) }
        }
        defer { cx_string_free(text) }
        return text.map { String(cString: $0) } ?? ""
    }

    /// Records `value` under `key` (a `searchlight.` key; empty removes it), in the writer's
    /// transaction.
    func setMetadata(_ key: String, _ value: String) throws(SearchlightError) {
        let handle = try open()
        try withText(key) { key throws(SearchlightError) in
            try withText(value) { value throws(SearchlightError) in
                try check { error in cx_database_set_metadata(handle, key, value, error) }
            }
        }
    }

    /// Copies the records `other` holds under keys beginning with `prefix` (a `searchlight.`
    /// prefix) into this writer, in its transaction.
    func copyMetadata(from other: XapianDatabase, prefix: String) throws(SearchlightError) {
        let handle = try open()
        let source = try other.open()
        try withText(prefix) { prefix throws(SearchlightError) in
            try check { error in cx_database_copy_metadata(handle, source, prefix, error) }
        }
    }

    /// Removes every item's value of `field`; returns how many items held one.
    func clearAttribute(_ field: ItemAttribute) throws(SearchlightError) -> Int {
        let handle = try open()
        var count: UInt64 = 0
        try check { error in cx_database_clear_attribute(handle, field.slot, &count, error) }
        return Int(count)
    }

    /// Gives each stored item that carries `field` in its custom metadata its value; returns how
    /// many did, in this write.
    func fill(_ field: ItemAttribute) throws(SearchlightError) -> Int {
        try addAttributes { item in item.object.customValue(field).map { [$0] } }
    }

    /// Adds to each stored item the attribute values `values` gives for it (nil for none); returns
    /// how many items got some, in this write. The items are read and written `fillBatch` at a
    /// time: a cursor does not outlive writes to its database, and the next one goes on from the
    /// storage position where the last stopped.
    func addAttributes(_ values: (SearchableItem) -> [AttributeValue]?) throws(SearchlightError) -> Int {
        var filled = 0
        var next: UInt32 = 1
        while next != 0 {
            let (read, following) = try storedItems(from: next, limit: Self.fillBatch)
            next = following
            let carriers = read.compactMap { _, item in values(item).map { StoredItem(attributes: $0, of: item) } }
            for start in stride(from: 0, to: carriers.count, by: 1000) {
                try addAttributes(Array(carriers[start..<min(start + 1000, carriers.count)]))
            }
            filled += carriers.count
        }
        return filled
    }

    /// Up to `limit` stored items, decoded, from storage position `first` on (only those without a
    /// vector of meaning when `withoutMeaning`), and the position the next call starts from: 0 when
    /// these reached the last item.
    func storedItems(from first: UInt32, limit: Int, withoutMeaning: Bool = false) throws(SearchlightError)
        -> (items: [(document: StoredDocument, item: SearchableItem)], next: UInt32)
    {
        var items: [(document: StoredDocument, item: SearchableItem)] = []
        var next: UInt32 = 0
        do {
            try forEachDocument(from: first, withoutMeaning: withoutMeaning) { document in
                guard items.count < limit else {
                    next = document.position
                    return false
                }
                items.append((document, try SearchableIndex.decodeStored(document.data, path: path)))
                return true
            }
        } catch let error as SearchlightError {
            throw error
        } catch {
            throw SearchlightError(.internalError, "Cannot read the items of the index at \(path): \(error)")
        }
        return (items, next)
    }

    /// How many stored items `addAttributes(_:)` reads before writing their values.
    static let fillBatch = 10_000
}

extension StoredItem {
    /// What `cx_database_add_attributes` reads of `item`: its domain and identifier, which find its
    /// document, and `values` to add to it.
    init(attributes values: [AttributeValue], of item: SearchableItem) {
        self.init(
            domain: item.domainIdentifier, identifier: item.uniqueIdentifier, title: "", description: "", schema: "",
            keywords: [], data: [], isPublic: true, expiration: 0, values: values)
    }
}
