import Foundation
import SearchlightKit
import SearchlightTesting
import Testing

/// A fixed clock for every test: 2025-06-15 15:06:40 UTC.
let now: Int64 = 1_750_000_000_000
let day: Int64 = 86_400_000

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
