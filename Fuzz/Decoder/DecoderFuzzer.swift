// A libFuzzer target for the BUO reader: any bytes must give objects or rejections, never a crash.
//
// Built by scripts/fuzz; see FuzzHarness for how it runs.

import Foundation
import FuzzHarness
import SearchlightKit

// libFuzzer's library refers to this symbol, so it must exist even though FuzzHarness passes the
// function to the driver directly.
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

@main
struct DecoderFuzzer {
    static func main() { fuzzMain { bytes, count in fuzzDecoder(bytes, count) } }
}
