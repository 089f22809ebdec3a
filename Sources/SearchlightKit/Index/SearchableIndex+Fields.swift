import FoundationEssentials

// Custom fields: keys of the items' custom metadata an index is told to filter, sort and count by.

/// What a custom field holds (`searchlight fields add NAME --type TYPE`).
public enum FieldType: String, CaseIterable, Sendable, Codable {
    /// Exact filters (`color:red`, case- and accent-insensitive) and a count per value.
    case string
    /// Ranges, sorting, the least and greatest, and counts in ranges.
    case number
    /// Epoch milliseconds or an ISO 8601 date or time: ranges of dates, sorting, the earliest and
    /// latest.
    case date

    var kind: ItemAttribute.Kind {
        switch self {
        case .string: .text
        case .number: .number
        case .date: .date
        }
    }

    init(_ kind: ItemAttribute.Kind) {
        switch kind {
        case .number: self = .number
        case .date: self = .date
        case .text, .point: self = .string
        }
    }
}

/// A custom field, as ``SearchableIndex/fields()`` lists it and a change of fields reports it.
public struct FieldReport: Codable, Sendable, Hashable {
    public var name: String
    public var type: FieldType
    /// The stored items that carry it: given it when it was added, or cleared of it when it was
    /// removed. `nil` in a listing.
    public var items: Int?

    public init(name: String, type: FieldType, items: Int? = nil) {
        self.name = name
        self.type = type
        self.items = items
    }
}

extension ItemAttribute {
    /// A custom field in `slot`.
    init(custom name: String, type: FieldType, slot: UInt32) {
        self.init(name: name, kind: type.kind, slot: slot)
    }

    /// The most custom fields an index has.
    public static let maximumCustomFields = 32

    /// Checks a custom field's name: a letter, then letters, digits or `_`, at most 32 in all, lower
    /// case, and none the query language already gives a meaning.
    ///
    /// - Throws: ``SearchlightError/Code/invalidArgument`` saying what is wrong.
    static func validateCustomName(_ name: String) throws(SearchlightError) {
        guard name.wholeMatch(of: /[a-z][a-z0-9_]{0,31}/) != nil else {
            throw .invalidArgument(
                "\(quoted(name)) cannot name a field: use a lower-case letter, then letters, digits or _ "
                    + "(at most 32), as the items' custom metadata key is written")
        }
        let reserved =
            ItemAttribute.all.map(\.name) + QueryExpression.Filter.allCases.map(\.rawValue)
            + ["title", "description", "near", SearchQuery.SortKey.relevanceName, SearchQuery.SortKey.distanceName]
        guard !reserved.contains(name) else {
            throw .invalidArgument("\(quoted(name)) already means something in a query: choose another name")
        }
    }
}

extension SearchableIndex {
    /// The custom fields the index has, in the order they were added (``addField(_:type:)``).
    public func fields() throws(SearchlightError) -> [FieldReport] {
        try read { database throws(SearchlightError) in try database.customFields() }
            .map { FieldReport(name: $0.name, type: FieldType($0.kind)) }
    }

    /// Makes the key `name` of the items' custom metadata a field; see
    /// ``IndexTransaction/addField(_:type:)``.
    public func addField(_ name: String, type: FieldType) throws(SearchlightError) -> FieldReport {
        try performBatch { batch throws(SearchlightError) in try batch.addField(name, type: type) }
    }

    /// Removes the custom field `name`; see ``IndexTransaction/removeField(_:)``.
    public func removeField(_ name: String) throws(SearchlightError) -> FieldReport {
        try performBatch { batch throws(SearchlightError) in try batch.removeField(name) }
    }
}

extension IndexTransaction {
    /// Makes the key `name` of the items' custom metadata a field that queries filter by
    /// (`name:value`, ranges for numbers and dates), `--sort` orders by and `--facet` counts, as
    /// the built-in ``ItemAttribute``s are. It is recorded in the index, and every stored item that
    /// carries the key is given its value in this write; items written later get theirs as they
    /// are stored. An index made of shards records it in each.
    ///
    /// - Throws: ``SearchlightError/Code/invalidArgument`` for a name that cannot be a field;
    ///   ``SearchlightError/Code/fieldConflict`` for one the index already has, or past
    ///   ``ItemAttribute/maximumCustomFields``.
    public func addField(_ name: String, type: FieldType) throws(SearchlightError) -> FieldReport {
        let name = name.lowercased()
        try ItemAttribute.validateCustomName(name)
        var filled = 0
        for index in shards.indices { filled += try write(.addField(name: name, type: type), on: index).count }
        return FieldReport(name: name, type: type, items: filled)
    }

    /// Removes the custom field `name`: queries, sorts and counts no longer know it, and every
    /// stored item is cleared of its value in this write (the items' custom metadata stays).
    ///
    /// - Throws: ``SearchlightError/Code/fieldNotFound`` when the index has no such field.
    public func removeField(_ name: String) throws(SearchlightError) -> FieldReport {
        let name = name.lowercased()
        var cleared = 0
        var type: FieldType?
        for index in shards.indices {
            guard case .field(let field?, let items) = try write(.removeField(name: name), on: index) else { continue }
            type = FieldType(field.kind)
            cleared += items
        }
        guard let type else {
            throw SearchlightError(
                .fieldNotFound, "The index has no field \(quoted(name)): `searchlight fields` lists them")
        }
        return FieldReport(name: name, type: type, items: cleared)
    }
}
