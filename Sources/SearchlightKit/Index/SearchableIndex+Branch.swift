/// The Branch SDK's Spotlight methods, over Core Spotlight's vocabulary.
///
/// ```swift
/// try index.indexOnSpotlight(usingSearchableItems: objects, domainIdentifier: "com.example.shop")
/// try index.removeSearchableItems(with: stale, domainIdentifier: "com.example.shop")
/// try index.removeAllPrivateContentFromSpotlight(domainIdentifier: "com.example.shop")
/// ```
extension SearchableIndex {
    /// Indexes BUOs (`indexOnSpotlightUsingSearchableItems:`), applying the lifetimes of
    /// `options` (by default the Branch limit of 31 days) at `now`.
    @discardableResult
    public func indexOnSpotlight(
        usingSearchableItems objects: [BranchUniversalObject], domainIdentifier: String = SearchableItem.defaultDomain,
        options: IndexingOptions = IndexingOptions(), now: Int64 = currentTime()
    ) throws(SearchlightError) -> IndexingReport {
        var options = options
        options.domainIdentifier = domainIdentifier
        options.itemsMayChooseDomain = false
        var input = DecodedInput(path: "indexOnSpotlight")
        input.objects = objects.enumerated().map { position, object in
            DecodedObject(object: object, domain: nil, item: position + 1, line: nil)
        }
        return try index([input], options: options, now: now)
    }

    /// Indexes one BUO (`indexOnSpotlightWithBranchUniversalObject:`).
    @discardableResult
    public func indexOnSpotlight(
        with object: BranchUniversalObject, domainIdentifier: String = SearchableItem.defaultDomain,
        now: Int64 = currentTime()
    ) throws(SearchlightError) -> IndexingReport {
        try indexOnSpotlight(usingSearchableItems: [object], domainIdentifier: domainIdentifier, now: now)
    }

    /// Removes one BUO's item (`-[BranchUniversalObject removeFromSpotlightWithCallback:]`).
    /// A public item is refused with code 1014.
    @discardableResult
    public func removeFromSpotlight(
        _ object: BranchUniversalObject, domainIdentifier: String = SearchableItem.defaultDomain
    ) throws(SearchlightError) -> RemovalReport {
        try removeSearchableItems(with: [object], domainIdentifier: domainIdentifier)
    }

    /// Removes the items of several BUOs (`removeSearchableItemsWithBranchUniversalObjects:`).
    @discardableResult
    public func removeSearchableItems(
        with objects: [BranchUniversalObject], domainIdentifier: String = SearchableItem.defaultDomain
    ) throws(SearchlightError) -> RemovalReport {
        try deleteSearchableItems(
            withIdentifiers: objects.map(\.canonicalIdentifier), domainIdentifier: domainIdentifier)
    }

    /// Removes every private item of the domain, and of the domains below it
    /// (`removeAllPrivateContentFromSpotlightWithCallback:`). Public items stay.
    ///
    /// - Returns: the number of items removed.
    @discardableResult
    public func removeAllPrivateContentFromSpotlight(domainIdentifier: String = SearchableItem.defaultDomain)
        throws(SearchlightError) -> Int
    {
        try deleteSearchableItems(withDomainIdentifiers: [domainIdentifier])
    }
}
