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
    /// The language the item's words are in, as a language tag (`fr`, `pt-BR`): its words are
    /// stemmed in it (SPEC §2.5). When `nil`, the index tells it from the item's text, else uses its
    /// default language, and stores the item with it.
    public var language: String?
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

extension BranchUniversalObject {
    /// The ISO 639 code of ``language`` (its first subtag, lower case), or `nil` when it has none.
    public var languageCode: String? { language.flatMap(Self.languageCode(of:)) }

    /// The code of the language tag `tag` (`pt-BR` → `pt`), or `nil` when `tag` is not one: two or
    /// three letters, then subtags of letters and digits after `-` or `_`.
    static func languageCode(of tag: String) -> String? {
        let subtags = tag.split(separator: "-", omittingEmptySubsequences: false).flatMap {
            $0.split(separator: "_", omittingEmptySubsequences: false)
        }
        guard let first = subtags.first, (2...3).contains(first.count), first.allSatisfy(\.isASCIILetter),
            subtags.dropFirst().allSatisfy({ (1...8).contains($0.count) && $0.allSatisfy(\.isASCIIAlphanumeric) })
        else { return nil }
        return first.lowercased()
    }
}

extension Character {
    fileprivate var isASCIILetter: Bool { isASCII && isLetter }
    fileprivate var isASCIIAlphanumeric: Bool { isASCII && (isLetter || isNumber) }
}
