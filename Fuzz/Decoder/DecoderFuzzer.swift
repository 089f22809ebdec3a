// A libFuzzer target for the BUO reader: any bytes must give objects or rejections, never a crash.
//
// Built with `-sanitize=fuzzer -D FUZZING` by scripts/fuzz. Built plainly (as `swift build` does),
// it replays the files named on its command line instead, which is how crashes are reproduced.

import Foundation
import SearchlightKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecoder(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    for format in [BranchUniversalObjectReader.Format.automatic, .lines] {
        let input = BranchUniversalObjectReader.decode(data, path: "fuzz", format: format)
        for decoded in input.objects {
            // Every object read must write back to a dictionary that reads as itself.
            let dictionary = decoded.object.branchDictionary
            precondition(dictionary["$canonical_identifier"] == .string(decoded.object.canonicalIdentifier))
        }
    }
    return 0
}

#if FUZZING
    /// libFuzzer's driver, for executables that keep their own `main` (as SwiftPM's do).
    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
    ) -> CInt

    @main
    struct Fuzzer {
        static func main() {
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(runFuzzerDriver(&argc, &argv, { bytes, count in fuzzDecoder(bytes, count) }))
        }
    }
#else
    @main
    struct DecoderReplay {
        static func main() throws {
            for path in CommandLine.arguments.dropFirst() {
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                _ = data.withUnsafeBytes { raw in
                    fuzzDecoder(raw.bindMemory(to: UInt8.self).baseAddress ?? UnsafePointer(bitPattern: 1)!, data.count)
                }
                print("ok \(path)")
            }
        }
    }
#endif
