extension QueryExpression {
    /// The point of the expression's first `near:`, if it has one.
    var nearPoint: (latitude: Double, longitude: Double)? {
        switch self {
        case .near(let latitude, let longitude, _): (latitude, longitude)
        case .and(let parts), .or(let parts), .xor(let parts): parts.lazy.compactMap(\.nearPoint).first
        case .exclude(let kept, _): kept.nearPoint
        default: nil
        }
    }
}

extension SearchQuery {
    /// One key of a search's order: an attribute that is a date or a number, ascending, or
    /// descending with a leading `-` (`price`, `-created`); `relevance`, best first; or `distance`
    /// from the point of the query's `near:`, nearest first. Items without the attribute come last
    /// either way, and relevance breaks ties.
    public struct SortKey: Sendable, Hashable, CustomStringConvertible {
        /// An ``ItemAttribute``'s name, or `relevance`.
        public var name: String
        public var descending: Bool

        /// Reads a key as written: `price`, `-created`, `relevance`.
        public init(_ text: some StringProtocol) {
            let trimmed = text.trimmingSpaces
            descending = trimmed.hasPrefix("-")
            name = String(descending ? trimmed.dropFirst() : trimmed).lowercased()
        }

        public var description: String { (descending ? "-" : "") + name }

        /// Reads keys separated by commas: `-rating,price`.
        public static func list(_ text: some StringProtocol) -> [SortKey] {
            text.split(separator: ",").filter { !$0.trimmingSpaces.isEmpty }.map { SortKey($0) }
        }

        static let relevanceName = "relevance"
        /// The distance from the point of the query's `near:`, nearest first.
        static let distanceName = "distance"
    }

    /// Reads attribute names separated by commas, for ``facets``: `category, price`.
    public static func facetNames(_ text: some StringProtocol) -> [String] {
        text.split(separator: ",").map { String($0.trimmingSpaces) }.filter { !$0.isEmpty }
    }

    /// The sort keys as the index reads them: a slot and a direction each, relevance, or the
    /// distance from the point of the query's `near:` (`expression`'s first).
    ///
    /// - Throws: ``SearchlightError/Code/invalidArgument`` for a name that is not a date or number
    ///   attribute, relevance anywhere but first or last, or `distance` without a `near:` or beside
    ///   another attribute.
    func sortKeys(among attributes: [ItemAttribute] = ItemAttribute.all, expression: QueryExpression? = nil)
        throws(SearchlightError) -> [IndexSortKey]
    {
        let written = sort.map(\.description).joined(separator: ",")
        if sort.contains(where: { $0.name == SortKey.distanceName }) {
            guard sort.filter({ $0.name != SortKey.relevanceName }).count == 1 else {
                throw .invalidArgument(
                    "Cannot sort by \(written): distance sorts alone, with relevance first or breaking its ties")
            }
            if let expression, expression.nearPoint == nil {
                throw .invalidArgument(
                    "Cannot sort by distance without a place: add near:LATITUDE,LONGITUDE,RADIUS to the query")
            }
        }
        var keys: [IndexSortKey] = []
        for (position, key) in sort.enumerated() {
            if key.name == SortKey.relevanceName {
                guard position == 0 || position == sort.count - 1 else {
                    throw .invalidArgument(
                        "Cannot sort by \(sort.map(\.description).joined(separator: ",")): relevance can come "
                            + "only first (its ties broken by the other keys) or last")
                }
                if position == 0 { keys.append(.relevance) }
                continue
            }
            if key.name == SortKey.distanceName {
                let point = expression?.nearPoint ?? (0, 0)
                keys.append(
                    .distance(
                        slot: ItemAttribute.location.slot, latitude: point.latitude, longitude: point.longitude,
                        descending: key.descending))
                continue
            }
            guard let attribute = ItemAttribute.named(key.name, in: attributes), attribute.isSortable else {
                throw .invalidArgument(
                    "Cannot sort by \(quoted(key.name)): sort by relevance, "
                        + ItemAttribute.names(of: [.date, .number], in: attributes)
                        + ", distance (from near:'s point; a leading - for descending)")
            }
            keys.append(.attribute(slot: attribute.slot, descending: key.descending))
        }
        return keys
    }

    /// The attributes ``facets`` names.
    ///
    /// - Throws: ``SearchlightError/Code/invalidArgument`` for a name that is not a countable
    ///   attribute, or more than ``maximumFacets``.
    func facetAttributes(among attributes: [ItemAttribute] = ItemAttribute.all) throws(SearchlightError)
        -> [ItemAttribute]
    {
        guard facets.count <= Self.maximumFacets else {
            throw .invalidArgument("A search counts at most \(Self.maximumFacets) attributes, not \(facets.count)")
        }
        var counted: [ItemAttribute] = []
        for name in facets {
            guard let attribute = ItemAttribute.named(name, in: attributes), attribute.isCountable else {
                throw .invalidArgument(
                    "Cannot count \(quoted(name)): count "
                        + ItemAttribute.names(of: [.text, .number, .date], in: attributes))
            }
            if !counted.contains(attribute) { counted.append(attribute) }
        }
        return counted
    }
}

/// One key of a search's order, as the index reads it (``SearchQuery/sortKeys(among:expression:)``).
enum IndexSortKey: Hashable {
    /// Relevance, best first.
    case relevance
    /// A date or number attribute's value.
    case attribute(slot: UInt32, descending: Bool)
    /// The distance of a point attribute's value from a place, nearest first unless descending.
    case distance(slot: UInt32, latitude: Double, longitude: Double, descending: Bool)
}
