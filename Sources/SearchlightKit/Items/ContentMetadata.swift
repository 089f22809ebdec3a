/// The Branch SDK's `BranchContentMetadata`: schema, commerce, rating, address, geo and captions,
/// and custom metadata.
///
/// In the Branch dictionary dialect these are flat `$` keys (`$price`, `$sku`); in the camelCase
/// dialect they sit under `contentMetadata` (`price`, `sku`). Custom metadata is every other
/// top-level key of the dictionary dialect, or `contentMetadata.customMetadata`.
public struct ContentMetadata: Sendable, Hashable {
    public var contentSchema: String?
    public var price: Double?
    public var currency: String?
    public var quantity: Double?
    public var sku: String?
    public var productName: String?
    public var productBrand: String?
    public var productCategory: String?
    public var productVariant: String?
    public var condition: String?
    public var ratingAverage: Double?
    public var ratingCount: Double?
    public var ratingMax: Double?
    public var rating: Double?
    public var addressStreet: String?
    public var addressCity: String?
    public var addressRegion: String?
    public var addressCountry: String?
    public var addressPostalCode: String?
    public var latitude: Double?
    public var longitude: Double?
    public var imageCaptions: [String] = []
    /// Every key the SDK does not define, kept as given.
    public var customMetadata: [String: JSONValue] = [:]

    public init() {}

    /// The text fields of the table of an item's fields (``ItemField``), with their properties.
    static let textFields: [(field: ItemField, keyPath: any WritableKeyPath<ContentMetadata, String?> & Sendable)] = [
        (.named("contentSchema"), \.contentSchema),
        (.named("currency"), \.currency),
        (.named("sku"), \.sku),
        (.named("productName"), \.productName),
        (.named("productBrand"), \.productBrand),
        (.named("productCategory"), \.productCategory),
        (.named("productVariant"), \.productVariant),
        (.named("condition"), \.condition),
        (.named("addressStreet"), \.addressStreet),
        (.named("addressCity"), \.addressCity),
        (.named("addressRegion"), \.addressRegion),
        (.named("addressCountry"), \.addressCountry),
        (.named("addressPostalCode"), \.addressPostalCode),
    ]

    /// The numeric fields of the table of an item's fields (``ItemField``), with their properties.
    static let numberFields: [(field: ItemField, keyPath: any WritableKeyPath<ContentMetadata, Double?> & Sendable)] =
        [
            (.named("price"), \.price),
            (.named("quantity"), \.quantity),
            (.named("ratingAverage"), \.ratingAverage),
            (.named("ratingCount"), \.ratingCount),
            (.named("ratingMax"), \.ratingMax),
            (.named("rating"), \.rating),
            (.named("latitude"), \.latitude),
            (.named("longitude"), \.longitude),
        ]
}
