import Foundation

/// Waits for a database's write lock: Xapian fails at once while another writer holds it, so
/// opening is tried again every 50 ms until the deadline.
///
/// A wait in the kernel (`CX_OPEN_WRITE_WAITING`, Xapian's `DB_RETRY_LOCK`, on a thread of its
/// own) was tried and hung once in GenerationTests.waitingWriter, a writer that waited through a
/// compaction; it is in the history of this file for whoever finds why.
enum LockWait {
    /// Opens `path` for writing, waiting until `deadline` for another writer to finish.
    ///
    /// - Throws: ``SearchlightError/Code/indexLocked`` past the deadline, or whatever opening fails
    ///   with.
    static func open(path: String, layout: IndexLayout, until deadline: ContinuousClock.Instant)
        throws(SearchlightError) -> XapianDatabase
    {
        while true {
            do throws(SearchlightError) {
                return try XapianDatabase(path: path, writable: true, layout: layout)
            } catch SearchlightError.indexLocked where ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
    }
}
