import FoundationEssentials
import Synchronization

/// One write to one shard of a topology, as a batch's journal records it (``BatchJournal``).
///
/// Done again on the shard as it was before the batch, a write does the same: a new item keeps the
/// document id the batch gave it, and every time (expiry, views) is the batch's own `now`. So a
/// writer that starts after a crash completes a batch on the shards that did not commit it, and
/// every shard then holds what one index written with the same batches holds.
enum ShardWrite: Codable, Sendable {
    /// Upserts items (``XapianDatabase/replace(_:now:budget:)``).
    case store(items: [StoredItem], now: Int64)
    /// Removes items by identifier.
    case remove(identifiers: [String], domain: String, includePublic: Bool)
    /// Records one view of each item.
    case views(identifiers: [String], domain: String, now: Int64)
    /// Removes the items read from a file, but those it keeps.
    case removeSource(source: String, keeping: [ItemName])
    /// Removes a domain's items, and those of the domains below it.
    case removeDomain(domain: String, includePublic: Bool)
    /// Removes every item expired at `now`.
    case prune(now: Int64)
    /// Makes a custom metadata key a field, and gives the stored items their values.
    case addField(name: String, type: FieldType)
    /// Removes a custom field, and clears the stored items' values of it.
    case removeField(name: String)
    /// Stores vectors of meaning, and marks the items the model does not read, by the shard's own
    /// document ids; records `model` as the one that made them.
    case meaning(entries: [XapianDatabase.Meaning], model: String)
    /// Removes every vector of meaning and the model recorded.
    case clearMeaning
    /// Records a domain's client state (``ClientStateUpdate``), as its metadata record.
    case clientState(domain: String, record: String)
    /// Records the index's default language (``SearchableIndex/setDefaultLanguage(_:)``).
    case defaultLanguage(code: String)

    /// An item's name: its domain and identifier.
    struct ItemName: Codable, Sendable {
        var domain: String
        var identifier: String
    }

    /// What a write did on its shard.
    enum Outcome {
        case stored([XapianDatabase.StoreOutcome])
        case removed([XapianDatabase.RemovalOutcome])
        case viewed([Bool])
        case count(Int)
        /// How many items were given a vector, and how many the mark of needing none.
        case meaning(vectors: Int, unread: Int)
        /// The field added or removed (nil when the shard did not have the field to remove), and
        /// how many items it filled or cleared.
        case field(ItemAttribute?, items: Int)
        /// Done, with nothing to report.
        case done

        var stored: [XapianDatabase.StoreOutcome] { if case .stored(let outcomes) = self { outcomes } else { [] } }
        var removed: [XapianDatabase.RemovalOutcome] { if case .removed(let outcomes) = self { outcomes } else { [] } }
        var viewed: [Bool] { if case .viewed(let recorded) = self { recorded } else { [] } }
        var count: Int {
            switch self {
            case .count(let count), .field(_, let count): count
            default: 0
            }
        }

        /// Whether the write left its shard as it was: a batch of such writes commits nothing.
        var changesNothing: Bool {
            switch self {
            case .stored(let outcomes): outcomes.allSatisfy { $0 == .unchanged }
            case .removed(let outcomes): !outcomes.contains(.removed)
            case .viewed(let recorded): !recorded.contains(true)
            case .count(let count): count == 0
            case .field(let field, _): field == nil
            case .meaning(let vectors, let unread): vectors + unread == 0
            case .done: false
            }
        }
    }

    /// Does the write on `shard`, inside its transaction.
    func perform(on shard: XapianDatabase) throws(SearchlightError) -> Outcome {
        switch self {
        case .store(let items, let now):
            return .stored(try shard.replace(items, now: now))
        case .remove(let identifiers, let domain, let includePublic):
            return .removed(try shard.delete(identifiers: identifiers, domain: domain, includePublic: includePublic))
        case .views(let identifiers, let domain, let now):
            return .viewed(try shard.recordViews(identifiers: identifiers, domain: domain, now: now))
        case .removeSource(let source, let keeping):
            return .count(try shard.deleteSource(source, keeping: keeping.map { ($0.domain, $0.identifier) }))
        case .removeDomain(let domain, let includePublic):
            return .count(try shard.deleteDomain(domain, includePublic: includePublic))
        case .prune(let now):
            return .count(try shard.deleteExpired(now: now, dryRun: false))
        case .addField(let name, let type):
            var fields = try shard.customFields()
            guard !fields.contains(where: { $0.name == name }) else {
                throw SearchlightError(.fieldConflict, "The index already has the field \(quoted(name))")
            }
            guard fields.count < ItemAttribute.maximumCustomFields else {
                throw SearchlightError(
                    .fieldConflict,
                    "The index has \(fields.count) custom fields, the most it can have: remove one first")
            }
            let taken = Set(fields.map(\.slot))
            let slot = (ItemAttribute.firstCustomSlot...).first { !taken.contains($0) }!
            let field = ItemAttribute(custom: name, type: type, slot: slot)
            fields.append(field)
            try shard.setCustomFields(fields)
            return .field(field, items: try shard.fill(field))
        case .removeField(let name):
            var fields = try shard.customFields()
            guard let field = fields.first(where: { $0.name == name }) else { return .field(nil, items: 0) }
            fields.removeAll { $0.name == name }
            try shard.setCustomFields(fields)
            return .field(field, items: try shard.clearAttribute(field))
        case .meaning(let entries, let model):
            try SearchableIndex.requireModel(recorded: try shard.meaningModel())
            let stored = try shard.setMeaning(entries)
            if stored.vectors + stored.unread > 0, try shard.meaningModel() == nil { try shard.setMeaningModel(model) }
            return .meaning(vectors: stored.vectors, unread: stored.unread)
        case .clearMeaning:
            try shard.clearMeaning()
            try shard.setMeaningModel(nil)
            return .done
        case .clientState(let domain, let record):
            try shard.setMetadata(ClientStateUpdate.key(for: domain), record)
            return .done
        case .defaultLanguage(let code):
            guard try shard.defaultLanguage() != code else { return .count(0) }
            try shard.setMetadata(XapianDatabase.languageKey, code == "en" ? "" : code)
            return .done
        }
    }
}

/// The writes of one batch to each shard of a topology, in the order they were done; shared by
/// the threads that write the shards.
final class ShardJournal: Sendable {
    private let writes: Mutex<[[ShardWrite]]>

    init(shards: Int) {
        writes = Mutex(Array(repeating: [], count: shards))
    }

    func record(_ write: ShardWrite, on shard: Int) {
        writes.withLock { $0[shard].append(write) }
    }

    /// Each shard's writes, in the topology's order.
    var recorded: [[ShardWrite]] { writes.withLock { $0 } }
}
