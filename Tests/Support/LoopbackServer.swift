import Foundation

/// A server program of Xapian's (`xapian-tcpsrv`, `xapian-replicate-server`) listening on a free
/// loopback port, which a test can kill as a machine's crash would and start again on the same
/// port.
public final class LoopbackServer: @unchecked Sendable {
    public let program: String
    private let arguments: (_ port: Int32) -> [String]
    public private(set) var port: Int32 = 0
    private var process: Process?

    /// Starts `program` with `arguments(port)` on a free port, and waits until it accepts.
    public init(program: String, arguments: @escaping (_ port: Int32) -> [String]) throws {
        self.program = program
        self.arguments = arguments
        try start()
    }

    /// `xapian-tcpsrv` serving one shard's folder (a database already) read-only; it closes a
    /// connection idle for `idleTimeout` milliseconds (Xapian's default: 60,000).
    public static func shard(folder: String, idleTimeout: Int? = nil) throws -> LoopbackServer {
        let timeout = idleTimeout.map { ["--idle-timeout", String($0)] } ?? []
        return try LoopbackServer(program: "/usr/bin/xapian-tcpsrv") { port in
            ["--interface", "127.0.0.1", "--port", String(port), "-q"] + timeout + [folder]
        }
    }

    /// The topology line that names this server as a shard.
    public var shardLine: String { "remote 127.0.0.1:\(port)" }

    /// Starts the server on a free port, or on the port it had, and waits until it accepts.
    public func start() throws {
        for _ in 0..<20 {
            let candidate = port != 0 ? port : Int32.random(in: 20_000..<60_000)
            let server = Process()
            server.executableURL = URL(fileURLWithPath: program)
            server.arguments = arguments(candidate)
            server.standardOutput = FileHandle.nullDevice
            server.standardError = FileHandle.nullDevice
            try server.run()
            let deadline = Date().addingTimeInterval(10)
            while server.isRunning, Date() < deadline, !Self.accepts(port: candidate) {
                Thread.sleep(forTimeInterval: 0.02)
            }
            if server.isRunning, Self.accepts(port: candidate) {
                process = server
                port = candidate
                return
            }
            server.waitUntilExit()  // the port was taken: try another
            if port != 0 { Thread.sleep(forTimeInterval: 0.2) }
        }
        throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "\(program) did not start"])
    }

    /// Kills the server and the processes it forked for its connections, as a machine's crash
    /// would: nothing of theirs runs on.
    public func kill() {
        guard let process else { return }
        // Stopped first, it forks no connection process while its children are killed: one that
        // outlived it would hold the test's pipe to it until its idle timeout.
        Foundation.kill(process.processIdentifier, SIGSTOP)
        let children = Process()
        children.executableURL = URL(fileURLWithPath: "/usr/bin/pkill")
        children.arguments = ["-KILL", "-P", String(process.processIdentifier)]
        try? children.run()
        children.waitUntilExit()
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    private static func accepts(port: Int32) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    deinit { kill() }
}
