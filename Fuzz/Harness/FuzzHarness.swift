// What every fuzz target's `main` does. Built with `-D FUZZING` (and `-sanitize=fuzzer`), it runs
// libFuzzer's driver on the target; built plainly, it replays the files named on the command line,
// which is how a crash is reproduced.

import Foundation

/// A libFuzzer callback: the input's bytes and count; returns 0.
public typealias FuzzTarget = @convention(c) (UnsafePointer<UInt8>, Int) -> CInt

#if FUZZING
    /// libFuzzer's driver, for executables that keep their own `main` (as SwiftPM's do).
    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: FuzzTarget
    ) -> CInt

    public func fuzzMain(_ target: FuzzTarget) -> Never {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(runFuzzerDriver(&argc, &argv, target))
    }
#else
    public func fuzzMain(_ target: FuzzTarget) -> Never {
        do {
            for path in CommandLine.arguments.dropFirst() {
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                _ = data.withUnsafeBytes { raw in
                    target(raw.bindMemory(to: UInt8.self).baseAddress ?? UnsafePointer(bitPattern: 1)!, data.count)
                }
                print("ok \(path)")
            }
            exit(0)
        } catch {
            print("cannot read an input: \(error)")
            exit(1)
        }
    }
#endif
