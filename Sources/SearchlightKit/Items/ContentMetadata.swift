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

    /// The text fields: (Branch dictionary key, camelCase key, property).
    static let textFields:
        [(branch: String, camel: String, keyPath: any WritableKeyPath<ContentMetadata, String?> & Sendable)] = [
            ("$content_schema", "contentSchema", \.contentSchema),
            ("$currency", "currency", \.currency),
            ("$sku", "sku", \.sku),
            ("$product_name", "productName", \.productName),
            ("$product_brand", "productBrand", \.productBrand),
            ("$product_category", "productCategory", \.productCategory),
            ("$product_variant", "productVariant", \.productVariant),
            ("$condition", "condition", \.condition),
            ("$address_street", "addressStreet", \.addressStreet),
            ("$address_city", "addressCity", \.addressCity),
            ("$address_region", "addressRegion", \.addressRegion),
            ("$address_country", "addressCountry", \.addressCountry),
            ("$address_postal_code", "addressPostalCode", \.addressPostalCode),
        ]

    /// The numeric fields: (Branch dictionary key, camelCase key, property).
    static let numberFields:
        [(branch: String, camel: String, keyPath: any WritableKeyPath<ContentMetadata, Double?> & Sendable)] = [
            ("$price", "price", \.price),
            ("$quantity", "quantity", \.quantity),
            ("$rating_average", "ratingAverage", \.ratingAverage),
            ("$rating_count", "ratingCount", \.ratingCount),
            ("$rating_max", "ratingMax", \.ratingMax),
            ("$rating", "rating", \.rating),
            ("$latitude", "latitude", \.latitude),
            ("$longitude", "longitude", \.longitude),
        ]

    /// The captions field's keys.
    static let captionKeys = (branch: "$image_captions", camel: "imageCaptions")
}
