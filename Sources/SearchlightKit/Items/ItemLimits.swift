/// What one item may hold. An item over a limit is rejected alone (code 2019,
/// ``SearchlightError/Code/itemTooLarge``), naming its file, its position and the field; the
/// other items of its input are indexed. Reading never holds more than about one item's limit of
/// an input's bytes at once, so a run's memory stays bounded whatever the input.
///
/// Lengths are counted in UTF-8 bytes, as stored.
public enum ItemLimits {
    /// An item's JSON, as read from its input and as stored: 1 MiB.
    public static let itemBytes = 1 << 20
    /// The title (`$og_title`): 4 KiB.
    public static let titleBytes = 4 << 10
    /// The description (`$og_description`): 256 KiB.
    public static let descriptionBytes = 256 << 10
    /// Every other text field of the SDKs (URLs, the content metadata's text), each: 16 KiB.
    public static let fieldBytes = 16 << 10
    /// The keywords (`$keywords`): at most 1,000 of them,
    public static let keywords = 1_000
    /// each at most 1 KiB.
    public static let keywordBytes = 1 << 10

    /// The message for an item over ``itemBytes``, `measured` saying how large it is.
    static func overItemBytes(_ measured: String) -> String {
        "\(measured); an item may be at most \(describe(itemBytes)): move large content elsewhere and link to it"
    }

    /// `bytes` written for people: "1 MiB", "4 KiB", "1.5 MiB", "812 bytes".
    static func describe(_ bytes: Int) -> String {
        for (unit, shift) in [("MiB", 20), ("KiB", 10)] where bytes >= 1 << shift {
            let tenths = (bytes * 10) >> shift
            return tenths % 10 == 0 ? "\(tenths / 10) \(unit)" : "\(tenths / 10).\(tenths % 10) \(unit)"
        }
        return "\(bytes) bytes"
    }
}

extension BranchUniversalObject {
    /// Checks the object against ``ItemLimits``' field limits, naming the first field over one.
    func checkLimits() throws(FieldError) {
        func check(_ value: String?, _ key: String, _ limit: Int) throws(FieldError) {
            guard let value, value.utf8.count > limit else { return }
            throw FieldError(
                code: .itemTooLarge,
                message: "\"\(key)\" is \(ItemLimits.describe(value.utf8.count)) long; it may be at most "
                    + "\(ItemLimits.describe(limit)): shorten it")
        }
        func check(_ value: String?, _ field: ItemField, _ limit: Int) throws(FieldError) {
            try check(value, field.branchKey ?? field.camelKey, limit)
        }
        try check(title, .title, ItemLimits.titleBytes)
        try check(contentDescription, .contentDescription, ItemLimits.descriptionBytes)
        try check(canonicalIdentifier, .canonicalIdentifier, ItemLimits.fieldBytes)
        try check(canonicalUrl, .canonicalUrl, ItemLimits.fieldBytes)
        try check(imageUrl, .imageUrl, ItemLimits.fieldBytes)
        for (field, keyPath) in ContentMetadata.textFields {
            try check(contentMetadata[keyPath: keyPath], field, ItemLimits.fieldBytes)
        }
        if keywords.count > ItemLimits.keywords {
            throw FieldError(
                code: .itemTooLarge,
                message: "\"$keywords\" holds \(keywords.count) keywords; an item may have at most "
                    + "\(ItemLimits.keywords): keep the ones people search for")
        }
        for (position, keyword) in keywords.enumerated() {
            try check(keyword, "$keywords[\(position)]", ItemLimits.keywordBytes)
        }
    }
}
