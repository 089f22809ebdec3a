internal import CXapian

/// What the shim's schema fixes that the Kit's types build on: the value slots it keeps for itself
/// and for the attributes, and which keys of an item's data an attribute's value gives back.
extension XapianDatabase {
    /// The slot of the expiration, which the ``ItemAttribute/expires`` attribute reads.
    static let expirationSlot = CX_SLOT_EXPIRATION.rawValue
    /// The slot of the recorded views, sortable, which the ``ItemAttribute/views`` attribute reads.
    static let viewsSlot = CX_SLOT_VIEWS.rawValue
    /// The first slot of the attributes the Kit assigns (``ItemAttribute``).
    static let firstAttributeSlot = CX_SLOT_FIRST_ATTRIBUTE.rawValue

    /// The key of an item's data that the value of the attribute in `slot` gives back, and which
    /// the data may so leave out (`cx_stored_key`); nil for none.
    static func storedKey(slot: UInt32) -> String? { cx_stored_key(slot).map { String(cString: $0) } }
}
