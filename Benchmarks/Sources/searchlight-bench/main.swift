// The in-process half of Searchlight's benchmark, run by Benchmarks/run:
//
//   searchlight-bench query INDEX manifest.json ROUNDS [KIND] [--typos-off]
//                                                        the query mix (or one kind of it; ALL for
//                                                        every kind), as typed or exactly, through
//                                                        SearchlightKit; each search runs in
//                                                        `searchOnce`, which instruction counts
//                                                        (callgrind's --toggle-collect) name
//   searchlight-bench upsert INDEX manifest.json         single-item upsert and remove latencies
//   searchlight-bench keystrokes INDEX manifest.json ROUNDS
//                                                        `search --interactive`'s search for each
//                                                        keystroke of the two-word and phrase
//                                                        queries typed one character at a time
//   searchlight-bench attributes INDEX manifest.json ROUNDS
//                                                        the searches that filter, sort and count
//                                                        by the items' fields, each beside the
//                                                        plain search of the same words
//
// Each prints one line of JSON: latencies in milliseconds per query kind or operation.

import Foundation
import SearchlightKit

struct Manifest: Decodable {
    var index_now: Int64
    var queries: [String: [String]]
}

/// The query mix in Searchlight's query language.
func queryText(kind: String, text: String) -> String {
    switch kind {
    case "phrase": "\"\(text)\""
    case "field": "title:\(text)"
    default: text  // single and two words; a prefix is the last word typed so far
    }
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

func readManifest(_ path: String) throws -> (Manifest, [String: Any]) {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let raw = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    return (try JSONDecoder().decode(Manifest.self, from: data), raw)
}

func printJSON(_ value: Any) throws {
    let data = try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
}

/// One search, as a function of its own so that an instruction count can cover exactly it.
@inline(never)
func searchOnce(_ index: SearchableIndex, _ query: SearchQuery, now: Int64) throws -> SearchResults {
    try index.search(query, now: now)
}

func query(index path: String, manifest manifestPath: String, rounds: Int, kind only: String?, typos: Bool) throws {
    let (manifest, _) = try readManifest(manifestPath)
    let index = try SearchableIndex(path: path, access: .readOnly)
    let clock = ContinuousClock()
    var latencies: [String: [Double]] = [:]
    var matches: [String: Int] = [:]
    // How many pages were proven from the impact tiers (docs/design.md) rather than evaluated in full.
    var tiered: [String: Int] = [:]
    for (kind, texts) in manifest.queries where only == nil || kind == only {
        // Round 0 warms the caches and is not timed, as in the C++ loop and FTS5's.
        for round in 0...rounds {
            for text in texts {
                var query = SearchQuery(queryText(kind: kind, text: text))
                query.typos = typos
                var results: SearchResults?
                let elapsed = try clock.measure { results = try searchOnce(index, query, now: manifest.index_now) }
                guard round > 0 else { continue }
                latencies[kind, default: []].append(milliseconds(elapsed))
                matches[kind, default: 0] += results?.results.count ?? 0
                if results?.fromTiers == true { tiered[kind, default: 0] += 1 }
            }
        }
    }
    try printJSON(["latencies": latencies, "results": matches, "from_tiers": tiered])
}

/// What `search --interactive` runs for each keystroke: the query typed so far (its last word a
/// prefix, as the query language reads it), validated, the view's page of 20 results. Each query
/// of the mix's two-word and phrase kinds is typed one character at a time, as a person would.
func keystrokes(index path: String, manifest manifestPath: String, rounds: Int) throws {
    let (manifest, _) = try readManifest(manifestPath)
    let index = try SearchableIndex(path: path, access: .readOnly)
    let clock = ContinuousClock()
    let typed = (manifest.queries["two"] ?? []) + (manifest.queries["phrase"] ?? [])
    var latencies: [Double] = []
    var firstLetters: [Double] = []
    for round in 0...rounds {
        for text in typed {
            for length in 1...text.count {
                let request = SearchQuery(String(text.prefix(length)), limit: 20)
                let elapsed = try clock.measure {
                    try request.validate()
                    _ = try searchOnce(index, request, now: manifest.index_now)
                }
                guard round > 0 else { continue }
                latencies.append(milliseconds(elapsed))
                if length == 1 { firstLetters.append(milliseconds(elapsed)) }
            }
        }
    }
    try printJSON(["keystrokes": latencies, "first_letters": firstLetters])
}

/// The manifest's `attribute_queries`: each word of the single-word mix searched plain, with a
/// range filter, sorted, and both; then the counted word (held by ~10 % of the items) searched
/// plain and with its counts.
func attributes(index path: String, manifest manifestPath: String, rounds: Int) throws {
    let (manifest, raw) = try readManifest(manifestPath)
    guard let mix = raw["attribute_queries"] as? [String: Any], let words = mix["words"] as? [String],
        let counted = mix["counted"] as? String, let range = mix["range"] as? String,
        let rangeSort = mix["range_sort"] as? [String: String], let sort = mix["sort"] as? String,
        let facets = mix["facets"] as? String
    else { throw CocoaError(.coderReadCorrupt) }
    // As a service's readers do: ranges, counts and sorts read the fields' columns, built by the first
    // query that needs them.
    let index = try SearchableIndex(path: path, access: .readOnly, keepsFieldsInMemory: true)
    let clock = ContinuousClock()
    let kinds: [(String, (String) -> SearchQuery)] = [
        ("plain", { SearchQuery($0) }),
        ("range", { SearchQuery("\($0) \(range)") }),
        ("sort", { SearchQuery($0, sort: SearchQuery.SortKey.list(sort)) }),
        (
            "range_sort",
            {
                SearchQuery(
                    "\($0) \(rangeSort["filter"] ?? "")", sort: SearchQuery.SortKey.list(rangeSort["sort"] ?? ""))
            }
        ),
    ]
    var latencies: [String: [Double]] = [:]
    var matches: [String: Int] = [:]
    func time(_ kind: String, _ query: SearchQuery, round: Int) throws {
        var results: SearchResults?
        let elapsed = try clock.measure { results = try searchOnce(index, query, now: manifest.index_now) }
        // The first range, count or sort builds the columns and ranks it reads: each timed on its own.
        if round == 0 && ["range", "facets", "sort", "range_sort"].contains(kind) && latencies[kind + "_first"] == nil {
            latencies[kind + "_first"] = [milliseconds(elapsed)]
        }
        guard round > 0 else { return }
        latencies[kind, default: []].append(milliseconds(elapsed))
        matches[kind, default: 0] += results?.total ?? 0
    }
    for (kind, make) in kinds {
        for round in 0...rounds {
            for word in words { try time(kind, make(word), round: round) }
        }
    }
    for round in 0...rounds {
        try time("counted_plain", SearchQuery(counted), round: round)
        try time("facets", SearchQuery(counted, facets: SearchQuery.facetNames(facets)), round: round)
    }
    try printJSON(["latencies": latencies, "matches": matches])
}

func upsert(index path: String, manifest manifestPath: String) throws {
    let (manifest, raw) = try readManifest(manifestPath)
    let samples = raw["upsert_sample"] as? [[String: Any]] ?? []
    let index = try SearchableIndex(path: path, access: .readWrite(lockTimeout: .seconds(10)))
    let clock = ContinuousClock()
    var upserts: [Double] = [], removals: [Double] = []
    var identifiers: [String] = []
    for var sample in samples {
        sample["title"] = "\(sample["title"] ?? "") revised"
        let data = try JSONSerialization.data(withJSONObject: sample)
        let input = BranchUniversalObjectReader.decode(data, path: "manifest.json")
        let items = input.objects.map { SearchableItem(object: $0.object) }
        identifiers += items.map(\.uniqueIdentifier)
        upserts.append(
            milliseconds(try clock.measure { try index.indexSearchableItems(items, now: manifest.index_now) }))
    }
    for identifier in identifiers {
        removals.append(
            milliseconds(
                try clock.measure {
                    _ = try index.deleteSearchableItems(withIdentifiers: [identifier], includePublic: true)
                }))
    }
    try index.close()
    try printJSON(["upsert": upserts, "remove": removals])
}

let arguments = CommandLine.arguments
do {
    switch (arguments.count > 1 ? arguments[1] : "", arguments.count) {
    case ("query", 5...7):
        let kind = arguments.count >= 6 && arguments[5] != "ALL" ? arguments[5] : nil
        try query(
            index: arguments[2], manifest: arguments[3], rounds: Int(arguments[4]) ?? 1, kind: kind,
            typos: !(arguments.count == 7 && arguments[6] == "--typos-off"))
    case ("attributes", 5):
        try attributes(index: arguments[2], manifest: arguments[3], rounds: Int(arguments[4]) ?? 1)
    case ("upsert", 4): try upsert(index: arguments[2], manifest: arguments[3])
    case ("keystrokes", 5):
        try keystrokes(index: arguments[2], manifest: arguments[3], rounds: Int(arguments[4]) ?? 1)
    default:
        FileHandle.standardError.write(
            Data(
                """
                usage: searchlight-bench query INDEX MANIFEST ROUNDS [KIND|ALL [--typos-off]] | upsert INDEX MANIFEST
                       | keystrokes INDEX MANIFEST ROUNDS | attributes INDEX MANIFEST ROUNDS

                """.utf8))
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("searchlight-bench: \(error)\n".utf8))
    exit(1)
}
