/// How a search on a read-only index may be split by document id, each part matched on a thread
/// of its own (the shim's `parts.cpp`). Parts change how long a search takes, never what it finds.
struct SearchSplit: Sendable, Hashable {
    /// At most this many parts; 0 lets each search take the cores no other search of the process
    /// is using (at most 8) when there are at least 3 of them, and 1 never splits.
    var mostParts: Int
    /// A part for each this many postings the query's terms hold together; 0 for the default,
    /// 200,000 (2–4 ms of matching).
    var postingsPerPart: Int

    /// The default: split when a query reads enough to gain by it and 3 or more cores are free.
    static let automatic = SearchSplit(mostParts: 0, postingsPerPart: 0)
}
