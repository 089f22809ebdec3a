/// One field an item has, as the one table of them describes it: its keys in both of the SDKs'
/// dialects, what its JSON value is, how the index keeps it, and, for an attribute, its value slot
/// and whether that value gives the field back.
///
/// The table is the shim's (`cx_item_fields`); the reader (``BranchUniversalObject/init(json:)``),
/// the Branch dictionary (``BranchUniversalObject/branchDictionary``), the built-in attributes
/// (``ItemAttribute``) and the keys an item's stored data leaves out all read it, and
/// `ItemFieldTests` checks each row through them. Adding a field is adding a row, and a property
/// where the SDK has one.
struct ItemField: Sendable, Hashable {
    /// What the field's JSON value is.
    enum ValueType: Sendable, Hashable {
        case text, number, date, bool, texts, mode, count
    }

    /// How the index keeps the field beside the item's stored data.
    enum Use: Sendable, Hashable {
        /// Only in the stored data.
        case stored
        /// The item's identity within its domain.
        case identity
        /// Free text, in the one term space.
        case words
        /// Keywords: their words, and each whole for `keyword:`.
        case keywords
        /// Whether the item is public or private.
        case mode
        /// An exact filter term (`schema:`).
        case filter
        /// An attribute in a value slot (``ItemAttribute``).
        case attribute
    }

    /// The SDK's property, and the field's camelCase key.
    let name: String
    /// Its key in the Branch dictionary dialect; nil where that dialect has none.
    let branchKey: String?
    /// Its key in the camelCase dialect: top level, or under `contentMetadata` when ``isNested``.
    let camelKey: String
    /// Another camelCase key the SDKs write for it.
    let camelAlias: String?
    let isNested: Bool
    let type: ValueType
    let use: Use
    /// For an attribute: its name in the query language, its slot and its kind.
    let attribute: (name: String, slot: UInt32, kind: ItemAttribute.Kind)?
    /// Whether the attribute's value gives the JSON value back exactly, so that the stored data
    /// leaves the key out.
    let isGivenBack: Bool

    static func == (lhs: ItemField, rhs: ItemField) -> Bool { lhs.name == rhs.name }
    func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// Every field an item has, in the table's order.
    static let all: [ItemField] = XapianDatabase.itemFields

    /// The field named `name`; the table has every name the Kit asks for (`ItemFieldTests`).
    static func named(_ name: String) -> ItemField {
        guard let field = all.first(where: { $0.name == name }) else {
            preconditionFailure("No field \(name) in the table of an item's fields")
        }
        return field
    }

    /// The keys a reader tries, in order: the Branch key, then the camelCase ones, for a field at
    /// the top level; for a nested one, its Branch key alone (the camelCase keys are read under
    /// `contentMetadata`).
    var keys: [String] {
        isNested ? [branchKey].compactMap { $0 } : [branchKey, camelKey, camelAlias].compactMap { $0 }
    }

    /// The camelCase keys a reader tries under `contentMetadata`.
    var nestedKeys: [String] { [camelKey, camelAlias].compactMap { $0 } }

    static let canonicalIdentifier = named("canonicalIdentifier")
    static let canonicalUrl = named("canonicalUrl")
    static let title = named("title")
    static let contentDescription = named("contentDescription")
    static let imageUrl = named("imageUrl")
    static let keywords = named("keywords")
    static let expirationDate = named("expirationDate")
    static let creationDate = named("creationDate")
    static let locallyIndex = named("locallyIndex")
    static let publiclyIndex = named("publiclyIndex")
    static let contentIndexMode = named("contentIndexMode")
    static let views = named("searchlight:views")
    static let imageCaptions = named("imageCaptions")
    static let language = named("language")
    /// Core Spotlight's key for an item's languages, an array: the first is read as ``language``.
    static let spotlightLanguages = "languages"
}
