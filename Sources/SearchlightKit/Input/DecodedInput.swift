import FoundationEssentials

/// One BUO read from an input, with where it was.
public struct DecodedObject: Sendable, Hashable {
    public var object: BranchUniversalObject
    /// The item's own `domain` key, as `export` writes it.
    public var domain: String?
    /// The item's own `source` key, as `export` writes it: the file it was first indexed from,
    /// which it keeps when indexed again from the export.
    public var source: String?
    /// The 1-based position of the item in its file.
    public var item: Int
    /// The 1-based line, for JSON Lines.
    public var line: Int?
    /// The salted digest of the JSON Lines line it came from, when read through a ``LineFilter``.
    var lineDigest: UInt64?

    public init(
        object: BranchUniversalObject, domain: String? = nil, source: String? = nil, item: Int, line: Int? = nil
    ) {
        self.object = object
        self.domain = domain
        self.source = source
        self.item = item
        self.line = line
    }
}

/// Everything read from one input file: its objects and its rejections.
public struct DecodedInput: Sendable, Hashable {
    public var path: String
    /// The absolute path of the file read, which its items record (``SearchableItem/source``);
    /// `nil` for standard input and input held in memory.
    public var source: String?
    public var objects: [DecodedObject] = []
    public var rejections: [SearchlightError] = []
    /// JSON Lines lines a ``LineFilter`` recognized as stored unchanged: not decoded.
    var knownLines: [KnownLine] = []

    /// A line recognized by its digest, kept whole in case the writer finds it changed after all.
    struct KnownLine: Sendable, Hashable {
        var digest: UInt64
        /// The stored item's document id in the view the filter asked.
        var document: UInt32
        var bytes: Data
        var item: Int
        var line: Int
    }

    public init(path: String) { self.path = path }
}
