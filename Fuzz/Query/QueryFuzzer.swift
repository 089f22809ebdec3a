// A libFuzzer target for the query language: any query must give results or an invalidQuery
// error (a value a field cannot read), never a crash, through validation, accent folding,
// Xapian's parser and snippets; and how it was read must itself read as written.
//
// Built by scripts/fuzz; see FuzzHarness for how it runs.

import Foundation
import FuzzHarness
import SearchlightKit

/// A small index with text in several scripts, made once per process.
let fuzzIndex: SearchableIndex = {
    let path = NSTemporaryDirectory() + "searchlight-fuzz-" + String(getpid())
    let index = try! SearchableIndex(path: path, access: .readWrite(lockTimeout: .seconds(1)))
    var items: [SearchableItem] = []
    let texts = [
        ("Deep linking explained", "How deep links open apps on Android and iOS.", ["deep linking"]),
        ("Crème brûlée", "Une crème à la vanille sous une couche de sucre caramélisé.", ["dessert"]),
        ("Straßenkaffee", "Kaffee für unterwegs, schön heiß.", ["getränk"]),
        ("深度链接指南", "本文介绍深度链接的工作原理。", ["移动"]),
        ("Red running shoes", String(repeating: "Light shoes for road running. ", count: 20), ["footwear"]),
    ]
    for (position, text) in texts.enumerated() {
        var object = BranchUniversalObject(canonicalIdentifier: "item/\(position)")
        object.title = text.0
        object.contentDescription = text.1
        object.keywords = text.2
        object.contentIndexMode = position % 2 == 0 ? .public : .private
        object.contentMetadata.contentSchema = "TEXT_ARTICLE"
        items.append(SearchableItem(object: object, domainIdentifier: "com.example"))
    }
    try! index.indexSearchableItems(items)
    atexit {
        try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "searchlight-fuzz-" + String(getpid()))
    }
    return index
}()

// libFuzzer's library refers to this symbol, so it must exist even though FuzzHarness passes the
// function to the driver directly.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzQuery(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    for domain in ["com.example", nil] {
        do {
            let results = try fuzzIndex.search(SearchQuery(text, domainIdentifier: domain, limit: 10))
            precondition(results.results.count <= 10)
            for result in results.results { precondition((0...100).contains(result.score)) }
            // How a query was read is itself a query read as written (SPEC §2.1).
            if let readAs = results.readAs,
                let again = try? fuzzIndex.search(SearchQuery(readAs, domainIdentifier: domain, limit: 10))
            {
                precondition(again.readAs == nil, "\(text) read as \(readAs), read again as \(again.readAs ?? "")")
            }
        } catch {
            precondition(error.code == .invalidQuery || error.code == .invalidArgument, "\(error)")
        }
    }
    return 0
}

@main
struct QueryFuzzer {
    static func main() { fuzzMain { bytes, count in fuzzQuery(bytes, count) } }
}
