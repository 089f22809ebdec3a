import FoundationEssentials

/// Takes Xapian's write lock on a database. Searchlight's writers wait for each other in the kernel
/// on the folder's lock (``FolderLock``), so this lock is free at once unless a process that does
/// not take the folder's lock holds it (`xapian-compact`, a writer of a stub file of the user's);
/// for that rare case, opening is tried again every 50 ms until the deadline.
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
                OSThread.sleep(for: .milliseconds(50))
            }
        }
    }
}
