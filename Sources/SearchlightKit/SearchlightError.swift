/// The one error type of Searchlight.
///
/// Every failure carries a numeric ``Code`` (the Branch SDK's codes where one exists, the
/// project's own otherwise) and a message that names the file, item, field, identifier or query
/// at fault and says how to fix it.
///
/// ```swift
/// do {
///     let index = try SearchableIndex(path: path, access: .readWrite(lockTimeout: .seconds(10)))
/// } catch SearchlightError.indexLocked {
///     // another writer holds the index; try again later
/// }
/// ```
public struct SearchlightError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. Stable: scripts and HTTP clients read it.
    public struct Code: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public var rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// 1009: an item has no canonical identifier (the Branch SDK's code).
        public static let missingIdentifier = Code(rawValue: 1009)
        /// 1010: the index cannot be opened or created: missing, damaged, or not an index.
        public static let indexUnavailable = Code(rawValue: 1010)
        /// 1013: a removal named no identifier (the Branch SDK's code).
        public static let removalWithoutIdentifier = Code(rawValue: 1013)
        /// 1014: public content cannot be removed (the Branch SDK's code).
        public static let publicContentNotRemovable = Code(rawValue: 1014)
        /// 2001: a field has the wrong type or an impossible value.
        public static let invalidField = Code(rawValue: 2001)
        /// 2002: a file or line is not valid JSON.
        public static let invalidJSON = Code(rawValue: 2002)
        /// 2003: an input file cannot be read.
        public static let unreadableInput = Code(rawValue: 2003)
        /// 2004: a search query is malformed.
        public static let invalidQuery = Code(rawValue: 2004)
        /// 2005: another process holds the index's write lock.
        public static let indexLocked = Code(rawValue: 2005)
        /// 2006: no item has that identifier (or it has expired).
        public static let itemNotFound = Code(rawValue: 2006)
        /// 2007: writing the index failed (for example, the disk is full); nothing was committed.
        public static let writeFailed = Code(rawValue: 2007)
        /// 2008: an argument is invalid (a domain, a duration, a limit).
        public static let invalidArgument = Code(rawValue: 2008)
        /// 2009: a JSON value that should be a BUO object is not one.
        public static let notAnObject = Code(rawValue: 2009)
        /// 2010: an internal failure; the message says what Xapian reported.
        public static let internalError = Code(rawValue: 2010)
        // 2011–2013 are the HTTP service's own (SearchlightServer).
        /// 2014: the index is read-only here: a replica kept by `xapian-replicate`, or a service
        /// started with `--read-only`. Writes go to the primary.
        public static let readOnly = Code(rawValue: 2014)
        // 2015 is the HTTP service's own (SearchlightServer).
        /// 2016: a search query is longer, or holds more words, phrases and filters, than a search
        /// accepts (``SearchQuery/maximumLength``, ``SearchQuery/maximumTerms``).
        public static let queryTooLarge = Code(rawValue: 2016)
        // 2017–2018 are the HTTP service's own (SearchlightServer).
        /// 2019: an item is over one of ``ItemLimits``: its size, a field's length, or its number
        /// of keywords. The item alone is rejected.
        public static let itemTooLarge = Code(rawValue: 2019)
        /// 2020: the index has no custom field of that name.
        public static let fieldNotFound = Code(rawValue: 2020)
        /// 2021: a custom field cannot be added: the index has it already, or has the most it can.
        public static let fieldConflict = Code(rawValue: 2021)
        /// 2022: meaning was asked for, and the meaning model is not installed, or a file of it is
        /// not the pinned one (``MeaningModel``). The message says how to install it.
        public static let meaningUnavailable = Code(rawValue: 2022)
        /// 2023: the index's vectors of meaning were made by another model than the one installed.
        /// `searchlight embed --rebuild` (``SearchableIndex/clearMeaning()``) makes them anew.
        public static let meaningModelMismatch = Code(rawValue: 2023)
        /// 2024: a batch's expected client state (``ClientStateUpdate/Condition/expecting(_:)``)
        /// is not the one stored: nothing of the batch was committed.
        public static let clientStateMismatch = Code(rawValue: 2024)

        public var description: String { String(rawValue) }
    }

    public var code: Code
    public var message: String
    /// The input file, when the error is about one (`-` for standard input).
    public var path: String?
    /// The 1-based position of the item in its file (the array element or the JSON Lines object).
    public var item: Int?
    /// The 1-based line in the file, for JSON Lines and syntax errors.
    public var line: Int?
    /// The 1-based column, for syntax errors.
    public var column: Int?
    /// The underlying failure, such as Xapian's own message.
    public var cause: String?
    /// What the index reported, for errors that come from opening, reading or writing it.
    public var failure: IndexFailure?

    /// What went wrong with an index, as its storage reported it. Front ends choose their words
    /// (and exit statuses) from it; the ``code`` stays what scripts read.
    public enum IndexFailure: String, Sendable, Hashable, Codable {
        /// Nothing is at the path.
        case notFound
        /// Something is at the path, but it cannot be opened as an index.
        case notOpenable
        /// Another writer holds the index.
        case locked
        /// The index is damaged.
        case corrupt
        /// The index was written in another format.
        case wrongFormat
        /// The index is of an earlier format, which its next writer rebuilds into the current one
        /// (any write, or a compaction); until then its items are read, but it is not searched.
        case earlierFormat
        /// Memory ran out.
        case outOfMemory
        /// A remote part of the index could not be reached.
        case network
        /// Writers' commits kept overtaking a reader.
        case modified
        /// Reading or writing the files failed, for example on a full disk.
        case io
        /// The handle was already closed.
        case closed
        /// Anything else the storage reported.
        case other
    }

    public init(
        _ code: Code, _ message: String, path: String? = nil, item: Int? = nil, line: Int? = nil,
        column: Int? = nil, cause: String? = nil, failure: IndexFailure? = nil
    ) {
        self.code = code
        self.message = message
        self.path = path
        self.item = item
        self.line = line
        self.column = column
        self.cause = cause
        self.failure = failure
    }

    /// `path:line:column: item N: message (code)`, with the parts that are known.
    public var description: String { "\(located) (code \(code.rawValue))" }

    /// `path:line:column: item N: message`, with the parts that are known.
    public var located: String {
        var location = ""
        if let path {
            location = path
            if let line { location += ":\(line)" }
            if let column { location += ":\(column)" }
            location += ": "
        }
        if let item { location += "item \(item): " }
        return location + message
    }

    public static let missingIdentifier = Code.missingIdentifier
    public static let indexUnavailable = Code.indexUnavailable
    public static let removalWithoutIdentifier = Code.removalWithoutIdentifier
    public static let publicContentNotRemovable = Code.publicContentNotRemovable
    public static let invalidField = Code.invalidField
    public static let invalidJSON = Code.invalidJSON
    public static let unreadableInput = Code.unreadableInput
    public static let invalidQuery = Code.invalidQuery
    public static let indexLocked = Code.indexLocked
    public static let itemNotFound = Code.itemNotFound
    public static let writeFailed = Code.writeFailed
    public static let invalidArgument = Code.invalidArgument
    public static let notAnObject = Code.notAnObject
    public static let internalError = Code.internalError
    public static let queryTooLarge = Code.queryTooLarge
    public static let fieldNotFound = Code.fieldNotFound
    public static let fieldConflict = Code.fieldConflict
    public static let clientStateMismatch = Code.clientStateMismatch
}

extension SearchlightError.Code {
    /// Lets `catch SearchlightError.indexLocked` match errors by code.
    public static func ~= (code: Self, error: any Error) -> Bool {
        (error as? SearchlightError)?.code == code
    }

    /// The same, for typed throws.
    public static func ~= (code: Self, error: SearchlightError) -> Bool {
        error.code == code
    }
}

extension SearchlightError {
    static func invalidArgument(_ message: String) -> SearchlightError {
        SearchlightError(.invalidArgument, message)
    }
}

/// `text` in straight double quotes, its own quotes escaped: how messages name a value.
func quoted(_ text: String) -> String {
    "\"" + text.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\\\"") + "\""
}
