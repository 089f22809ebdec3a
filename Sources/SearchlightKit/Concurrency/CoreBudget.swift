public import FoundationEssentials

/// The cores Xapian work may use, and how many threads each kind of work gets from them: the one
/// place the Kit decides it. The C shim runs on the threads it is given and starts none.
///
/// Xapian work runs on system threads, never on Swift's cooperative pool, since every call may
/// block on the disk, a lock or a remote shard. The threads each kind of work gets:
///
/// | work | threads |
/// |---|---|
/// | a bulk build run by a command | ``builders`` segment builders, and one thread reading the input |
/// | a bulk build in a service | ``serviceBuilders``, leaving a core to the readers |
/// | a transaction of 512 items or more | the writer's, and one building documents ahead of it when ``pipelinesWrites`` |
/// | a service's searches | ``readers`` reader threads; a search runs whole on one (Xapian 1.4 matches on one thread) |
/// | a service's writes | one writer thread, where concurrent writes share a commit |
/// | every shard of a topology, or every segment of a build copying survivors | one per shard or segment: a shard's calls wait on its disk or network, and a build has ``builders`` segments at most |
///
/// Threads that only wait (a writer waiting for the folder's lock, in the kernel) are not counted.
///
/// ```swift
/// let budget = CoreBudget.machine
/// let indexer = Indexer(jobs: budget.builders)
/// let pool = try IndexPool(path: "/srv/index", readers: budget.readers)
/// ```
public struct CoreBudget: Sendable, Hashable {
    /// The cores shared out: at least one.
    public let cores: Int

    /// A budget of `cores` cores (at least one).
    public init(cores: Int) { self.cores = max(1, cores) }

    /// The cores this process may run on.
    public static let machine = CoreBudget(cores: ProcessInfo.processInfo.activeProcessorCount)

    /// The most segment builders a bulk build uses: each holds a database of its own open (several
    /// files) and a share of the build's memory budget.
    public static let maximumBuilders = 64

    /// Segment builders for a bulk build that has the cores to itself: one per core, at most
    /// ``maximumBuilders``. The reading thread beside them splits and hashes the input, a few
    /// percent of the work.
    public var builders: Int { min(cores, Self.maximumBuilders) }

    /// Segment builders for a bulk build a service runs while it goes on answering searches: one
    /// core fewer than ``builders``, at least one.
    public var serviceBuilders: Int { max(1, builders - 1) }

    /// Reader threads for a service's pool: two per core, at least four, since a search also waits
    /// on the disk when its postings are not in memory.
    public var readers: Int { max(4, 2 * cores) }

    /// Whether a transaction builds its items' documents on a second thread, a step ahead of the
    /// writer that stores them: term generation is about a fifth of a write, and Xapian's writer
    /// cannot be shared. Only with a second core.
    public var pipelinesWrites: Bool { cores > 1 }
}
