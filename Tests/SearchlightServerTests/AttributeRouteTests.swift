import Foundation
import Hummingbird
import HummingbirdTesting
import SearchlightKit
import SearchlightTesting
import Testing

@testable import SearchlightServer

@Suite("HTTP: ranges, sorting and counts", .temporaryFolder)
struct AttributeRouteTests {
    /// The facet `name` of a response: its values and counts.
    func counts(_ response: TestResponse, _ name: String) throws -> [String: Int] {
        let facets = try #require(try json(response)["facets"] as? [String: Any])
        let facet = try #require(facets[name] as? [String: Any])
        var counts: [String: Int] = [:]
        for value in facet["values"] as? [[String: Any]] ?? [] {
            counts[value["value"] as? String ?? ""] = value["count"] as? Int
        }
        return counts
    }

    @Test(
        "facets= counts only what the caller may see: never another domain's private item, anonymous or not",
        arguments: Fixture.Storage.allCases)
    func countsRespectVisibility(storage: Fixture.Storage) async throws {
        try await withRouter(storage) { client, _ in
            let anonymous = try await client.execute(uri: "/v1/search?q=lantern&facets=category,price", method: .get)
            #expect(anonymous.status == .ok)
            #expect(try counts(anonymous, "category") == ["Lamps": 2])
            let shop = try await client.execute(
                uri: "/v1/search?q=lantern&facets=category&limit=0", method: .get, headers: headers(readerToken))
            #expect(try counts(shop, "category") == ["Lamps": 2, "Secret com.example.shop": 1])
            let blog = try await client.execute(
                uri: "/v1/search?q=lantern&facets=category", method: .get, headers: headers(otherToken))
            #expect(try counts(blog, "category") == ["Lamps": 2, "Secret com.example.blog": 1])
            let prices = try #require((try json(anonymous)["facets"] as? [String: Any])?["price"] as? [String: Any])
            #expect(prices["min"] as? Double == 11 && prices["max"] as? Double == 15)
        }
    }

    @Test(
        "sort= orders the results, and ranges filter them; a bad key or range is a 400 naming it",
        arguments: Fixture.Storage.allCases)
    func sortAndRanges(storage: Fixture.Storage) async throws {
        try await withRouter(storage) { client, _ in
            func order(_ query: String) async throws -> [String] {
                let response = try await client.execute(uri: "/v1/search?\(query)", method: .get)
                return (try json(response)["results"] as? [[String: Any]] ?? []).compactMap {
                    $0["canonicalIdentifier"] as? String
                }
            }
            // "Red lantern" (11 characters) costs 11, "Lantern history" 15.
            #expect(try await order("q=lantern&sort=price") == ["shop/public", "blog/public"])
            #expect(try await order("q=lantern&sort=-price") == ["blog/public", "shop/public"])
            #expect(try await order("q=lantern+price%3A%3C12") == ["shop/public"])
            let badSort = try await client.execute(uri: "/v1/search?q=lantern&sort=colour", method: .get)
            #expect(badSort.status == .badRequest)
            #expect(String(buffer: badSort.body).contains("colour"))
            let badRange = try await client.execute(uri: "/v1/search?q=price%3Aabc", method: .get)
            #expect(badRange.status == .badRequest)
            #expect(String(buffer: badRange.body).contains("column 1"))
        }
    }

    @Test(
        "custom fields: an admin adds and removes them, anyone lists them, and their counts keep to what the caller may see",
        arguments: Fixture.Storage.allCases)
    func customFields(storage: Fixture.Storage) async throws {
        try await withRouter(storage) { client, _ in
            let items = #"""
                [{"$canonical_identifier":"shade/amber","$og_title":"Amber lamp","contentIndexMode":"public","shade":"amber"},
                 {"$canonical_identifier":"shade/secret","$og_title":"Secret lamp","contentIndexMode":"private","shade":"classified"}]
                """#
            let indexed = try await client.execute(
                uri: "/v1/items", method: .post, headers: headers(writerToken), body: ByteBuffer(string: items))
            #expect(indexed.status == .ok)
            let field = ByteBuffer(string: #"{"name":"shade","type":"string"}"#)
            let refused = try await client.execute(
                uri: "/v1/fields", method: .post, headers: headers(writerToken), body: field)
            #expect(refused.status == .forbidden)
            let added = try await client.execute(
                uri: "/v1/fields", method: .post, headers: headers(adminToken), body: field)
            #expect(added.status == .ok, "\(String(buffer: added.body))")
            #expect(try json(added)["items"] as? Int == 2)
            let listed = try await client.execute(uri: "/v1/fields", method: .get, headers: headers(readerToken))
            #expect(String(buffer: listed.body) == #"{"fields":[{"name":"shade","type":"string"}]}"#)
            let anonymousList = try await client.execute(uri: "/v1/fields", method: .get)
            #expect(anonymousList.status == .ok)

            let anonymous = try await client.execute(uri: "/v1/search?q=lamp&facets=shade", method: .get)
            #expect(try counts(anonymous, "shade") == ["amber": 1])
            let shop = try await client.execute(
                uri: "/v1/search?q=lamp&facets=shade", method: .get, headers: headers(readerToken))
            #expect(try counts(shop, "shade") == ["amber": 1, "classified": 1])
            let blog = try await client.execute(
                uri: "/v1/search?q=lamp&facets=shade", method: .get, headers: headers(otherToken))
            #expect(try counts(blog, "shade") == ["amber": 1])
            let filtered = try await client.execute(uri: "/v1/search?q=shade%3AAMBER", method: .get)
            #expect(try json(filtered)["total"] as? Int == 1)

            let badBody = try await client.execute(
                uri: "/v1/fields", method: .post, headers: headers(adminToken),
                body: ByteBuffer(string: #"{"name":"weight","type":"colour"}"#))
            #expect(badBody.status == .badRequest)
            let removed = try await client.execute(
                uri: "/v1/fields/shade", method: .delete, headers: headers(adminToken))
            #expect(removed.status == .ok)
            #expect(try json(removed)["items"] as? Int == 2)
            let again = try await client.execute(uri: "/v1/fields/shade", method: .delete, headers: headers(adminToken))
            #expect(again.status == .notFound)
            let twice = try await client.execute(
                uri: "/v1/fields", method: .post, headers: headers(adminToken),
                body: ByteBuffer(string: #"{"name":"dye","type":"string"}"#))
            #expect(twice.status == .ok)
            let conflict = try await client.execute(
                uri: "/v1/fields", method: .post, headers: headers(adminToken),
                body: ByteBuffer(string: #"{"name":"dye","type":"number"}"#))
            #expect(conflict.status == .conflict)
            // No longer a field: its name and value are read as text, and readAs says so.
            let gone = try await client.execute(uri: "/v1/search?q=shade%3Aamber", method: .get)
            #expect(gone.status == .ok)
            #expect(try json(gone)["readAs"] != nil)
        }
    }
}
