import Foundation
import Hummingbird
import HummingbirdTesting
import SearchlightKit
import SearchlightTesting
import Testing

@testable import SearchlightServer

@Suite("HTTP: languages (SPEC §2.5)", .temporaryFolder)
struct LanguageRouteTests {
    @Test(
        "items are stemmed in their language; language= names the query's languages; language: filters and facets=language counts",
        arguments: Fixture.Storage.allCases)
    func languages(storage: Fixture.Storage) async throws {
        try await withRouter(storage) { client, _ in
            let items = #"""
                [{"$canonical_identifier":"fr/chevaux","$og_title":"Les chevaux du village","$language":"fr","contentIndexMode":"public"},
                 {"$canonical_identifier":"en/mirror","$og_title":"A cheval glass for the hall","$language":"en","contentIndexMode":"public"}]
                """#
            let indexed = try await client.execute(
                uri: "/v1/items", method: .post, headers: headers(writerToken), body: ByteBuffer(string: items))
            #expect(indexed.status == .ok)
            func ids(_ query: String) async throws -> [String] {
                let response = try await client.execute(uri: "/v1/search?\(query)", method: .get)
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                return (try json(response)["results"] as? [[String: Any]] ?? []).compactMap {
                    $0["canonicalIdentifier"] as? String
                }.sorted()
            }
            // Read in the languages of the public items, French among them: `chevaux` is `cheval`.
            #expect(try await ids("q=chevaux&typos=false") == ["en/mirror", "fr/chevaux"])
            // Read in English alone: `chevaux` is its own stem.
            #expect(try await ids("q=chevaux&typos=false&language=en") == ["fr/chevaux"])
            #expect(try await ids("q=chevaux&typos=false&language=en,de") == ["fr/chevaux"])
            #expect(try await ids("q=chevaux&typos=false&language=fr") == ["en/mirror", "fr/chevaux"])
            #expect(try await ids("q=language%3Afr") == ["fr/chevaux"])
            let counted = try await client.execute(uri: "/v1/search?q=&facets=language&limit=0", method: .get)
            let facet = (try json(counted)["facets"] as? [String: Any])?["language"] as? [String: Any]
            let values = (facet?["values"] as? [[String: Any]] ?? []).compactMap { $0["value"] as? String }
            #expect(Set(values).isSuperset(of: ["en", "fr"]))
            let bad = try await client.execute(uri: "/v1/search?q=chevaux&language=fr!", method: .get)
            #expect(bad.status == .badRequest)
            #expect(String(buffer: bad.body).contains("language tag"))
        }
    }
}
