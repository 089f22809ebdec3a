package import ArgumentParser
package import SearchlightKit

/// How the command line words an error: the library states what happened, and this adds what a
/// user of `searchlight` can do about it, naming its commands and flags.
extension SearchlightError {
    /// What to do next, or `nil` when the message says it all.
    package var advice: String? {
        switch (code, failure) {
        case (_, .notFound?):
            "create one by indexing some files (searchlight index FILE…), or name another with --index"
        case (_, .notOpenable?):
            "check the path (or --index), or create it by indexing; if it is damaged, move it aside and re-index "
                + "your files, or index a saved `searchlight export`"
        case (_, .network?):
            "check that the index's server is running and reachable, or name another index with --index"
        case (_, .corrupt?):
            "recover by moving it aside and re-indexing your files, or by indexing a saved `searchlight export`"
        case (_, .earlierFormat?):
            message.contains("searchlight compact")
                ? nil : "rebuild it by writing it once, for example with searchlight compact"
        case (_, .wrongFormat?):
            "rebuild it: searchlight export --all-domains --include-expired > items.jsonl, then index items.jsonl "
                + "into a new index"
        case (_, .locked?):
            "try again when it has finished, or raise --lock-timeout"
        case (_, .io?):
            "free some disk space and try again"
        case (_, .outOfMemory?):
            "index fewer files at a time, or lower --jobs"
        case (_, .modified?):
            "try again"
        case (.publicContentNotRemovable, _):
            "or pass --include-public"
        case (.clientStateMismatch, _):
            "searchlight client-state with the same --domain prints the stored one"
        default:
            nil
        }
    }

    /// The error with its advice added to the message.
    package var withAdvice: SearchlightError {
        guard let advice else { return self }
        var error = self
        error.message += code == .publicContentNotRemovable ? " (\(advice))" : "; \(advice)"
        return error
    }

    /// The exit status this error calls for (docs/reference.md, *Exit statuses*).
    package var exitCode: ExitCode {
        switch code {
        case .indexLocked: ExitStatus.locked
        case .indexUnavailable where failure == .notFound: ExitStatus.noIndex
        case .indexUnavailable where failure == .network: ExitStatus.unavailable
        case .invalidQuery, .queryTooLarge, .invalidArgument, .fieldNotFound, .fieldConflict: ExitStatus.usage
        default: ExitStatus.failure
        }
    }
}

extension RemovalReport {
    /// The report with the command line's advice added to each refusal.
    package var withAdvice: RemovalReport {
        var report = self
        report.refused = refused.map { refusal in
            var refusal = refusal
            refusal.message = SearchlightError(refusal.code, refusal.message).withAdvice.message
            return refusal
        }
        return report
    }
}
