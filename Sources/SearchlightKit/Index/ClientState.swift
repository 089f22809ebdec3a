public import FoundationEssentials

/// A batch's client state, as Core Spotlight's `CSSearchableIndex` keeps it: opaque bytes that an
/// app commits together with a batch of writes, and reads back after a crash to learn which batch
/// was the last to commit (``SearchableIndex/fetchLastClientState(domainIdentifier:)``).
///
/// Each domain has its own state. It is committed in the same transaction as the batch's items —
/// on every shard of a topology, with the batch's number — so the state read back always names
/// exactly what is indexed.
///
/// ```swift
/// let batch = index.beginIndexBatch(domainIdentifier: "com.example.shop")
/// batch.indexSearchableItems(page)
/// try batch.endIndexBatch(expectedClientState: lastPage, newClientState: Data("page-42".utf8))
/// ```
public struct ClientStateUpdate: Sendable, Hashable {
    /// When the new state may be committed.
    public enum Condition: Sendable, Hashable {
        /// Whatever the domain's state is.
        case unconditional
        /// Only when the domain's stored state is this one (`nil`, or empty bytes: none stored
        /// yet); otherwise nothing of the batch is committed.
        case expecting(Data?)
    }

    /// The most bytes a client state holds.
    public static let maximumSize = 1024

    public var domainIdentifier: String
    /// The state committed with the batch: 1 to ``maximumSize`` bytes.
    public var newState: Data
    public var condition: Condition

    public init(domainIdentifier: String, newState: Data, condition: Condition = .unconditional) {
        self.domainIdentifier = domainIdentifier
        self.newState = newState
        self.condition = condition
    }

    /// The metadata key a domain's state is recorded under (on every shard of a topology); the
    /// value is the state in base64, since Xapian's metadata travels through the shim as text.
    static func key(for domain: String) -> String { keyPrefix + domain }
    static let keyPrefix = "searchlight.client-state."

    /// Checks the domain and the new state's size.
    ///
    /// - Throws: ``SearchlightError/Code/invalidArgument`` naming what is wrong.
    public func validate() throws(SearchlightError) {
        try SearchableItem.validateDomain(domainIdentifier)
        guard (1...Self.maximumSize).contains(newState.count) else {
            throw SearchlightError(
                .invalidArgument,
                "A client state holds 1 to 1,024 bytes; the one given for domain \(domainIdentifier) "
                    + "holds \(newState.count)")
        }
        if case .expecting(let expected?) = condition, expected.count > Self.maximumSize {
            throw SearchlightError(
                .invalidArgument,
                "A client state holds at most 1,024 bytes; the expected one for domain "
                    + "\(domainIdentifier) holds \(expected.count), so no stored state can equal it")
        }
    }

    /// Checks the update (``validate()``) and its condition against the state `transaction`
    /// sees stored.
    func check(in transaction: IndexTransaction) throws(SearchlightError) {
        try validate()
        try check(stored: try transaction.clientState(domainIdentifier: domainIdentifier))
    }

    /// Checks the condition against the domain's stored state.
    ///
    /// - Throws: ``SearchlightError/Code/clientStateMismatch`` naming both states when a
    ///   compare-and-set finds another state stored.
    func check(stored: Data?) throws(SearchlightError) {
        guard case .expecting(let given) = condition else { return }
        let expected = given.flatMap { $0.isEmpty ? nil : $0 }
        guard stored != expected else { return }
        throw SearchlightError(
            .clientStateMismatch,
            "The client state of domain \(domainIdentifier) is \(Self.describe(stored)), not the expected "
                + "\(Self.describe(expected)): nothing of this batch was committed; read the domain's last client "
                + "state and resume from the batch after it")
    }

    /// The write that records the new state on a shard.
    var write: ShardWrite { .clientState(domain: domainIdentifier, record: newState.base64EncodedString()) }

    /// The record of a stored state: `nil` for a metadata value that holds none.
    static func decode(_ record: String) -> Data? {
        record.isEmpty ? nil : Data(base64Encoded: record)
    }

