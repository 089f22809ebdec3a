import Foundation
import SearchlightKit
import SearchlightTesting
import Testing

/// A fixed clock for every test: 2025-06-15 15:06:40 UTC.
let now: Int64 = 1_750_000_000_000
let day: Int64 = 86_400_000
let hour: Int64 = 3_600_000

/// A fresh index in the test's temporary folder (its suite has the `.temporaryFolder` trait).
struct TestIndex {
    let index: SearchableIndex
    var path: String { index.path }

    init() throws {
        let folder = try TemporaryFolder.subfolder("index")
        index = try SearchableIndex(path: folder + "/index", access: .readWrite(lockTimeout: .seconds(5)))
    }
}

/// A BUO with the fields tests use most.
func object(
    _ id: String, title: String? = nil, description: String? = nil, keywords: [String] = [],
    mode: ContentIndexMode? = .private, expiration: Int64? = nil, schema: String? = nil
) -> BranchUniversalObject {
    var object = BranchUniversalObject(canonicalIdentifier: id)
    object.title = title
    object.contentDescription = description
    object.keywords = keywords
    object.contentIndexMode = mode
    object.expirationDate = expiration
    object.contentMetadata.contentSchema = schema
    return object
}

func item(
    _ id: String, title: String? = nil, description: String? = nil, keywords: [String] = [],
    mode: ContentIndexMode = .private, domain: String = "default", expiration: Int64? = nil, schema: String? = nil
) -> SearchableItem {
    SearchableItem(
        object: object(
            id, title: title, description: description, keywords: keywords, mode: mode, expiration: expiration,
            schema: schema),
        domainIdentifier: domain)
}

extension SearchableIndex {
    /// The identifiers a search returns, in rank order.
    func ids(
        _ text: String, domain: String? = "default", scope: SearchQuery.Scope = .all, at time: Int64 = now
    ) throws -> [String] {
        try search(SearchQuery(text, domainIdentifier: domain, scope: scope, limit: 100), now: time).results.map(
            \.canonicalIdentifier)
    }
}

/// Decodes one JSON text as an input file named `name`.
func decode(_ text: String, name: String = "input.json") -> DecodedInput {
    let lowered = name.lowercased()
    let format: BranchUniversalObjectReader.Format =
        lowered.hasSuffix(".jsonl") || lowered.hasSuffix(".ndjson") ? .lines : .automatic
    return BranchUniversalObjectReader.decode(Data(text.utf8), path: name, format: format)
}

/// The single object decoded from a JSON object text; fails the test when there is not exactly one.
func decodeOne(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> BranchUniversalObject {
    let input = decode(text)
    #expect(input.rejections.isEmpty, "\(input.rejections)", sourceLocation: sourceLocation)
    return try #require(input.objects.first, sourceLocation: sourceLocation).object
}

/// The single rejection of a JSON text.
func rejection(_ text: String, name: String = "input.json", sourceLocation: SourceLocation = #_sourceLocation) throws
    -> SearchlightError
{
    let input = decode(text, name: name)
    #expect(input.objects.isEmpty, sourceLocation: sourceLocation)
    #expect(input.rejections.count == 1, "\(input.rejections)", sourceLocation: sourceLocation)
    return try #require(input.rejections.first, sourceLocation: sourceLocation)
}

/// A fixed pseudo-random sequence (a 64-bit linear congruential generator): the same on every run.
final class PseudoRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// The next number from 0 to `bound` - 1.
    func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
}

/// A catalogue of three batches of `perBatch` items, each drawn from `random` with words from
/// `word`: a title of 2 to 6 words, a description of 8 to 27, up to 2 keywords, in three domains,
/// about a third private, a tenth expired and a tenth expiring the next day. 40 items of the second
/// batch are removed, so that the document ids have gaps, and 30 of the third, every
/// `viewedEvery`-th, have a view. `alike`, if given, is given the same writes.
func pseudoRandomCatalogue(
    perBatch: Int, viewedEvery: Int, random: PseudoRandom, alike: SearchableIndex? = nil, word: () -> String
) throws -> TestIndex {
    func words(_ count: Int) -> String { (0..<count).map { _ in word() }.joined(separator: " ") }
    let domains = ["default", "com.other", "com.third"]
    let test = try TestIndex()
    for batch in 0..<3 {
        var items: [SearchableItem] = []
        for number in 0..<perBatch {
            let expiration: Int64? =
                switch random.next(10) {
                case 0: now - day
                case 1: now + day
                default: nil
                }
            items.append(
                item(
                    "item/\(batch)-\(number)", title: words(2 + random.next(5)),
                    description: words(8 + random.next(20)), keywords: (0..<random.next(3)).map { _ in word() },
                    mode: random.next(3) == 0 ? .private : .public, domain: domains[random.next(domains.count)],
                    expiration: expiration))
        }
        for index in [test.index] + (alike.map { [$0] } ?? []) { try index.indexSearchableItems(items, now: now) }
    }
    for index in [test.index] + (alike.map { [$0] } ?? []) {
        for domain in domains {
            let removed = (0..<40).map { "item/1-\($0 * 3 + domains.firstIndex(of: domain)!)" }
            _ = try index.deleteSearchableItems(withIdentifiers: removed, domainIdentifier: domain, includePublic: true)
        }
        _ = try index.recordViews(withIdentifiers: (0..<30).map { "item/2-\($0 * viewedEvery)" }, now: now)
    }
    return test
}
