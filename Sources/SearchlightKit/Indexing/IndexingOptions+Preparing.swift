import FoundationEssentials

extension IndexingOptions {
    /// These options, for the index `database` writes: its custom fields and its default language.
    func with(indexOf database: XapianDatabase) throws(SearchlightError) -> IndexingOptions {
        var options = self
        options.customFields = try database.customFields()
        options.defaultLanguage = try database.defaultLanguage()
        return options
    }

    /// The items to store for the objects of `input`, with their positions in it; the input's
    /// rejections, and the objects that cannot be prepared, go to `report`.
    func prepare(_ input: DecodedInput, now: Int64, report: inout IndexingReport) throws(SearchlightError)
        -> [(item: StoredItem, position: Int)]
    {
        report.rejected += input.rejections.count
        report.errors += input.rejections
        let encoder = JSONEncoder.searchlight()
        var stored: [(item: StoredItem, position: Int)] = []
        for decoded in input.objects {
            do throws(FieldError) {
                var (item, clamped, lineDigest) = try prepare(decoded, now: now)
                // An item exported with the file it came from keeps it (a restored backup), where
                // items may name their own envelope (a local run, not a request over HTTP).
                item.source = (itemsMayChooseDomain ? decoded.source : nil) ?? input.source
                stored.append(
                    (
                        try StoredItem(
                            item, lineDigest: lineDigest, encoder: encoder, fields: customFields,
                            defaultLanguage: defaultLanguage), decoded.item
                    )
                )
                if clamped { report.clamped += 1 }
            } catch {
                report.rejected += 1
                report.errors.append(
                    SearchlightError(
                        error.code, error.message, path: input.path, item: decoded.item, line: decoded.line))
            }
        }
        return stored
    }
}

extension StoredItem {
    /// What the shim stores for `item`: its fields, its attributes with those of the index's custom
    /// `fields`, and its dictionary as JSON, less what the attributes give back.
    ///
    /// An item that names no language is given the one its text is told in, `defaultLanguage`
    /// expected, else `defaultLanguage`.
    ///
    /// - Throws: `FieldError` with ``SearchlightError/Code/itemTooLarge`` for an item over one
    ///   of ``ItemLimits``.
    init(
        _ item: SearchableItem, lineDigest: UInt64, encoder: JSONEncoder, fields: [ItemAttribute],
        defaultLanguage: String
    ) throws(FieldError) {
        let object = item.object
        if let language = object.language, BranchUniversalObject.languageCode(of: language) == nil {
            throw FieldError(
                code: .invalidField,
                message: "\"$language\" must be a language tag such as \"fr\" or \"pt-BR\", not \"\(language)\"")
        }
        try object.checkLimits()
        var values = object.attributeValues(custom: fields)
        // An item that names no language has the one its text is told in, else the index's
        // default, as an attribute alone: its data stays as given.
        if object.language == nil {
            values.append(
                AttributeValue(
                    slot: ItemAttribute.language.slot,
                    content: .text(object.writtenLanguage(expecting: defaultLanguage))))
        }
        let (data, moved) = try Self.data(of: item, leavingOut: values, encoder: encoder)
        guard data.count <= ItemLimits.itemBytes else {
            throw FieldError(
                code: .itemTooLarge,
                message: ItemLimits.overItemBytes("The item is \(ItemLimits.describe(data.count)) as stored"))
        }
        self.init(
            domain: item.domainIdentifier, identifier: object.canonicalIdentifier, title: object.title ?? "",
            description: object.contentDescription ?? "", schema: object.contentMetadata.contentSchema ?? "",
            keywords: object.keywords, data: Array(data), isPublic: item.contentIndexMode == .public,
            expiration: object.expirationDate ?? 0, lineDigest: lineDigest, views: object.viewCount ?? -1,
            source: item.source ?? "", values: values, moved: moved)
    }

    /// The JSON the index stores for `item`: its dictionary, less the keys whose value one of
    /// `values` gives back exactly (a field `given_back` in `cx_item_fields`: the same number or
    /// text), which the stored data carries as values and reading puts back; `moved` names them as
    /// `cx_item.moved` does. The source is kept as a term, not in the data: a path per item would
    /// cost every item its bytes.
    static func data(of item: SearchableItem, leavingOut values: [AttributeValue], encoder: JSONEncoder)
        throws(FieldError) -> (data: Data, moved: UInt32)
    {
        var dictionary = item.dictionary
        dictionary["source"] = nil
        var moved: UInt32 = 0
        for value in values {
            guard let key = ItemAttribute.storedKeys[value.slot] else { continue }
            let given: JSONValue
            switch value.content {
            case .number(let number):
                given = .number(number)
                // A whole number of 9e15 or more is read back as an integer, not as this double.
                if case .double(let double) = given, double.rounded() == double { continue }
            case .text(let text): given = .string(text)
            case .point: continue
            }
            guard dictionary[key] == given else { continue }
            dictionary[key] = nil
            moved |= 1 << (value.slot - XapianDatabase.firstAttributeSlot)
        }
        do {
            return (try encoder.encode(dictionary), moved)
        } catch {
            throw FieldError(code: .internalError, message: "Cannot encode the item: \(error)")
        }
    }
}

extension IndexingReport {
    /// Counts the outcomes of storing items.
    mutating func count(_ outcomes: [XapianDatabase.StoreOutcome]) {
        for outcome in outcomes {
            switch outcome {
            case .added: added += 1
            case .replaced: updated += 1
            case .expired: expired += 1
            case .unchanged, .moved: unchanged += 1
            }
        }
        indexed = added + updated + unchanged
    }
}

extension BranchUniversalObject {
    /// The language of the item (SPEC §2.5): the one it names; else the one its title, description
    /// and keywords are written in, as Compact Language Detector 2 tells it (its canonical URL's
    /// country domain and the index's default language `expected` hinting); else `expected`.
    func writtenLanguage(expecting expected: String) -> String {
        if let languageCode { return languageCode }
        let text = ([title, contentDescription].compactMap { $0 } + keywords).joined(separator: ". ")
        let host = canonicalUrl.flatMap { URLComponents(string: $0)?.host } ?? ""
        return XapianDatabase.detectLanguage(text, host: host, expected: expected) ?? expected
    }
}
