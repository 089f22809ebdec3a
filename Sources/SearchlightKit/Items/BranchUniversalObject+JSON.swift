/// A field that could not be read, before the reader adds the file and item position.
struct FieldError: Error {
    var code: SearchlightError.Code
    var message: String
}

extension BranchUniversalObject {
    /// The latest expiration or creation date accepted: the last millisecond of year 9999.
    static let latestDate: Int64 = 253_402_300_799_999

    /// Keys that are neither SDK fields nor custom metadata: Searchlight's own, written by `export`.
    static let envelopeKeys: Set<String> = ["domain", "source"]

    /// Reads a BUO from a JSON object in either key dialect, or both mixed.
    ///
    /// Every coercion the SDKs' output needs is applied: booleans from booleans, numbers and the
    /// strings `true`/`false`/`1`/`0`/`YES`/`NO`; dates from numbers or numeric strings in epoch
    /// milliseconds, `0` or less meaning none; keywords from an array or a single string.
    /// Unknown keys become custom metadata.
    ///
    /// - Throws: `FieldError` with ``SearchlightError/Code/missingIdentifier`` (1009) or
    ///   ``SearchlightError/Code/invalidField``, naming the field.
    init(json object: [String: JSONValue]) throws(FieldError) {
        var fields = FieldReader(object: object)
        guard let identifier = try fields.string(ItemField.canonicalIdentifier.keys), !identifier.isEmpty
        else {
            throw FieldError(
                code: .missingIdentifier,
                message: "A canonical identifier is required to uniquely identify content: "
                    + "add \"$canonical_identifier\" (or \"canonicalIdentifier\") with a non-empty string")
        }
        self.init(canonicalIdentifier: identifier)
        canonicalUrl = try fields.string(ItemField.canonicalUrl.keys)
        title = try fields.string(ItemField.title.keys)
        contentDescription = try fields.string(ItemField.contentDescription.keys)
        imageUrl = try fields.string(ItemField.imageUrl.keys)
        keywords = try fields.strings(ItemField.keywords.keys)
        expirationDate = try fields.date(ItemField.expirationDate.keys)
        creationDate = try fields.date(ItemField.creationDate.keys)
        locallyIndex = try fields.bool(ItemField.locallyIndex.keys)
        publiclyIndex = try fields.bool(ItemField.publiclyIndex.keys)
        contentIndexMode = try fields.indexMode(ItemField.contentIndexMode.keys)
        language = try fields.string(ItemField.language.keys)
        if language == nil { language = try fields.strings([ItemField.spotlightLanguages]).first }

        // The camelCase dialect nests metadata; the dictionary dialect spreads it at the top.
        var nested: FieldReader?
        if let value = fields.take("contentMetadata"), value != .null {
            guard case .object(let metadata) = value else {
                throw FieldError(
                    code: .invalidField,
                    message: "\"contentMetadata\" must be an object, not \(value.typeDescription)")
            }
            nested = FieldReader(object: metadata, path: "contentMetadata.")
        }
        for (field, keyPath) in ContentMetadata.textFields {
            var value = try fields.string(field.keys)
            if value == nil, nested != nil { value = try nested!.string(field.nestedKeys) }
            contentMetadata[keyPath: keyPath] = value
        }
        for (field, keyPath) in ContentMetadata.numberFields {
            var value = try fields.number(field.keys)
            if value == nil, nested != nil { value = try nested!.number(field.nestedKeys) }
            contentMetadata[keyPath: keyPath] = value
        }
        let captions = ItemField.imageCaptions
        contentMetadata.imageCaptions = try fields.strings(captions.keys)
        if contentMetadata.imageCaptions.isEmpty, nested != nil {
            contentMetadata.imageCaptions = try nested!.strings(captions.nestedKeys)
        }
        if var nested {
            if let custom = nested.take("customMetadata"), custom != .null {
                guard case .object(let entries) = custom else {
                    throw FieldError(
                        code: .invalidField,
                        message: "\"contentMetadata.customMetadata\" must be an object, not \(custom.typeDescription)")
                }
                contentMetadata.customMetadata.merge(entries) { _, new in new }
            }
            contentMetadata.customMetadata.merge(nested.remaining) { old, _ in old }
        }
        if let views = fields.take(ItemField.views.camelKey), views != .null {
            guard case .integer(let count) = views, count >= 0 else {
                let given: String
                switch views {
                case .integer(let number): given = String(number)
                case .double(let number): given = String(number)
                default: given = views.typeDescription
                }
                throw FieldError(
                    code: .invalidField,
                    message: "\"\(Self.viewsKey)\" must be a whole number of views, 0 or more, not \(given)")
            }
            viewCount = count
        }
        for key in Self.envelopeKeys { _ = fields.take(key) }
        contentMetadata.customMetadata.merge(fields.remaining) { old, _ in old }
    }

