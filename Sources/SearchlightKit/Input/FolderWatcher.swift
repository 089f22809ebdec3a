import FoundationEssentials
import Glibc

/// What changes under files and folders, as the kernel's inotify reports it: input files written
/// and closed, moved in or out, or deleted, and folders created or moved in, which are watched in
/// turn. No polling.
///
/// Changes come in batches (``next(quiet:longest:timeout:)``): a batch gathers every change until none
/// has come for `quiet`, or for at most `longest`, so that an editor's save (written to a
/// temporary file, then renamed over the old one) or a burst of thousands of files is one batch.
/// Each path of a batch is judged by what is there when the batch ends: a file deleted and written
/// again is written.
///
/// ```swift
/// let watcher = try FolderWatcher(paths: ["exports/"])
/// while let changes = watcher.next() {
///     print(changes.written, changes.removed)
/// }
/// ```
public final class FolderWatcher: @unchecked Sendable {
    /// One batch of changes.
    public struct Changes: Sendable, Hashable {
        /// Input files (`.json`, `.jsonl`, `.ndjson`) written and closed, or moved in, that are
        /// there now, sorted.
        public var written: [String] = []
        /// Input files, and folders, deleted or moved away, that are not there now, sorted.
        public var removed: [String] = []
        /// The kernel's queue overflowed and changes were lost: every watched path is to be read
        /// again (`written` then holds every input file under them).
        public var overflowed = false

        public init(written: [String] = [], removed: [String] = [], overflowed: Bool = false) {
            self.written = written
            self.removed = removed
            self.overflowed = overflowed
        }

        public var isEmpty: Bool { written.isEmpty && removed.isEmpty && !overflowed }

        /// Adds a later batch: each path judged again by what is there now.
        public mutating func merge(_ later: Changes) {
            let paths = Set(written + removed + later.written + later.removed)
            written = paths.filter { FileSystem.kind(atPath: $0) == .file }.sorted()
            removed = paths.filter { FileSystem.kind(atPath: $0) == nil }.sorted()
            overflowed = overflowed || later.overflowed
        }
    }

    /// The paths given, as given (a trailing slash dropped).
    public let paths: [String]
    private let descriptor: Int32
    /// A pipe whose write end ``stop()`` writes to: `wake[0]` is polled beside the inotify
    /// descriptor.
    private var wake: [Int32] = [-1, -1]
    // Touched only by the thread calling `next`.
    private var folders: [Int32: String] = [:]
    /// For a watched file's folder that is not itself watched whole: the names watched in it.
    private var onlyNames: [String: Set<String>] = [:]

