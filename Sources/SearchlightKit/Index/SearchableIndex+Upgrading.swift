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
                failure: .earlierFormat)
        }
        var items = 0
        let current = writer
        try publishGeneration(at: path, replacing: &writer) { folder throws(SearchlightError) in
            items = try rebuild(current, into: folder)
        }
        return FormatUpgrade(path: path, fromFormat: format, toFormat: XapianDatabase.currentFormat, items: items)
    }

    /// Stores every item of `old`, an index of an earlier format, in a new database at `folder`, as
    /// indexing stores it: each read back from its stored data, with its recorded views and the file
    /// it came from, and the custom fields and client states `old` records. Every format keeps each item whole, so
    /// this one rebuild serves them all. Items expired but not yet pruned are kept, as they were;
    /// ``rebuildBatch`` items are committed at a time, nobody reading the database before it is
    /// published. Returns the number of items.
    static func rebuild(_ old: XapianDatabase, into folder: String) throws(SearchlightError) -> Int {
        let fresh = try XapianDatabase(path: folder, writable: true)
        let fields = try old.customFields()
        let language = try old.defaultLanguage()
        let encoder = JSONEncoder.searchlight()
        var batch: [StoredItem] = []
        var count = 0
        func store() throws(SearchlightError) {
            try fresh.begin()
            do throws(SearchlightError) {
                if count == 0 {
                    try fresh.setCustomFields(fields)
                    try fresh.copyMetadata(from: old, prefix: ClientStateUpdate.keyPrefix)
                    try fresh.copyMetadata(from: old, prefix: XapianDatabase.languageKey)
                }
                // No item expires here: the rebuild keeps what is stored, and pruning is its own.
                _ = try fresh.replace(batch, now: .min)
            } catch {
                fresh.cancel()
                throw error
            }
            try fresh.commit()
            count += batch.count
            batch.removeAll(keepingCapacity: true)
        }
        do {
            try old.forEachDocument { data, _, views, source in
                let item = try storedItem(data, views: views, source: source, path: old.path)
                do throws(FieldError) {
                    batch.append(
                        try StoredItem(
                            item, lineDigest: 0, encoder: encoder, fields: fields, defaultLanguage: language))
                } catch {
                    throw SearchlightError(
                        error.code, "An item stored in \(old.path) cannot be stored again: \(error.message)",
                        path: old.path)
                }
                if batch.count == rebuildBatch { try store() }
            }
            if !batch.isEmpty || count == 0 { try store() }
        } catch let error as SearchlightError {
            try? fresh.close()
            throw error
        } catch {
            try? fresh.close()
            throw SearchlightError(.internalError, "Cannot rebuild the index at \(old.path): \(error)")
        }
        try fresh.close()
        return count
    }

    /// How many items ``rebuild(_:into:)`` commits at a time.
    static let rebuildBatch = 10_000
}
