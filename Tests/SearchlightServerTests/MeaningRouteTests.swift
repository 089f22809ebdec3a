import Foundation
import Hummingbird
import HummingbirdTesting
import SearchlightKit
import SearchlightTesting
import Testing

@testable import SearchlightServer

/// The router over an index whose items have vectors of meaning: a kettle and a teapot (public,
/// the shop's), a bicycle, and the blog's private electric kettle, nearest of all to "a pot to
/// heat water".
private func withMeaningRouter(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
    let directory = try TemporaryFolder.subfolder("meaning-server")
    func item(_ id: String, _ title: String, _ description: String, _ mode: ContentIndexMode, _ domain: String)
        -> SearchableItem
    {
        var object = BranchUniversalObject(canonicalIdentifier: id)
        object.title = title
        object.contentDescription = description
        object.contentIndexMode = mode
        return SearchableItem(object: object, domainIdentifier: domain)
    }
    let writer = try SearchableIndex(path: directory + "/index", access: .readWrite(lockTimeout: .seconds(30)))
    try writer.indexSearchableItems([
        item("kettle", "Copper kettle", "Boils water on the stove for tea.", .public, "com.example.shop"),
        item("teapot", "Porcelain teapot", "Brews loose leaves; keeps the infusion hot.", .public, "com.example.shop"),
        item("bike", "Mountain bicycle", "Twenty-one gears and disc brakes.", .public, "com.example.shop"),
        item("secret", "Electric kettle", "Heats water for tea fast.", .private, "com.example.blog"),
    ])
    try writer.completeMeaning(using: try MeaningModel.installed())
    try writer.close()
    let service = try IndexPool(path: directory + "/index", readers: 2)
    let tokens = AccessTokens(entries: [.init(token: otherToken, domain: "com.example.blog", role: .write)])
    let application = Application(router: buildRouter(service: service, tokens: tokens))
    try await application.test(.router) { client in try await body(client) }
    try await service.close()
}

private func orderedIDs(_ response: TestResponse) throws -> [String] {
    (try json(response)["results"] as? [[String: Any]] ?? []).compactMap { $0["canonicalIdentifier"] as? String }
}

@Suite("HTTP: search by meaning and similar items, visibility first", .temporaryFolder)
struct MeaningRouteTests {
    @Test("semanticRatio ranks by meaning; another domain's private item never appears nor counts")
    func hybridSearch() async throws {
        try await withMeaningRouter { client in
            let query = "/v1/search?q=a%20pot%20to%20heat%20water&semanticRatio=1"
            let anonymous = try await client.execute(uri: query, method: .get)
            #expect(anonymous.status == .ok)
            let ids = try orderedIDs(anonymous)
            #expect(["kettle", "teapot"].contains(ids.first ?? ""), "\(ids)")
            #expect(!ids.contains("secret"))
            #expect(try json(anonymous)["total"] as? Int == ids.count)
            let blog = try await client.execute(uri: query, method: .get, headers: headers(otherToken))
            #expect(try orderedIDs(blog).first == "secret")
            let words = try await client.execute(
                uri: "/v1/search?q=a%20pot%20to%20heat%20water&semanticRatio=0", method: .get)
            #expect(try !orderedIDs(words).contains("teapot"))
            for bad in ["2", "-1", "abc"] {
                let response = try await client.execute(uri: "/v1/search?q=kettle&semanticRatio=\(bad)", method: .get)
                #expect(response.status == .badRequest, "semanticRatio=\(bad)")
            }
        }
    }

    @Test("matchedBy says what found each result; made-up words and an explicit AND find nothing by meaning")
    func matchedBy() async throws {
        try await withMeaningRouter { client in
            let found = try await client.execute(
                uri: "/v1/search?q=kettle%20for%20boiling&semanticRatio=0.5", method: .get)
            let results = try json(found)["results"] as? [[String: Any]] ?? []
            let matched = Dictionary(
                results.map { ($0["canonicalIdentifier"] as? String ?? "", $0["matchedBy"] as? [String] ?? []) },
                uniquingKeysWith: { first, _ in first })
            #expect(matched["kettle"] == ["words", "meaning"], "\(matched)")
            #expect(matched["teapot"] == ["meaning"], "\(matched)")
            // Absolute: found by meaning alone at ratio 0.5, at most half of 100.
            let teapot = results.first { $0["canonicalIdentifier"] as? String == "teapot" }
            #expect((teapot?["score"] as? Int ?? 100) <= 50)
            for query in ["blorft", "zxqvpl", "%E7%83%A7%E6%B0%B4%E5%A3%B6", "kettle%20AND%20bicycle"] {
                let response = try await client.execute(uri: "/v1/search?q=\(query)&semanticRatio=1", method: .get)
                #expect(response.status == .ok)
                #expect(try json(response)["total"] as? Int == 0, "\(query)")
            }
            let near = try await client.execute(uri: "/v1/items/kettle/similar", method: .get)
            let nearBy = (try json(near)["results"] as? [[String: Any]] ?? []).map { $0["matchedBy"] as? [String] }
            #expect(!nearBy.isEmpty && nearBy.allSatisfy { $0 == ["meaning"] })
        }
    }

    @Test("GET /v1/items/{id}/similar: the nearest items the caller may see; an item it may not see is 404")
    func similar() async throws {
        try await withMeaningRouter { client in
            let near = try await client.execute(uri: "/v1/items/kettle/similar", method: .get)
            #expect(near.status == .ok)
            let ids = try orderedIDs(near)
            #expect(ids.first == "teapot" && !ids.contains("kettle") && !ids.contains("secret"), "\(ids)")
            let blog = try await client.execute(
                uri: "/v1/items/kettle/similar", method: .get, headers: headers(otherToken))
            #expect(try orderedIDs(blog).first == "secret")
            let hidden = try await client.execute(uri: "/v1/items/secret/similar", method: .get)
            #expect(hidden.status == .notFound)
            #expect(try errorCode(hidden) == 2006)
            let own = try await client.execute(
                uri: "/v1/items/secret/similar", method: .get, headers: headers(otherToken))
            #expect(own.status == .ok)
            #expect(try orderedIDs(own).first == "kettle")
        }
    }
}