    /// The Branch dictionary, as `-[BranchUniversalObject dictionary]` writes it: flat `$` keys,
    /// custom metadata at the top level, absent fields left out.
    public var branchDictionary: [String: JSONValue] {
        var dictionary = contentMetadata.customMetadata
        func set(_ field: ItemField, _ value: JSONValue?) {
            if let key = field.branchKey { dictionary[key] = value }
        }
        set(.canonicalIdentifier, .string(canonicalIdentifier))
        set(.canonicalUrl, canonicalUrl.map(JSONValue.string))
        set(.title, title.map(JSONValue.string))
        set(.contentDescription, contentDescription.map(JSONValue.string))
        set(.imageUrl, imageUrl.map(JSONValue.string))
        set(.keywords, keywords.isEmpty ? nil : .array(keywords.map(JSONValue.string)))
        set(.expirationDate, expirationDate.map(JSONValue.integer))
        set(.creationDate, creationDate.map(JSONValue.integer))
        set(.locallyIndex, locallyIndex.map(JSONValue.bool))
        set(.publiclyIndex, publiclyIndex.map(JSONValue.bool))
        set(.language, language.map(JSONValue.string))
        for (field, keyPath) in ContentMetadata.textFields {
            set(field, contentMetadata[keyPath: keyPath].map(JSONValue.string))
        }
        for (field, keyPath) in ContentMetadata.numberFields {
            set(field, contentMetadata[keyPath: keyPath].map(JSONValue.number))
        }
        if !contentMetadata.imageCaptions.isEmpty {
            set(.imageCaptions, .array(contentMetadata.imageCaptions.map(JSONValue.string)))
        }
        return dictionary
    }
}

extension JSONValue {
    /// A number, written as an integer when it is one.
    static func number(_ value: Double) -> JSONValue {
        if value.rounded() == value, abs(value) < 9.0e15 { return .integer(Int64(value)) }
        return .double(value)
    }
}

/// Reads typed fields out of a JSON object, trying each accepted key in turn and remembering
/// which keys it used, so that the rest can be kept as custom metadata.
struct FieldReader {
    private var object: [String: JSONValue]
    private let path: String

    init(object: [String: JSONValue], path: String = "") {
        self.object = object
        self.path = path
    }

    /// The keys not yet read.
    var remaining: [String: JSONValue] { object }

    /// Removes and returns the first present key's value, with the key.
    mutating func take(_ keys: String...) -> JSONValue? { entry(keys)?.value }

    private mutating func entry(_ keys: [String]) -> (key: String, value: JSONValue)? {
        var found: (key: String, value: JSONValue)?
        for key in keys {
            if let value = object.removeValue(forKey: key), found == nil { found = (key, value) }
        }
        return found
    }

    private func mismatch(_ key: String, _ value: JSONValue, expected: String) -> FieldError {
        FieldError(
            code: .invalidField,
            message: "\"\(path)\(key)\" must be \(expected), not \(value.typeDescription) (\(value.preview))")
    }

    mutating func string(_ keys: [String]) throws(FieldError) -> String? {
        guard let (key, value) = entry(keys) else { return nil }
        switch value {
        case .null: return nil
        case .string(let text): return text
        default: throw mismatch(key, value, expected: "a string")
        }
    }

