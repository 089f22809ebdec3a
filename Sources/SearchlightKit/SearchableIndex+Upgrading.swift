import FoundationEssentials

// Rebuilding an index of an earlier format into the current one.

extension SearchableIndex {
    /// Rebuilds the index folder at `path`, whose writer is `writer`, into the current format when
    /// it is in an earlier one: a new generation, published atomically (``publishGeneration(at:replacing:write:)``),
    /// which `writer` then writes. `nil` when it is current.
    static func upgradeIfOlder(path: String, writer: inout XapianDatabase) throws(SearchlightError) -> FormatUpgrade? {
        let format = try writer.format()
        guard format != XapianDatabase.currentFormat else { return nil }
        guard FileSystem.kind(atPath: path) == .directory else {
            throw SearchlightError(
                .indexUnavailable,
                "The index at \(path) is in index format \(format), and only an index folder can be rebuilt into "
                    + "format \(XapianDatabase.currentFormat): open each of its databases for writing on its own",
                failure: .wrongFormat)
        }
        var items = 0
        let current = writer
        try publishGeneration(at: path, replacing: &writer) { folder throws(SearchlightError) in
            items = try current.upgrade(to: folder)
            try addAttributes(at: folder)
        }
        return FormatUpgrade(path: path, fromFormat: format, toFormat: XapianDatabase.currentFormat, items: items)
    }

    /// Gives every item of the upgraded database at `folder` its attributes (``ItemAttribute``),
    /// which only the items' data holds, and stores the data less what they give back: read back,
    /// in batches, in one transaction.
    static func addAttributes(at folder: String) throws(SearchlightError) {
        // The rebuild's writer has just let go of the lock; a process another thread started
        // meanwhile holds a copy of it until it runs its program, so opening waits a while.
        let writer = try LockWait.open(path: folder, layout: .single, until: .now + .seconds(10))
        defer { try? writer.close() }
        try writer.begin()
        do {
            // With the custom fields its metadata records, if any.
            let fields = try writer.customFields()
            _ = try writer.addAttributes(leavingOut: true) { item in item.object.attributeValues(custom: fields) }
        } catch {
            writer.cancel()
            throw error
        }
        try writer.commit()
    }
}
