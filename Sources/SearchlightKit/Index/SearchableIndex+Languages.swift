import FoundationEssentials

// The index's default language (SPEC §2.5): the language of the items that name none and whose text
// is not told, and the one the detector expects.

extension SearchableIndex {
    /// The index's default language, as an ISO 639 code: English (`en`) unless
    /// ``setDefaultLanguage(_:)`` recorded another.
    public func defaultLanguage() throws(SearchlightError) -> String {
        try read { database throws(SearchlightError) in try database.defaultLanguage() }
    }

    /// Makes `tag` the index's default language; see ``IndexTransaction/setDefaultLanguage(_:)``.
    @discardableResult
    public func setDefaultLanguage(_ tag: String) throws(SearchlightError) -> Bool {
        try performBatch { batch throws(SearchlightError) in try batch.setDefaultLanguage(tag) }
    }
}

extension IndexTransaction {
    /// Makes the language of `tag` (`fr`; `pt-BR` is `pt`) the index's default, in this write: an
    /// item written from then on that names no language is told in its text's language with this
    /// one expected, and is in this one when its text cannot be told. Items already stored keep
    /// theirs. An index made of shards records it in each. Returns whether the default changed.
    ///
    /// - Throws: ``SearchlightError/Code/invalidArgument`` for a tag that names no language.
    @discardableResult
    public func setDefaultLanguage(_ tag: String) throws(SearchlightError) -> Bool {
        guard let code = BranchUniversalObject.languageCode(of: tag) else {
            throw .invalidArgument("An index's language must be a language tag such as fr or pt-BR, not \(quoted(tag))")
        }
        var changed = false
        for index in shards.indices where !(try write(.defaultLanguage(code: code), on: index).changesNothing) {
            changed = true
        }
        return changed
    }
}
