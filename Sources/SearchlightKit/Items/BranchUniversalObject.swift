/// A content item as the Branch SDKs describe it: the Branch Universal Object.
///
/// Searchlight reads BUOs in both of the SDKs' key dialects — the flat Branch dictionary
/// (`$canonical_identifier`, `$og_title`, …) and the SDK's camelCase properties
/// (`canonicalIdentifier`, `title`, …) — and writes the Branch dictionary.
///
/// ```swift
/// var object = BranchUniversalObject(canonicalIdentifier: "recipe/42")
/// object.title = "Tarte Tatin"
/// object.keywords = ["dessert", "french"]
/// object.contentIndexMode = .public
/// ```
public struct BranchUniversalObject: Sendable, Hashable {
    /// The unique identifier within a domain. Required.
    public var canonicalIdentifier: String
    public var canonicalUrl: String?
    public var title: String?
    public var contentDescription: String?
    public var imageUrl: String?
    public var keywords: [String] = []
    /// Epoch milliseconds after which the item no longer exists; `nil` for never.
    public var expirationDate: Int64?
    /// Epoch milliseconds when the content was created.
    public var creationDate: Int64?
    public var locallyIndex: Bool?
    public var publiclyIndex: Bool?
    /// The explicit index mode; when `nil`, ``publiclyIndex`` decides (the Branch SDK's rule).
    public var contentIndexMode: ContentIndexMode?
    public var contentMetadata = ContentMetadata()
    /// Views recorded for the item, as `export` writes them (key ``viewsKey``); `nil` when the
    /// input does not say. Not part of the Branch dictionary: indexing an item without it keeps
    /// the views the index holds for it.
    public var viewCount: Int64?

    /// The key `export` writes an item's recorded views under, and indexing reads them back from.
    public static let viewsKey = ItemField.views.camelKey

    public init(canonicalIdentifier: String) {
        self.canonicalIdentifier = canonicalIdentifier
    }

    /// The mode the item is indexed in: `contentIndexMode` when given, otherwise public exactly
    /// when `publiclyIndex` is true.
    public var effectiveIndexMode: ContentIndexMode {
        contentIndexMode ?? (publiclyIndex == true ? .public : .private)
    }
}
