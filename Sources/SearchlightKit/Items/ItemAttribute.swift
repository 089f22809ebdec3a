/// What an item carries beside its text that searches filter by, sort by and count: its dates, its
/// price and rating, its product's category, brand and condition, its address's city and country,
/// its place on the map.
///
/// Each is kept in a value slot of its own, filled from the item's fields as the SDK writes them
/// (docs/reference.md, *Ranges, sorting and counts*); the table of an item's fields
/// names each one's field and slot (`ItemField`, `cx_item_fields`):
///
/// | name | kind | from |
/// |---|---|---|
/// | `created` | date | `$creation_timestamp` |
/// | `expires` | date | `$exp_date` |
/// | `views` | number | recorded views |
/// | `price` | number | `$price` |
/// | `rating` | number | `$rating_average`, else `$rating` |
/// | `category`, `brand`, `condition`, `currency` | text | `$product_category`, `$product_brand`, `$condition`, `$currency` |
/// | `city`, `country` | text | `$address_city`, `$address_country` |
/// | `location` | point | `$latitude` and `$longitude` (searched with `near:`) |
public struct ItemAttribute: Sendable, Hashable {
    /// What an attribute holds, which says what a query can ask of it.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Epoch milliseconds: ranges of dates, sorting, the earliest and latest.
        case date
        /// Ranges, sorting, the least and greatest, and counts in ranges.
        case number
        /// Exact filters (case- and accent-insensitive) and a count per value.
        case text
        /// A latitude and a longitude: `near:`.
        case point
    }

    /// The attribute's name in the query language, `--sort` and `--facet`.
    public let name: String
    public let kind: Kind
    /// The value slot that holds it.
    let slot: UInt32
    /// Whether an index was told of it (``SearchableIndex/addField(_:type:)``): it is read from the
    /// item's custom metadata key of its name.
    public var isCustom: Bool { slot >= Self.firstCustomSlot }

    /// The slots custom fields take, from here up.
    static let firstCustomSlot: UInt32 = 32

    public static let created = builtIn("created")
    public static let expires = builtIn("expires")
    public static let views = builtIn("views")
    public static let price = builtIn("price")
    public static let rating = builtIn("rating")
    public static let category = builtIn("category")
    public static let brand = builtIn("brand")
    public static let condition = builtIn("condition")
    public static let currency = builtIn("currency")
    public static let city = builtIn("city")
    public static let country = builtIn("country")
    public static let location = builtIn("location")
    public static let language = builtIn("language")

    /// The built-in attribute `name`, as the table of an item's fields (``ItemField``) has it.
    private static func builtIn(_ name: String) -> ItemAttribute {
        guard let attribute = ItemField.all.lazy.compactMap(\.attribute).first(where: { $0.name == name }) else {
            preconditionFailure("No attribute \(name) in the table of an item's fields")
        }
        return ItemAttribute(name: name, kind: attribute.kind, slot: attribute.slot)
    }

    /// The keys of an item's dictionary that the index may leave out of its data, by the slot of
    /// the attribute whose value gives them back (the fields ``ItemField/isGivenBack``).
    static let storedKeys: [UInt32: String] = Dictionary(
        uniqueKeysWithValues: ItemField.all.compactMap { field in
            guard field.isGivenBack, let attribute = field.attribute, let key = field.branchKey else { return nil }
            return (attribute.slot, key)
        })

    /// Every attribute an item can carry.
    public static let all: [ItemAttribute] = [
        created, expires, views, price, rating, category, brand, condition, currency, city, country, location,
        language,
    ]

    /// The attribute named `name` (case-insensitive) among `attributes`, if there is one.
    public static func named(_ name: some StringProtocol, in attributes: [ItemAttribute] = all) -> ItemAttribute? {
        let lowered = name.lowercased()
        return attributes.first { $0.name == lowered }
    }

    /// Whether results can be ordered by it: dates and numbers.
    public var isSortable: Bool { kind == .date || kind == .number }

    /// Whether a search can count its values: everything but a point.
    public var isCountable: Bool { kind != .point }

    /// The names of the attributes of `kinds` among `attributes`, for messages.
    static func names(of kinds: Set<Kind>, in attributes: [ItemAttribute] = all) -> String {
        attributes.filter { kinds.contains($0.kind) }.map(\.name).joined(separator: ", ")
    }
}