    mutating func strings(_ keys: [String]) throws(FieldError) -> [String] {
        guard let (key, value) = entry(keys) else { return [] }
        switch value {
        case .null: return []
        case .string(let text): return text.isEmpty ? [] : [text]
        case .array(let elements):
            var texts: [String] = []
            for (position, element) in elements.enumerated() {
                guard case .string(let text) = element else {
                    throw FieldError(
                        code: .invalidField,
                        message: "\"\(path)\(key)\" element \(position + 1) must be a string, "
                            + "not \(element.typeDescription) (\(element.preview))")
                }
                if !text.isEmpty { texts.append(text) }
            }
            return texts
        default: throw mismatch(key, value, expected: "an array of strings or a string")
        }
    }

    mutating func number(_ keys: [String]) throws(FieldError) -> Double? {
        guard let (key, value) = entry(keys) else { return nil }
        switch value {
        case .null: return nil
        case .integer(let number): return Double(number)
        case .double(let number): return number
        case .string(let text):
            guard let number = Double(text.trimmingSpaces), number.isFinite else {
                throw mismatch(key, value, expected: "a number or a numeric string")
            }
            return number
        default: throw mismatch(key, value, expected: "a number")
        }
    }

    /// Epoch milliseconds; `0` or less means none.
    mutating func date(_ keys: [String]) throws(FieldError) -> Int64? {
        guard let (key, value) = entry(keys) else { return nil }
        let milliseconds: Double
        switch value {
        case .null: return nil
        case .integer(let number): milliseconds = Double(number)
        case .double(let number): milliseconds = number
        case .string(let text):
            let trimmed = text.trimmingSpaces
            if trimmed.isEmpty { return nil }
            guard let number = Double(trimmed), number.isFinite else {
                throw mismatch(key, value, expected: "epoch milliseconds (a number or a numeric string)")
            }
            milliseconds = number
        default: throw mismatch(key, value, expected: "epoch milliseconds (a number or a numeric string)")
        }
        if milliseconds <= 0 { return nil }
        guard milliseconds <= Double(BranchUniversalObject.latestDate) else {
            throw FieldError(
                code: .invalidField,
                message: "\"\(path)\(key)\" is out of range: \(value.preview) is after the year 9999; "
                    + "dates are epoch milliseconds")
        }
        return Int64(milliseconds)
    }

    mutating func bool(_ keys: [String]) throws(FieldError) -> Bool? {
        guard let (key, value) = entry(keys) else { return nil }
        switch value {
        case .null: return nil
        case .bool(let flag): return flag
        case .integer(let number): return number != 0
        case .double(let number): return number != 0
        case .string(let text):
            switch text.trimmingSpaces.lowercased() {
            case "true", "1", "yes": return true
            case "false", "0", "no": return false
            default: throw mismatch(key, value, expected: "a boolean (true/false, 1/0 or YES/NO)")
            }
        default: throw mismatch(key, value, expected: "a boolean")
        }
    }

    mutating func indexMode(_ keys: [String]) throws(FieldError) -> ContentIndexMode? {
        guard let (key, value) = entry(keys) else { return nil }
        let expected = "\"public\" or \"private\" (or ContentIndexModePublic / ContentIndexModePrivate)"
        switch value {
        case .null: return nil
        case .integer(0): return .public
        case .integer(1): return .private
        case .string(let text):
            switch text.trimmingSpaces.lowercased() {
            case "public", "contentindexmodepublic": return .public
            case "private", "contentindexmodeprivate": return .private
            default: throw mismatch(key, value, expected: expected)
            }
        default: throw mismatch(key, value, expected: expected)
        }
    }
}

extension JSONValue {
    /// The value in a few characters, for messages.
    var preview: String {
        let text: String
        switch self {
        case .null: text = "null"
        case .bool(let flag): text = String(flag)
        case .integer(let number): text = String(number)
        case .double(let number): text = String(number)
        case .string(let string): text = "\"\(string)\""
        case .array(let elements): text = "[… \(elements.count) elements]"
        case .object(let entries): text = "{… \(entries.count) keys}"
        }
        return text.count > 40 ? String(text.prefix(37)) + "…" : text
    }
}

extension StringProtocol {
    var trimmingSpaces: SubSequence {
        var slice = self[...]
        while let first = slice.first, first.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return slice
    }
}