    /// Starts watching `paths`: folders (with every folder under them) and files.
    ///
    /// - Throws: ``SearchlightError/Code/unreadableInput`` for a path that does not exist or
    ///   cannot be watched (the system's limit on watches reached, say).
    public init(paths: [String]) throws(SearchlightError) {
        self.paths = paths.map { $0.count > 1 && $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0, pipe(&wake) == 0 else {
            let reason = FileSystem.lastError()
            if descriptor >= 0 { close(descriptor) }
            throw SearchlightError(.internalError, "Cannot watch for changes: \(reason)")
        }
        for end in wake { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        do throws(SearchlightError) {
            for path in self.paths {
                switch FileSystem.kind(atPath: path) {
                case .directory?:
                    _ = try watchTree(path)
                case .some:
                    let folder = Self.folder(of: path)
                    if !folders.values.contains(folder) { try watch(folder: folder) }
                    onlyNames[folder, default: []].insert(Self.name(of: path))
                case nil:
                    throw SearchlightError(.unreadableInput, "No such file or directory: \(path)", path: path)
                }
            }
        } catch {
            close(descriptor)
            close(wake[0])
            close(wake[1])
            throw error
        }
    }

    deinit {
        close(descriptor)
        close(wake[0])
        close(wake[1])
    }

    /// Makes ``next(quiet:longest:timeout:)`` return `nil`, now or when it is next called: from any
    /// thread, or a signal handler's.
    public func stop() {
        var one: UInt8 = 1
        _ = write(wake[1], &one, 1)
    }

    /// Waits for the next batch of changes, or at most `timeout` for the first of them (then the
    /// batch is empty); `nil` once ``stop()`` is called.
    public func next(
        quiet: Duration = .milliseconds(200), longest: Duration = .seconds(1), timeout: Duration? = nil
    ) -> Changes? {
        var touched: Set<String> = []
        var overflowed = false
        var started: ContinuousClock.Instant?
        let called = ContinuousClock.now
        while true {
            let wait: Int32
            if let started {
                let left = min(quiet, longest - (ContinuousClock.now - started))
                if left <= .zero { break }
                wait = Self.milliseconds(left)
            } else if let timeout {
                let left = timeout - (ContinuousClock.now - called)
                if left <= .zero { break }
                wait = Self.milliseconds(left)
            } else {
                wait = -1
            }
            var polled = [
                pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake[0], events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&polled, 2, wait)
            if ready < 0, errno == EINTR { continue }
            if polled[1].revents != 0 { return nil }
            if ready == 0 { break }
            if read(into: &touched, overflowed: &overflowed) { started = started ?? .now }
        }
        return changes(touched, overflowed: overflowed)
    }

    /// The batches of changes, as ``next(quiet:longest:timeout:)`` gives them, waited for on a
    /// system thread of their own (never Swift's cooperative pool); the sequence ends when
    /// ``stop()`` is called or its consumer stops listening.
    public func batches() -> AsyncStream<Changes> {
        let (stream, continuation) = AsyncStream.makeStream(of: Changes.self, bufferingPolicy: .unbounded)
        continuation.onTermination = { [self] _ in stop() }
        do throws(SearchlightError) {
            try OSThread.start(name: "folder-watch") { [self] in
                while let changes = next() { continuation.yield(changes) }
                continuation.finish()
            }
        } catch {
            continuation.finish()
        }
        return stream
    }

    /// Reads the events waiting; true when any counted.
    private func read(into touched: inout Set<String>, overflowed: inout Bool) -> Bool {
        var counted = false
        let size = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let count = Glibc.read(descriptor, buffer, size)
            guard count > 0 else { break }
            var offset = 0
            while offset < count {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let nameStart = buffer.advanced(by: offset + MemoryLayout<inotify_event>.size)
                let name =
                    event.len > 0
                    ? String(cString: nameStart.assumingMemoryBound(to: CChar.self)) : ""
                offset += MemoryLayout<inotify_event>.size + Int(event.len)
                if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    overflowed = true
                    counted = true
                    continue
                }
                if event.mask & UInt32(IN_IGNORED) != 0 {
                    folders[event.wd] = nil
                    continue
                }
                guard let folder = folders[event.wd], !name.isEmpty, !name.hasPrefix(".") else { continue }
                if let names = onlyNames[folder], !names.contains(name) { continue }
                let path = folder + "/" + name
                if event.mask & UInt32(IN_ISDIR) != 0 {
                    if event.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
                        // Files may have been written before the watch began: they count as written.
                        touched.formUnion((try? watchTree(path)) ?? [])
                    }
                    touched.insert(path)
                    counted = true
                } else if Self.isInput(name) {
                    touched.insert(path)
                    counted = true
                }
            }
        }
        return counted
    }

    /// The batch: each path judged by what is there now.
    private func changes(_ touched: Set<String>, overflowed: Bool) -> Changes {
        var result = Changes(overflowed: overflowed)
        if overflowed {
            for path in paths { _ = try? watchTree(path) }
            result.written = (try? BranchUniversalObjectReader.inputFiles(for: paths.filter(Self.exists))) ?? []
        }
        var written = Set(result.written)
        var removed: Set<String> = []
        for path in touched {
            switch FileSystem.kind(atPath: path) {
            case .file?: if Self.isInput(Self.name(of: path)) { written.insert(path) }
            case .directory?: break
            case .other?: break
            case nil: removed.insert(path)
            }
        }
        result.written = written.sorted()
        result.removed = removed.sorted()
        return result
    }

    /// Watches `root` and every folder under it; returns the input files found in them.
    private func watchTree(_ root: String) throws(SearchlightError) -> [String] {
        var found: [String] = []
        var pending = [root]
        while let folder = pending.popLast() {
            try watch(folder: folder)
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            for name in names where !name.hasPrefix(".") {
                let path = folder + "/" + name
                switch FileSystem.kind(atPath: path) {
                case .directory?: pending.append(path)
                case .file?: if Self.isInput(name) { found.append(path) }
                default: break
                }
            }
        }
        return found
    }

    private func watch(folder: String) throws(SearchlightError) {
        let mask =
            IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE | IN_DELETE_SELF | IN_ONLYDIR
        let watch = inotify_add_watch(descriptor, folder, UInt32(mask))
        guard watch >= 0 else {
            let advice =
                errno == ENOSPC
                ? " (the system's limit on watches: raise fs.inotify.max_user_watches with sysctl)" : ""
            throw SearchlightError(
                .unreadableInput, "Cannot watch \(folder): \(FileSystem.lastError())\(advice)", path: folder)
        }
        folders[watch] = folder
    }

    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        return Int32(clamping: max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000))
    }

    private static func isInput(_ name: String) -> Bool {
        guard let dot = name.lastIndex(of: ".") else { return false }
        return BranchUniversalObjectReader.fileExtensions.contains(name[name.index(after: dot)...].lowercased())
    }

    private static func exists(_ path: String) -> Bool { FileSystem.kind(atPath: path) != nil }

    private static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
