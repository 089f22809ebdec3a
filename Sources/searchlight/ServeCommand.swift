import ArgumentParser
import SearchlightCommandLine

/// `searchlight serve`: runs the service's own program, `searchlight-server`, in this process's
/// place (``ServerProgram``). `main` hands it `serve`'s arguments before anything is parsed, so
/// its help, errors and exit statuses are that program's; this command lists it in the help.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: ServerProgram.abstract, discussion: ServerProgram.discussion)

    @Argument(parsing: .captureForPassthrough, help: "The service's options (searchlight serve --help).")
    var arguments: [String] = []

    func run() throws {
        Output.warn("searchlight: " + ServerProgram.exec(arguments))
        throw ExitStatus.failure
    }
}
