import CXapian
import Foundation
import SearchlightKit
import SearchlightTesting
import Testing

/// A row of the one table of an item's fields (`cx_item_fields`), as the shim has it.
struct FieldRow: CustomTestStringConvertible, Sendable {
    var name: String
    var branchKey: String?
    var camelKey: String
    var camelAlias: String?
    var nested: Bool
    var type: cx_json_type
    var use: cx_field_use
    var attribute: String?
    var kind: cx_value_kind
    var givenBack: Bool

    var testDescription: String { name }

    static let all: [FieldRow] = {
        var count = 0
        let rows = cx_item_fields(&count)
        return UnsafeBufferPointer(start: rows, count: count).map { row in
            FieldRow(
                name: String(cString: row.name), branchKey: row.branch_key.map { String(cString: $0) },
                camelKey: String(cString: row.camel_key), camelAlias: row.camel_alias.map { String(cString: $0) },
                nested: row.nested, type: row.json, use: row.use, attribute: row.attribute.map { String(cString: $0) },
                kind: row.kind, givenBack: row.given_back)
        }
    }()

    /// A value of the row's type, as JSON text, and as the Branch dictionary writes it back.
    var sample: (json: String, written: JSONValue) {
        switch type {
        case CX_JSON_NUMBER where name == "latitude": ("48.85", .double(48.85))
        case CX_JSON_NUMBER where name == "longitude": ("2.35", .double(2.35))
        case CX_JSON_NUMBER: ("12.5", .double(12.5))
        case CX_JSON_DATE: ("1700000000000", .integer(1_700_000_000_000))
        case CX_JSON_BOOL: ("true", .bool(true))
        case CX_JSON_TEXTS: (#"["first \#(name)","second"]"#, .array([.string("first \(name)"), .string("second")]))
        case CX_JSON_MODE: (#""private""#, .string("private"))
        case CX_JSON_TEXT where name == "language": (#""pt-BR""#, .string("pt-BR"))
        case CX_JSON_COUNT: ("3", .integer(3))
        default: (#""x-\#(name)""#, .string("x-\(name)"))
        }
    }

    /// An item holding this field alone (and an identifier), in the Branch dictionary dialect or the
    /// camelCase one, under `key`.
    func object(camelCase: Bool, key: String? = nil) -> String? {
        let identity = use == CX_USE_IDENTITY
        let id = camelCase ? #""canonicalIdentifier":"item-1""# : #""$canonical_identifier":"item-1""#
        let value = identity ? #""item-1""# : sample.json
        if camelCase {
            let key = key ?? camelKey
            if nested { return #"{\#(id),"contentMetadata":{"\#(key)":\#(value)}}"# }
            return identity ? #"{"\#(key)":\#(value)}"# : #"{\#(id),"\#(key)":\#(value)}"#
        }
        guard let branchKey = key ?? branchKey else { return nil }
        return identity ? #"{"\#(branchKey)":\#(value)}"# : #"{\#(id),"\#(branchKey)":\#(value)}"#
    }
}

/// The one table of an item's fields, read by the shim (its stored data) and the Kit (its reader,
/// its Branch dictionary, its attributes): each row checked through what the Kit does with it.
@Suite("The table of an item's fields: the Kit and the shim agree", .temporaryFolder)
struct ItemFieldTests {
    @Test("each field reads alike from both dialects, never as custom metadata", arguments: FieldRow.all)
    func dialects(row: FieldRow) throws {
        var objects: [BranchUniversalObject] = []
        for text in [row.object(camelCase: false), row.object(camelCase: true)].compactMap({ $0 })
            + (row.camelAlias.map { [row.object(camelCase: true, key: $0)!] } ?? [])
        {
            let object = try decodeOne(text)
            #expect(object.contentMetadata.customMetadata.isEmpty, "\(text) left \(object.contentMetadata)")
            objects.append(object)
        }
        #expect(objects.count >= 2 || row.branchKey == nil)
        #expect(Set(objects).count == 1, "\(objects)")
        let object = try #require(objects.first)
        if let branchKey = row.branchKey {
            // The Branch dictionary writes it back under its Branch key.
            let written = object.branchDictionary[branchKey]
            if row.type == CX_JSON_COUNT {
                #expect(object.viewCount == 3)
            } else if row.use == CX_USE_IDENTITY {
                #expect(written == .string("item-1"))
            } else {
                #expect(written == row.sample.written, "\(written.map { "\($0)" } ?? "nothing")")
            }
        } else {
            #expect(object.contentIndexMode == .private)
        }
    }

    @Test("every property of an item and of its content metadata is a field of the table")
    func properties() {
        let names = Set(FieldRow.all.map(\.name))
        let item = Mirror(reflecting: BranchUniversalObject(canonicalIdentifier: "x")).children.compactMap(\.label)
        let metadata = Mirror(reflecting: ContentMetadata()).children.compactMap(\.label)
        let kept = ["contentMetadata", "customMetadata"]
        let properties = (item + metadata).filter { !kept.contains($0) }.map {
            $0 == "viewCount" ? BranchUniversalObject.viewsKey : $0
        }
        #expect(Set(properties) == names, "\(Set(properties).symmetricDifference(names))")
    }

    @Test("the attributes are the table's, of its kinds; each filters the item that holds its field")
    func attributes() throws {
        let rows = FieldRow.all.filter { $0.use == CX_USE_ATTRIBUTE }
        #expect(Set(rows.compactMap(\.attribute)) == Set(ItemAttribute.all.map(\.name)))
        for row in rows {
            let attribute = try #require(ItemAttribute.named(row.attribute ?? ""))
            let kind: ItemAttribute.Kind =
                row.type == CX_JSON_DATE
                ? .date : row.kind == CX_VALUE_TEXT ? .text : row.kind == CX_VALUE_POINT ? .point : .number
            #expect(attribute.kind == kind, "\(row.name)")
        }
        let test = try TestIndex()
        let fields = rows.filter { $0.type != CX_JSON_COUNT && $0.name != "expirationDate" }
            .map { "\"\($0.branchKey!)\":\($0.sample.json)" }
        let text = #"{"$canonical_identifier":"item-1","$og_title":"Lamp",\#(fields.joined(separator: ","))}"#
        let report = try test.index.index([decode(text)], options: IndexingOptions(), now: now)
        #expect(report.indexed == 1, "\(report.errors)")
        let queries = [
            "created:2023-11-14", "price:12..13", "rating:12..13", "category:x-productCategory",
            "brand:x-productBrand", "condition:x-condition", "currency:x-currency", "city:x-addressCity",
            "country:x-addressCountry", "near:48.85,2.35,1km", "language:pt",
        ]
        for query in queries { #expect(try test.index.ids(query, domain: nil) == ["item-1"], "\(query)") }
        #expect(
            queries.count == rows.count - 3, "a query for each attribute but expires, views and the second coordinate")
    }

    @Test("an item with every field reads back whole, though its data leaves out what the values give back")
    func givenBack() throws {
        #expect(
            Set(FieldRow.all.filter(\.givenBack).compactMap(\.attribute))
                == [
                    "created", "price", "rating", "category", "brand", "condition", "currency", "city", "country",
                    "language",
                ])
        let test = try TestIndex()
        let fields = FieldRow.all.compactMap { row -> String? in
            // Every field but the identifier, the views and the expiration (the sample date is past).
            guard let key = row.branchKey, row.use != CX_USE_IDENTITY, row.type != CX_JSON_COUNT,
                row.name != "expirationDate"
            else { return nil }
            return "\"\(key)\":\(row.sample.json)"
        }
        let text = #"{"$canonical_identifier":"item-1",\#(fields.joined(separator: ","))}"#
        let given = try decodeOne(text)
        #expect(try test.index.index([decode(text)], options: IndexingOptions(), now: now).indexed == 1)
        let stored = try #require(try test.index.item(withIdentifier: "item-1", now: now))
        #expect(stored.object.branchDictionary == given.branchDictionary)
    }
}
