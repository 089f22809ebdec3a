internal import CXapian

extension SearchQuery {
    /// One key of a search's order: an attribute that is a date or a number, ascending, or
    /// descending with a leading `-` (`price`, `-created`); or `relevance`, best first. Items
    /// without the attribute come last either way, and relevance breaks ties.
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
    }

    /// Reads attribute names separated by commas, for ``facets``: `category, price`.
    public static func facetNames(_ text: some StringProtocol) -> [String] {
        text.split(separator: ",").map { String($0.trimmingSpaces) }.filter { !$0.isEmpty }
    }

    /// The sort keys as the index reads them: a slot and a direction each, or relevance.
    ///
    /// - Throws: ``SearchlightError/Code/invalidArgument`` for a name that is not a date or number
    ///   attribute, or relevance anywhere but first or last.
    func sortAttributes() throws(SearchlightError) -> [(slot: UInt32, descending: Bool)] {
        var keys: [(slot: UInt32, descending: Bool)] = []
        for (position, key) in sort.enumerated() {
            if key.name == SortKey.relevanceName {
                guard position == 0 || position == sort.count - 1 else {
                    throw .invalidArgument(
                        "Cannot sort by \(sort.map(\.description).joined(separator: ",")): relevance can come "
                            + "only first (its ties broken by the other keys) or last")
                }
                if position == 0 { keys.append((CX_SLOT_RELEVANCE.rawValue, false)) }
                continue
            }
            guard let attribute = ItemAttribute.named(key.name), attribute.isSortable else {
                throw .invalidArgument(
                    "Cannot sort by \(quoted(key.name)): sort by relevance, "
                        + ItemAttribute.names(of: [.date, .number]) + " (a leading - for descending)")
            }
            keys.append((attribute.slot, key.descending))
        }
        return keys
    }

    /// The attributes ``facets`` names.
    ///
    /// - Throws: ``SearchlightError/Code/invalidArgument`` for a name that is not a countable
    ///   attribute, or more than ``maximumFacets``.
    func facetAttributes() throws(SearchlightError) -> [ItemAttribute] {
        guard facets.count <= Self.maximumFacets else {
            throw .invalidArgument("A search counts at most \(Self.maximumFacets) attributes, not \(facets.count)")
        }
        var attributes: [ItemAttribute] = []
        for name in facets {
            guard let attribute = ItemAttribute.named(name), attribute.isCountable else {
                throw .invalidArgument(
                    "Cannot count \(quoted(name)): count "
                        + ItemAttribute.names(of: [.text, .number, .date]))
            }
            if !attributes.contains(attribute) { attributes.append(attribute) }
        }
        return attributes
    }
}