    /// How a message names a state: its text, when it is short printable UTF-8, else its size and
    /// base64.
    static func describe(_ state: Data?) -> String {
        guard let state else { return "none" }
        if let text = String(validating: state, as: UTF8.self), text.count <= 64,
            !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        {
            return quoted(text)
        }
        let base64 = state.base64EncodedString()
        return "\(state.count) bytes (base64 \(base64.count > 48 ? base64.prefix(48) + "…" : base64))"
    }
}

extension ClientStateUpdate {
    /// An update from states given as text, as a command line or a request gives them: `state` to
    /// commit, unconditionally, or only if the stored one is `expected` ('' for none stored). Each
    /// is its UTF-8, or, with `base64`, the bytes its standard base64 encodes; `names` name the two
    /// values in errors. The update is checked (``validate()``).
    ///
    /// - Throws: ``SearchlightError/Code/invalidArgument`` for text that is not base64, or a state
    ///   that ``validate()`` refuses.
    public init(
        domainIdentifier: String, state: String, expected: String?, base64: Bool,
        names: (state: String, expected: String)
    ) throws(SearchlightError) {
        let expectedBytes = try expected.map { text throws(SearchlightError) in
            try Self.bytes(of: text, base64: base64, naming: names.expected)
        }
        self.init(
            domainIdentifier: domainIdentifier,
            newState: try Self.bytes(of: state, base64: base64, naming: names.state),
            condition: expectedBytes.map { .expecting($0) } ?? .unconditional)
        try validate()
    }

    /// The bytes that `text` gives as a state: its UTF-8, or, with `base64`, the bytes its
    /// standard base64 (padded or not, a space read as the `+` that form decoding made it) encodes.
    /// `name` names the value in the error.
    private static func bytes(of text: String, base64: Bool, naming name: String) throws(SearchlightError) -> Data {
        guard base64 else { return Data(text.utf8) }
        guard let bytes = BranchLink.decodeBase64(text) else {
            throw SearchlightError(
                .invalidArgument, "The \(name) \(quoted(text)) is not base64 (standard alphabet, padding optional)")
        }
        return bytes
    }
}

/// A domain's client state as a JSON document shows it: `clientState`, its text when it is
/// UTF-8, and `clientStateBase64`, its bytes, both `null` when none is stored.
public struct ClientStateRecord: Sendable, Hashable, Codable {
    public var domain: String
    public var clientState: String?
    public var clientStateBase64: String?

    public init(domain: String, state: Data?) {
        self.domain = domain
        clientState = state.flatMap { String(validating: $0, as: UTF8.self) }
        clientStateBase64 = state?.base64EncodedString()
    }

    // Every key is written, `null` included: a script reads `clientState` without a default.
    enum CodingKeys: String, CodingKey { case domain, clientState, clientStateBase64 }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(domain, forKey: .domain)
        try container.encode(clientState, forKey: .clientState)
        try container.encode(clientStateBase64, forKey: .clientStateBase64)
    }
}

extension IndexTransaction {
    /// The client state of the domain's last committed batch (or the one this transaction set);
    /// `nil` before the domain's first. See ``SearchableIndex/fetchLastClientState(domainIdentifier:)``.
    public func clientState(domainIdentifier: String) throws(SearchlightError) -> Data? {
        try SearchableItem.validateDomain(domainIdentifier)
        // Every batch records the state on every shard, so the first shard's is every shard's.
        return ClientStateUpdate.decode(try database.metadata(ClientStateUpdate.key(for: domainIdentifier)))
    }

    /// Commits `update`'s state with this transaction's writes, on every shard of a topology,
    /// when its condition holds.
    ///
    /// - Throws: ``SearchlightError/Code/clientStateMismatch`` when the stored state is not the
    ///   expected one (the caller's transaction is then abandoned, with every write in it),
    ///   ``SearchlightError/Code/invalidArgument`` for a domain that is not valid or a state of
    ///   no bytes or more than ``ClientStateUpdate/maximumSize``.
    public func updateClientState(_ update: ClientStateUpdate) throws(SearchlightError) {
        try update.check(in: self)
        _ = try onEveryShard(update.write)
    }
}