/// One attribute's value in an item, as the index stores it.
struct AttributeValue: Hashable, Codable {
    enum Content: Hashable, Codable {
        case number(Double)
        case text(String)
        case point(latitude: Double, longitude: Double)
    }

    var slot: UInt32
    var content: Content
}

extension BranchUniversalObject {
    /// The attributes this item carries, in the slots ``ItemAttribute`` assigns: those its fields
    /// give, numbers finite, texts not blank, a point only with both coordinates in range, then
    /// the custom fields of `fields` its custom metadata holds (``customValue(_:)``). The
    /// expiration and the views have slots of their own, filled by the index.
    func attributeValues(custom fields: [ItemAttribute] = []) -> [AttributeValue] {
        builtInValues + fields.compactMap { customValue($0) }
    }

    /// The value of the custom field `field` this item's custom metadata holds under the field's
    /// name (or the same name in other case): for a `text` field, a string, number or boolean as
    /// written; for a `number`, a number or a string that is one; for a `date`, epoch milliseconds
    /// or an ISO 8601 date or time, as a query writes them. `nil` when it holds none, or another
    /// kind of value (an array, an object, a word where a number belongs).
    func customValue(_ field: ItemAttribute) -> AttributeValue? {
        let custom = contentMetadata.customMetadata
        guard
            let value = custom[field.name]
                ?? custom.first(where: { $0.key.lowercased() == field.name })?.value
        else { return nil }
        let content: AttributeValue.Content?
        switch (field.kind, value) {
        case (.text, .string(let text)):
            let trimmed = text.trimmingSpaces
            content = trimmed.isEmpty ? nil : .text(String(trimmed))
        case (.text, .integer(let number)): content = .text(String(number))
        case (.text, .double(let number)): content = .text(String(number))
        case (.text, .bool(let flag)): content = .text(String(flag))
        case (.number, .integer(let number)): content = .number(Double(number))
        case (.number, .double(let number)): content = number.isFinite ? .number(number) : nil
        case (.number, .string(let text)):
            content = Double(text.trimmingSpaces).flatMap { $0.isFinite ? .number($0) : nil }
        case (.date, .integer(let milliseconds)): content = .number(Double(milliseconds))
        case (.date, .double(let milliseconds)): content = milliseconds.isFinite ? .number(milliseconds) : nil
        case (.date, .string(let text)):
            // A date as a query writes it, but not an age: it names a time of its own.
            let trimmed = text.trimmingSpaces
            content =
                trimmed.last.map { "hdw".contains($0) } == true
                ? nil : QueryParser.dateSpan(trimmed).map { .number($0.low.value) }
        default: content = nil
        }
        return content.map { AttributeValue(slot: field.slot, content: $0) }
    }

    private var builtInValues: [AttributeValue] {
        let metadata = contentMetadata
        var values: [AttributeValue] = []
        func number(_ attribute: ItemAttribute, _ value: Double?) {
            if let value, value.isFinite {
                values.append(AttributeValue(slot: attribute.slot, content: .number(value)))
            }
        }
        func text(_ attribute: ItemAttribute, _ value: String?) {
            let trimmed = value?.trimmingSpaces ?? ""
            if !trimmed.isEmpty { values.append(AttributeValue(slot: attribute.slot, content: .text(String(trimmed)))) }
        }
        number(.created, creationDate.map(Double.init))
        number(.price, metadata.price)
        number(.rating, metadata.ratingAverage ?? metadata.rating)
        text(.category, metadata.productCategory)
        text(.brand, metadata.productBrand)
        text(.condition, metadata.condition)
        text(.currency, metadata.currency)
        text(.city, metadata.addressCity)
        text(.country, metadata.addressCountry)
        text(.language, languageCode)
        if let latitude = metadata.latitude, let longitude = metadata.longitude, (-90...90).contains(latitude),
            (-180...180).contains(longitude)
        {
            let point = AttributeValue.Content.point(latitude: latitude, longitude: longitude)
            values.append(AttributeValue(slot: ItemAttribute.location.slot, content: point))
        }
        return values
    }
}
