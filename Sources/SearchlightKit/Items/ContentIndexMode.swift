/// Whether an item is indexed publicly or privately, as the Branch SDK's `contentIndexMode`.
///
/// Private items are what Core Spotlight's `CSSearchableIndex` holds: visible to their own domain
/// only and removable. Public items are what `NSUserActivity` public indexing holds: visible to
/// every domain and not removable by the removal APIs; they leave when they expire.
public enum ContentIndexMode: String, Sendable, Hashable, Codable, CaseIterable {
    case `public`
    case `private`
}
