import FoundationEssentials
import Glibc

/// The HTTP service's program, `searchlight-server`, which `searchlight serve` becomes.
///
/// The service lives in a program of its own so that the CLI, which people and scripts start for
/// every search, never loads the service's code (Hummingbird, NIO and what they bring).
package enum ServerProgram {
    package static let name = "searchlight-server"

    package static let abstract = "Serve the index over HTTP: JSON search, indexing and removal, and a search page."

    package static let discussion = """
        Listens on --host and --port (default 127.0.0.1:7700) and prints the address when ready. \
        Without --tokens every request is anonymous and sees public items only, read only. The \
        tokens file maps bearer tokens to a domain and a role:
          {"tokens":[{"token":"…","domain":"com.example.shop","role":"write"}]}
        Writes are queued to one writer and committed in small batches; the service holds the \
        index's write lock while it runs. With --read-only (a replica's service, its index kept \
        by xapian-replicate) it takes no lock and never prunes, and every write gets 405, code \
        2014, naming --primary. SIGTERM or SIGINT commits writes in flight and exits 0. \
        Logs (method, path, status, duration; never tokens) go to stderr, as text or, with \
        --log-format json, one JSON object per line. The service is the \
        program searchlight-server, installed beside searchlight.

        Examples:
          searchlight serve
          searchlight serve --port 8080 --tokens tokens.json --prune-interval 10m
          searchlight serve --index replica --read-only --primary http://10.0.0.1:7700
          curl 'http://127.0.0.1:7700/v1/search?q=deep+linking'
        """

    /// Replaces this process with `searchlight-server` and `arguments`: the one beside this
    /// program's own file, else the first on `PATH`. Returns only when neither can be run, with
    /// the message to show.
    package static func exec(_ arguments: [String]) -> String {
        let beside = URL(fileURLWithPath: ownExecutable()).deletingLastPathComponent().appendingPathComponent(name).path
        let argv = ([name] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        execv(beside, argv)
        let besideError = errno
        execvp(name, argv)
        return "cannot run \(name), the program that serves the index: it is not beside this program "
            + "(\(beside): \(String(cString: strerror(besideError)))) or on PATH; install it next to searchlight"
    }

    /// The path of the running program's file.
    private static func ownExecutable() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}
