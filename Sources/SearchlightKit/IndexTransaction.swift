import Foundation

/// The writes of one transaction, handed to ``SearchableIndex/performBatch(_:)``'s closure.
///
/// Valid only inside that closure: everything written through it is committed together when the
/// closure returns, or abandoned when it throws.
public struct IndexTransaction {
    let database: XapianDatabase

    /// Indexes items, upserting by (domain, identifier); see ``SearchableIndex/indexSearchableItems(_:now:)``.
    public func indexSearchableItems(_ items: [SearchableItem], now: Int64) throws(SearchlightError)
        -> IndexingReport
    {
        for item in items { try SearchableItem.validateDomain(item.domainIdentifier) }
        return try store(items, now: now)
    }

    /// Indexes decoded input; see ``SearchableIndex/index(_:options:strict:now:)``.
    public func index(_ inputs: [DecodedInput], options: IndexingOptions, strict: Bool = false, now: Int64)
        throws(SearchlightError) -> IndexingReport
    {
        try SearchableItem.validateDomain(options.domainIdentifier)
        var report = IndexingReport()
        var items: [SearchableItem] = []
        for input in inputs {
            report.rejected += input.rejections.count
            report.errors += input.rejections
            for decoded in input.objects {
                do {
                    let (item, clamped) = try options.prepare(decoded, now: now)
                    items.append(item)
                    if clamped { report.clamped += 1 }
                } catch {
                    report.rejected += 1
                    report.errors.append(
                        SearchlightError(
                            error.code, error.message, path: input.path, item: decoded.item, line: decoded.line))
                }
            }
        }
        guard !items.isEmpty, !(strict && report.rejected > 0) else { return report }
        report.merge(try store(items, now: now))
        return report
    }

    private func store(_ items: [SearchableItem], now: Int64) throws(SearchlightError) -> IndexingReport {
        let encoder = JSONEncoder.searchlight()
        var stored: [StoredItem] = []
        stored.reserveCapacity(items.count)
        for item in items {
            let object = item.object
            let data: Data
            do {
                data = try encoder.encode(item.dictionary)
            } catch {
                throw SearchlightError(.internalError, "Cannot encode \(quoted(item.uniqueIdentifier)): \(error)")
            }
            stored.append(
                StoredItem(
                    domain: item.domainIdentifier, identifier: object.canonicalIdentifier, title: object.title ?? "",
                    description: object.contentDescription ?? "", schema: object.contentMetadata.contentSchema ?? "",
                    keywords: object.keywords, data: Array(data), isPublic: item.contentIndexMode == .public,
                    expiration: object.expirationDate ?? 0))
        }
        var report = IndexingReport()
        for outcome in try database.replace(stored, now: now) {
            switch outcome {
            case .added: report.added += 1
            case .replaced: report.updated += 1
            case .expired: report.expired += 1
            }
        }
        report.indexed = report.added + report.updated
        return report
    }

    /// Removes items by identifier; see ``SearchableIndex/deleteSearchableItems(withIdentifiers:domainIdentifier:includePublic:)``.
    public func deleteSearchableItems(
        withIdentifiers identifiers: [String], domainIdentifier: String, includePublic: Bool = false
    ) throws(SearchlightError) -> RemovalReport {
        try SearchableItem.validateDomain(domainIdentifier)
        guard !identifiers.isEmpty else {
            throw SearchlightError(
                .removalWithoutIdentifier, "A removal needs at least one canonical identifier; name the items to remove"
            )
        }
        var report = RemovalReport()
        let named = identifiers.filter { !$0.isEmpty }
        if named.count < identifiers.count {
            report.refused.append(
                .init(id: "", code: .removalWithoutIdentifier, message: "An empty identifier names no item"))
        }
        guard !named.isEmpty else { return report }
        let outcomes = try database.delete(identifiers: named, domain: domainIdentifier, includePublic: includePublic)
        for (identifier, outcome) in zip(named, outcomes) {
            switch outcome {
            case .removed: report.removed += 1
            case .notFound: report.notFound.append(identifier)
            case .refusedPublic:
                report.refused.append(
                    .init(
                        id: identifier, code: .publicContentNotRemovable,
                        message: "Spotlight cannot remove publicly indexed content; it leaves the index when it "
                            + "expires"))
            }
        }
        return report
    }

    /// Removes the private items of domains, recursively; see ``SearchableIndex/deleteSearchableItems(withDomainIdentifiers:includePublic:)``.
    public func deleteSearchableItems(withDomainIdentifiers domains: [String], includePublic: Bool = false)
        throws(SearchlightError) -> Int
    {
        for domain in domains { try SearchableItem.validateDomain(domain) }
        var removed = 0
        for domain in domains { removed += try database.deleteDomain(domain, includePublic: includePublic) }
        return removed
    }

    /// Deletes every expired item.
    public func pruneExpiredItems(now: Int64) throws(SearchlightError) -> Int {
        try database.deleteExpired(now: now, dryRun: false)
    }
}
