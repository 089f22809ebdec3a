import Dispatch
import Glibc
import SearchlightKit

/// While one lives, SIGINT and SIGTERM ask the command to stop rather than end the process: the
/// vectors of meaning being made stop within about a second, those made are committed
/// (``embedding``), and `also` runs (a watch stops watching). A second signal ends the process at
/// once, as without this: every write is a transaction, so only what was not yet committed is lost.
final class StopSignals {
    let embedding = EmbeddingStop()
    private let sources: [any DispatchSourceSignal]

    init(also: @escaping @Sendable () -> Void = {}) {
        let embedding = embedding
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                embedding.request()
                also()
                StopSignals.restoreDefaults()
            }
            source.resume()
            return source
        }
    }

    deinit {
        sources.forEach { $0.cancel() }
        Self.restoreDefaults()
    }

    private static func restoreDefaults() {
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
