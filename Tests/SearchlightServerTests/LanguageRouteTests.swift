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

    @Test(
        "French and German words by their stems; a relaxed question's German stop word selects nothing; the default language in stats",
        arguments: Fixture.Storage.allCases)
    func stemsAndStopWords(storage: Fixture.Storage) async throws {
        try await withRouter(storage) { client, _ in
            let items = #"""
                [{"$canonical_identifier":"fr/tatin","$og_title":"Tarte Tatin","$og_description":"Des pommes caramélisées sous une pâte brisée.","contentIndexMode":"public"},
                 {"$canonical_identifier":"de/kuchen","$og_title":"Zwiebelkuchen","$og_description":"Ein Kuchen mit Zwiebeln und Speck aus dem Ofen.","contentIndexMode":"public"},
                 {"$canonical_identifier":"de/strudel","$og_title":"Apfelstrudel","$og_description":"Strudelteig mit Äpfeln, Rosinen und Vanillesoße.","contentIndexMode":"public"},
                 {"$canonical_identifier":"de/spaetzle","$og_title":"Käsespätzle","$og_description":"Hausgemachte Spätzle mit würzigem Bergkäse.","contentIndexMode":"public"}]
                """#
            let indexed = try await client.execute(
                uri: "/v1/items", method: .post, headers: headers(writerToken), body: ByteBuffer(string: items))
            #expect(indexed.status == .ok)
            func page(_ query: String) async throws -> [String: Any] {
                let response = try await client.execute(uri: "/v1/search?\(query)", method: .get)
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                return try json(response)
            }
            func ids(_ page: [String: Any]) -> [String] {
                (page["results"] as? [[String: Any]] ?? []).compactMap { $0["canonicalIdentifier"] as? String }.sorted()
            }
            #expect(ids(try await page("q=tartes&typos=false")) == ["fr/tatin"])
            #expect(ids(try await page("q=Kuchens&typos=false")) == ["de/kuchen"])
            // No item has every word; `mit`, which three hold, selects none of them.
            let relaxed = try await page(
                "q=\("Zwiebelkuchen mit Vanillesoße".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
            #expect(relaxed["relaxed"] as? Bool == true)
            #expect(ids(relaxed) == ["de/kuchen", "de/strudel"])
            let stats = try await client.execute(uri: "/v1/stats", method: .get, headers: headers(adminToken))
            #expect(try json(stats)["language"] as? String == "en")
        }
    }

    @Test(
        "French and German items get no vector: a search by meaning never finds them, and their similar items say why")
    func meaningWhereTheModelReads() async throws {
        let directory = try TemporaryFolder.subfolder("languages-meaning")
        func item(_ id: String, _ title: String, _ description: String) -> SearchableItem {
            var object = BranchUniversalObject(canonicalIdentifier: id)
            object.title = title
            object.contentDescription = description
            object.contentIndexMode = .public
            return SearchableItem(object: object, domainIdentifier: "com.example.shop")
        }
        let writer = try SearchableIndex(path: directory + "/index", access: .readWrite(lockTimeout: .seconds(30)))
        try writer.indexSearchableItems([
            item("veste", "Veste de pluie", "Une veste légère pour le temps humide et les longues randonnées."),
            item("jacke", "Regenjacke", "Eine leichte Jacke für nasses Wetter und lange Wanderungen."),
            item("jacket", "Rain jacket", "A light jacket for wet weather and long walks."),
        ])
        try writer.completeMeaning(using: try MeaningModel.installed())
        try writer.close()
        let service = try IndexPool(path: directory + "/index", readers: 1)
        let application = Application(router: buildRouter(service: service, tokens: AccessTokens(entries: [])))
        try await application.test(.router) { client in
            let found = try await client.execute(
                uri: "/v1/search?q=clothes%20for%20a%20storm&semanticRatio=1", method: .get)
            #expect(found.status == .ok)
            let ids = (try json(found)["results"] as? [[String: Any]] ?? []).compactMap {
                $0["canonicalIdentifier"] as? String
            }
            #expect(ids.allSatisfy { $0 == "jacket" }, "\(ids)")
            let similar = try await client.execute(uri: "/v1/items/veste/similar", method: .get)
            #expect(String(buffer: similar.body).contains("written in fr"), "\(String(buffer: similar.body))")
        }
        try await service.close()
    }
}
