import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import SearchlightKit
import SearchlightTesting
import Testing

@testable import SearchlightServer

let writerToken = "shop-writer-token-0123456789"
let readerToken = "shop-reader-token-0123456789"
let otherToken = "blog-writer-token-0123456789"
let adminToken = "admin-token-0123456789abcdef"

/// A fresh index with a few items in two domains, behind the router.
struct Fixture {
    /// How the index is held: one folder, or shards (a writer's topology of three local folders),
    /// through which every service check must hold alike.
    enum Storage: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case folder, shards
        var testDescription: String { rawValue }
    }

    let directory: String
    let service: IndexPool
    let application: Application<RouterResponder<SearchlightRequestContext>>

    init(_ storage: Storage = .folder, readOnly: ServerConfiguration.ReadOnly? = nil, metricsPublic: Bool = false)
        throws
    {
        directory = try TemporaryFolder.subfolder("server")
        if storage == .shards {
            try TemporaryFolder.write("index", "auto shard-1\nauto shard-2\nauto shard-3\n", in: directory)
        }
        let seed: [SearchableItem] = [
            Self.item("shop/public", "Red lantern", .public, "com.example.shop"),
            Self.item("shop/private", "Secret lantern", .private, "com.example.shop"),
            Self.item("blog/public", "Lantern history", .public, "com.example.blog"),
            Self.item("blog/private", "Draft about lanterns", .private, "com.example.blog"),
        ]
        let writer = try SearchableIndex(path: directory + "/index", access: .readWrite(lockTimeout: .seconds(30)))
        try writer.indexSearchableItems(seed)
        try writer.close()
        service =
            readOnly == nil
            ? try IndexPool(path: directory + "/index", readers: 2)
            : try IndexPool(readingOnly: directory + "/index", readers: 2)
        let tokens = AccessTokens(entries: [
            .init(token: writerToken, domain: "com.example.shop", role: .write),
            .init(token: readerToken, domain: "com.example.shop", role: .read),
            .init(token: otherToken, domain: "com.example.blog", role: .write),
            .init(token: adminToken, domain: "default", role: .admin),
        ])
        application = Application(
            router: buildRouter(service: service, tokens: tokens, readOnly: readOnly, metricsPublic: metricsPublic))
    }

    static func item(_ id: String, _ title: String, _ mode: ContentIndexMode, _ domain: String) -> SearchableItem {
        var object = BranchUniversalObject(canonicalIdentifier: id)
        object.title = title
        object.contentDescription = "About \(title.lowercased())."
        object.contentIndexMode = mode
        // What counts and ranges over attributes read: a private item's category is a secret.
        object.contentMetadata.productCategory = mode == .private ? "Secret \(domain)" : "Lamps"
        object.contentMetadata.price = mode == .private ? 5 : Double(title.count)
        return SearchableItem(object: object, domainIdentifier: domain)
    }

    func cleanUp() async throws {
        try await service.close()
    }
}

func headers(_ token: String?) -> HTTPFields {
    var fields = HTTPFields()
    if let token { fields[.authorization] = "Bearer \(token)" }
    return fields
}

/// The JSON of a response body.
func json(_ response: TestResponse) throws -> [String: Any] {
    try #require(
        try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any],
        "body: \(String(buffer: response.body))")
}

func ids(_ response: TestResponse) throws -> Set<String> {
    Set((try json(response)["results"] as? [[String: Any]] ?? []).compactMap { $0["canonicalIdentifier"] as? String })
}

func errorCode(_ response: TestResponse) throws -> Int? {
    (try json(response)["error"] as? [String: Any])?["code"] as? Int
}

/// Runs `body` against the router over a fresh fixture.
func withRouter(
    _ storage: Fixture.Storage = .folder, _ body: @Sendable (any TestClientProtocol, Fixture) async throws -> Void
) async throws {
    let fixture = try Fixture(storage)
    try await fixture.application.test(.router) { client in try await body(client, fixture) }
    try await fixture.cleanUp()
}

@Suite("HTTP: reading", .temporaryFolder)
struct ReadingTests {
    @Test("GET /health answers ok")
    func health() async throws {
        try await withRouter { client, _ in
            let response = try await client.execute(uri: "/health", method: .get)
            #expect(response.status == .ok)
            #expect(String(buffer: response.body) == #"{"status":"ok"}"#)
        }
    }

    @Test("GET / is the search page, self-contained")
    func page() async throws {
        try await withRouter { client, _ in
            let response = try await client.execute(uri: "/", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            #expect(response.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            let html = String(buffer: response.body)
            #expect(html.contains(#"<input id="q""#))
            #expect(!html.contains("<script src") && !html.contains("<link") && !html.contains("@import"))
        }
    }

    @Test("a spelling suggestion never names another domain's private word", arguments: Fixture.Storage.allCases)
    func privateSuggestion(storage: Fixture.Storage) async throws {
        try await withRouter(storage) { client, _ in
            // "secret" is only in the shop's private title.
            let exact = "/v1/search?q=secrit&typos=false"
            let anonymous = try await client.execute(uri: exact, method: .get)
            #expect(try json(anonymous)["suggestion"] is NSNull)
            let blog = try await client.execute(uri: exact, method: .get, headers: headers(otherToken))
            #expect(try json(blog)["suggestion"] is NSNull)
            let shop = try await client.execute(uri: exact, method: .get, headers: headers(readerToken))
            #expect(try json(shop)["suggestion"] as? String == "secret")
        }
    }

    @Test("a typo finds the item the caller may see, never another domain's private one; typos=false is exact")
    func typos() async throws {
        try await withRouter { client, _ in
            // "secret" is only in the shop's private title.
            let anonymous = try await client.execute(uri: "/v1/search?q=secrit", method: .get)
            #expect(try json(anonymous)["total"] as? Int == 0)
            let blog = try await client.execute(uri: "/v1/search?q=secrit", method: .get, headers: headers(otherToken))
            #expect(try json(blog)["total"] as? Int == 0)
            let shop = try await client.execute(uri: "/v1/search?q=secrit", method: .get, headers: headers(readerToken))
            #expect((try json(shop)["total"] as? Int ?? 0) > 0)
            let exact = try await client.execute(
                uri: "/v1/search?q=secrit&typos=false", method: .get, headers: headers(readerToken))
            #expect(try json(exact)["total"] as? Int == 0)
            let bad = try await client.execute(uri: "/v1/search?q=secrit&typos=maybe", method: .get)
            #expect(bad.status == .badRequest)
        }
    }

    @Test("a query over the term limit is a 400 with code 2016")
    func queryTooLarge() async throws {
        try await withRouter { client, _ in
            let words = (0...SearchQuery.maximumTerms).map { "w\($0)" }.joined(separator: "+OR+")
            let response = try await client.execute(uri: "/v1/search?q=" + words, method: .get)
            #expect(response.status == .badRequest)
            #expect(try errorCode(response) == 2016)
        }
    }

    @Test("an index failure reaches the caller without a path on the server")
    func failureWithoutPath() throws {
        let failure = SearchlightError(
            .indexUnavailable, "The index at /srv/searchlight/gen-000002 kept changing while being read",
            path: "/srv/searchlight/items.json", failure: .modified)
        #expect(!failure.messageForCallers.contains("/srv"))
        #expect(failure.messageForCallers == "The index kept changing while being read; try again")
    }

    @Test(
        "a question no visible item answers in full is relaxed: the items with most of its words, never a hidden one",
        arguments: Fixture.Storage.allCases)
    func relaxedSearch(storage: Fixture.Storage) async throws {
        try await withRouter(storage) { client, _ in
            // Only the shop's private item has "secret" and "lantern": anonymous callers get the
            // public lanterns, relaxed; the shop gets its full match, not relaxed.
            let anonymous = try await client.execute(uri: "/v1/search?q=secret+lantern+red", method: .get)
            #expect(try json(anonymous)["relaxed"] as? Bool == true)
            #expect(try ids(anonymous) == ["shop/public", "blog/public"])
            let shop = try await client.execute(
                uri: "/v1/search?q=secret+lantern", method: .get, headers: headers(readerToken))
            #expect(try json(shop)["relaxed"] as? Bool == false)
            #expect(try ids(shop) == ["shop/private"])
            let explicit = try await client.execute(uri: "/v1/search?q=secret+AND+lantern", method: .get)
            #expect(try json(explicit)["relaxed"] as? Bool == false)
            #expect(try ids(explicit).isEmpty)
        }
    }

    @Test("without a token a search sees public items only", arguments: Fixture.Storage.allCases)
    func anonymousSearch(storage: Fixture.Storage) async throws {
        try await withRouter(storage) { client, _ in
            let response = try await client.execute(uri: "/v1/search?q=lantern", method: .get)
            #expect(response.status == .ok)
            #expect(try ids(response) == ["shop/public", "blog/public"])
            let privateScope = try await client.execute(uri: "/v1/search?q=lantern&scope=private", method: .get)
            #expect(try ids(privateScope).isEmpty)
        }
    }

    @Test(
        "a token sees its domain's private items and every public item, never another domain's private ones",
        arguments: Fixture.Storage.allCases)
    func tokenSearch(storage: Fixture.Storage) async throws {
        try await withRouter(storage) { client, _ in
            let shop = try await client.execute(
                uri: "/v1/search?q=lantern", method: .get, headers: headers(readerToken))
            #expect(try ids(shop) == ["shop/public", "shop/private", "blog/public"])
            let blog = try await client.execute(uri: "/v1/search?q=lantern", method: .get, headers: headers(otherToken))
            #expect(try ids(blog) == ["shop/public", "blog/public", "blog/private"])
            let admin = try await client.execute(
                uri: "/v1/search?q=lantern", method: .get, headers: headers(adminToken))
            #expect(try ids(admin).count == 4)
            let adminAsBlog = try await client.execute(
                uri: "/v1/search?q=lantern&domain=com.example.blog", method: .get, headers: headers(adminToken))
            #expect(try ids(adminAsBlog) == ["shop/public", "blog/public", "blog/private"])
            let forbidden = try await client.execute(
                uri: "/v1/search?q=lantern&domain=com.example.blog", method: .get, headers: headers(readerToken))
            #expect(forbidden.status == .forbidden)
        }
    }

    @Test("query parameters: q with + or %20, limit, offset, scope")
    func parameters() async throws {
        try await withRouter { client, _ in
            let plus = try await client.execute(uri: "/v1/search?q=red+lantern", method: .get)
            #expect(try json(plus)["query"] as? String == "red lantern")
            #expect(try ids(plus) == ["shop/public"])
            let paged = try await client.execute(uri: "/v1/search?q=lantern&limit=1&offset=1", method: .get)
            let page = try json(paged)
            #expect(page["limit"] as? Int == 1 && page["offset"] as? Int == 1 && page["total"] as? Int == 2)
            let badScope = try await client.execute(uri: "/v1/search?q=x&scope=secret", method: .get)
            #expect(badScope.status == .badRequest)
            let badLimit = try await client.execute(uri: "/v1/search?q=x&limit=many", method: .get)
            #expect(badLimit.status == .badRequest)
        }
    }

    @Test("a question is never refused for its syntax, and readAs says how it was read; a bad value is 400 with 2004")
    func malformedQuery() async throws {
        try await withRouter { client, _ in
            let read = try await client.execute(uri: "/v1/search?q=%28red+lantern+AND", method: .get)
            #expect(read.status == .ok)
            #expect(try json(read)["readAs"] as? String == "red lantern and")
            let asWritten = try await client.execute(uri: "/v1/search?q=red+lantern", method: .get)
            #expect(try json(asWritten)["readAs"] == nil)
            let response = try await client.execute(uri: "/v1/search?q=mode%3Asecret", method: .get)
            #expect(response.status == .badRequest)
            #expect(try errorCode(response) == 2004)
        }
    }

    @Test("an unknown or malformed token is 401, even for reads")
    func unknownToken() async throws {
        try await withRouter { client, _ in
            let unknown = try await client.execute(uri: "/v1/search?q=x", method: .get, headers: headers("nope"))
            #expect(unknown.status == .unauthorized)
            #expect(try errorCode(unknown) == 2011)
            var basic = HTTPFields()
            basic[.authorization] = "Basic dXNlcjpwYXNz"
            let malformed = try await client.execute(uri: "/v1/search?q=x", method: .get, headers: basic)
            #expect(malformed.status == .unauthorized)
        }
    }

    @Test(
        "GET /v1/items/{id} follows search's visibility; identifiers with / are percent-encoded",
        arguments: Fixture.Storage.allCases)
    func getItem(storage: Fixture.Storage) async throws {
        try await withRouter(storage) { client, _ in
            let found = try await client.execute(uri: "/v1/items/shop%2Fpublic", method: .get)
            #expect(found.status == .ok)
            let item = try json(found)
            #expect(item["$og_title"] as? String == "Red lantern")
            #expect(item["domain"] as? String == "com.example.shop")
            #expect(item["contentIndexMode"] as? String == "public")
            let hidden = try await client.execute(uri: "/v1/items/shop%2Fprivate", method: .get)
            #expect(hidden.status == .notFound)
            #expect(try errorCode(hidden) == 2006)
            let own = try await client.execute(
                uri: "/v1/items/shop%2Fprivate", method: .get, headers: headers(readerToken))
            #expect(own.status == .ok)
            let others = try await client.execute(
                uri: "/v1/items/blog%2Fprivate", method: .get, headers: headers(readerToken))
            #expect(others.status == .notFound)
            let admin = try await client.execute(
                uri: "/v1/items/blog%2Fprivate", method: .get, headers: headers(adminToken))
            #expect(admin.status == .ok)
        }
    }

    @Test("an identifier holding quotes, spaces and a colon is found by GET /v1/items/{id} from any domain")
    func getQuotedIdentifier() async throws {
        try await withRouter { client, fixture in
            try await fixture.service.writeAlone { writer throws(SearchlightError) in
                try writer.indexSearchableItems([
                    Fixture.item(#"say "hi": now"#, "Quoted lantern", .public, "com.example.blog")
                ])
            }
            let found = try await client.execute(uri: "/v1/items/say%20%22hi%22%3A%20now", method: .get)
            #expect(found.status == .ok)
            #expect(try json(found)["$og_title"] as? String == "Quoted lantern")
        }
    }

    @Test("stats need a token: a domain's counts, or everything for admin", arguments: Fixture.Storage.allCases)
    func stats(storage: Fixture.Storage) async throws {
        try await withRouter(storage) { client, fixture in
            let anonymous = try await client.execute(uri: "/v1/stats", method: .get)
            #expect(anonymous.status == .unauthorized)
            let shop = try json(try await client.execute(uri: "/v1/stats", method: .get, headers: headers(readerToken)))
            #expect(shop["documents"] as? Int == 2 && shop["public"] as? Int == 1 && shop["private"] as? Int == 1)
            #expect(shop["domains"] as? [String: Int] == ["com.example.shop": 2])
            #expect(shop["path"] == nil)
            let all = try json(try await client.execute(uri: "/v1/stats", method: .get, headers: headers(adminToken)))
            #expect(all["documents"] as? Int == 4)
            #expect(all["path"] as? String == fixture.directory + "/index")
            if storage == .shards {
                // The items are spread: visibility is checked across shards.
                let shards = (all["shards"] as? [[String: Any]] ?? []).map { $0["documents"] as? Int ?? 0 }
                #expect(shards.count == 3 && shards.filter { $0 > 0 }.count >= 2 && shards[2] > 0, "\(shards)")
            }
        }
    }
}

@Suite("HTTP: the API's description", .temporaryFolder)
struct OpenAPITests {
    @Test("GET /openapi.json is OpenAPI 3.1 with every route, bearer auth and the error shape")
    func document() async throws {
        try await withRouter { client, _ in
            let response = try await client.execute(uri: "/openapi.json", method: .get)
            #expect(response.status == .ok)
            let document = try json(response)
            #expect(document["openapi"] as? String == "3.1.0")
            let paths = try #require(document["paths"] as? [String: [String: Any]])
            let routes = paths.flatMap { path, operations in
                operations.keys.filter { $0 != "parameters" }.map { "\($0.uppercased()) \(path)" }
            }
            #expect(
                Set(routes) == [
                    "GET /v1/search", "POST /v1/items", "DELETE /v1/items", "GET /v1/items/{id}",
                    "GET /v1/items/{id}/similar",
                    "DELETE /v1/items/{id}", "POST /v1/items/remove", "POST /v1/items/{id}/views", "POST /v1/prune",
                    "GET /v1/stats", "GET /v1/client-state", "GET /v1/fields", "POST /v1/fields",
                    "DELETE /v1/fields/{name}", "GET /health",
                    "GET /", "GET /metrics", "GET /openapi.json",
                ])
            let components = try #require(document["components"] as? [String: Any])
            let schemes = components["securitySchemes"] as? [String: [String: String]]
            #expect(schemes?["bearer"]?["scheme"] == "bearer")
            #expect((components["schemas"] as? [String: Any])?["Error"] != nil)
        }
    }

    @Test("a method a path does not take is 405 with Allow, from the document; an unknown path stays 404")
    func methodNotAllowed() async throws {
        try await withRouter { client, _ in
            let prune = try await client.execute(uri: "/v1/prune", method: .get, headers: headers(adminToken))
            #expect(prune.status == .methodNotAllowed)
            #expect(prune.headers[.allow] == "POST")
            #expect(try errorCode(prune) == 2015)
            let item = try await client.execute(uri: "/v1/items/lamp", method: .put)
            #expect(item.headers[.allow] == "GET, HEAD, DELETE")
            let head = try await client.execute(uri: "/v1/search?q=lantern", method: .head)
            #expect(head.status == .ok)
            let remove = try await client.execute(uri: "/v1/items/remove", method: .get)
            #expect(remove.headers[.allow] == "POST")
            #expect(try await client.execute(uri: "/v1/nothing", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/v1/items/a/b/c", method: .get).status == .notFound)
        }
    }
}

@Suite("HTTP: metrics", .temporaryFolder)
struct MetricsTests {
    @Test("GET /metrics is Prometheus text for admin tokens only: the index's items by mode, size and queue")
    func adminOnly() async throws {
        try await withRouter { client, _ in
            #expect(try await client.execute(uri: "/metrics", method: .get).status == .unauthorized)
            let reader = try await client.execute(uri: "/metrics", method: .get, headers: headers(readerToken))
            #expect(reader.status == .forbidden)
            #expect(try errorCode(reader) == 2012)
            let response = try await client.execute(uri: "/metrics", method: .get, headers: headers(adminToken))
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/plain; version=0.0.4; charset=utf-8")
            let lines = String(buffer: response.body).split(separator: "\n")
            #expect(lines.contains(#"searchlight_items{mode="public"} 2.0"#))
            #expect(lines.contains(#"searchlight_items{mode="private"} 2.0"#))
            #expect(lines.contains("searchlight_items_expired 0.0"))
            #expect(lines.contains("searchlight_writer_queue_depth 0.0"))
            #expect(lines.contains("# TYPE searchlight_index_size_bytes gauge"))
            #expect(lines.contains { $0.hasPrefix("searchlight_index_size_bytes ") && !$0.hasSuffix(" 0.0") })
        }
    }

    @Test("with --metrics-public, GET /metrics answers without a token")
    func metricsPublic() async throws {
        let fixture = try Fixture(metricsPublic: true)
        try await fixture.application.test(.router) { client in
            let response = try await client.execute(uri: "/metrics", method: .get)
            #expect(response.status == .ok)
            #expect(String(buffer: response.body).contains(#"searchlight_items{mode="public"} 2.0"#))
        }
        try await fixture.cleanUp()
    }
}

@Suite("HTTP: writing", .temporaryFolder)
struct WritingTests {
    @Test(
        "POST /v1/items indexes into the token's domain; no token is 401, a read token 403",
        arguments: Fixture.Storage.allCases)
    func index(storage: Fixture.Storage) async throws {
        try await withRouter(storage) { client, _ in
            let body = ByteBuffer(string: #"[{"$canonical_identifier":"new/1","$og_title":"Paper lantern"}]"#)
            let anonymous = try await client.execute(uri: "/v1/items", method: .post, body: body)
            #expect(anonymous.status == .unauthorized)
            let reader = try await client.execute(
                uri: "/v1/items", method: .post, headers: headers(readerToken), body: body)
            #expect(reader.status == .forbidden)
            #expect(try errorCode(reader) == 2012)
            let written = try await client.execute(
                uri: "/v1/items", method: .post, headers: headers(writerToken), body: body)
            #expect(written.status == .ok)
            #expect(
                String(buffer: written.body)
                    == #"{"added":1,"clamped":0,"errors":[],"expired":0,"indexed":1,"rejected":0,"unchanged":0,"updated":0}"#
            )
            let item = try await client.execute(uri: "/v1/items/new%2F1", method: .get, headers: headers(readerToken))
            #expect(try json(item)["domain"] as? String == "com.example.shop")
            let again = try await client.execute(
                uri: "/v1/items", method: .post, headers: headers(writerToken), body: body)
            #expect(try json(again)["unchanged"] as? Int == 1 && json(again)["indexed"] as? Int == 1)
        }
    }

    @Test(
        "POST /v1/items of a megabyte or more is built in bulk, over shards into each shard's next generation",
        arguments: Fixture.Storage.allCases)
    func largeBody(storage: Fixture.Storage) async throws {
        try await withRouter(storage) { client, fixture in
            let lines = (1...1500).map {
                #"{"$canonical_identifier":"bulk/\#($0)","$og_title":"Paper lantern \#($0) \#(String(repeating: "glow ", count: 140))"}"#
            }
            let body = ByteBuffer(string: lines.joined(separator: "\n"))
            #expect(body.readableBytes >= Indexer.directInputLimit)
            var fields = headers(writerToken)
            fields[.contentType] = "application/x-ndjson"
            let written = try await client.execute(uri: "/v1/items", method: .post, headers: fields, body: body)
            #expect(written.status == .ok)
            #expect(try json(written)["added"] as? Int == 1500)
            let last = try await client.execute(
                uri: "/v1/items/bulk%2F1500", method: .get, headers: headers(readerToken))
            #expect(last.status == .ok)
            let folders =
                storage == .shards ? (1...3).map { fixture.directory + "/shard-\($0)" } : [fixture.directory + "/index"]
            for folder in folders {
                #expect(currentDatabase(folder).hasSuffix("/gen-000001"), "\(folder)")
            }
        }
    }

    @Test("a write token cannot write another domain; admin can", arguments: Fixture.Storage.allCases)
    func domains(storage: Fixture.Storage) async throws {
        try await withRouter(storage) { client, _ in
            let named = ByteBuffer(string: #"{"$canonical_identifier":"x","domain":"com.example.blog"}"#)
            let writer = try await client.execute(
                uri: "/v1/items", method: .post, headers: headers(writerToken), body: named)
            let report = try json(writer)
            #expect(report["rejected"] as? Int == 1 && report["indexed"] as? Int == 0)
            let param = try await client.execute(
                uri: "/v1/items?domain=com.example.blog", method: .post, headers: headers(writerToken),
                body: ByteBuffer(string: #"{"$canonical_identifier":"x"}"#))
            #expect(param.status == .forbidden)
            let admin = try await client.execute(
                uri: "/v1/items?domain=com.example.blog", method: .post, headers: headers(adminToken),
                body: ByteBuffer(string: #"{"$canonical_identifier":"x"}"#))
            #expect(try json(admin)["indexed"] as? Int == 1)
        }
    }

    @Test("an item over a limit is rejected alone, code 2019; a key given twice counts its last value")
    func itemLimits() async throws {
        try await withRouter { client, _ in
            // A million keywords, in a body under the 10 MiB limit: over an item's 1 MiB.
            let keywords = Array(repeating: #""k""#, count: 1_000_000).joined(separator: ",")
            let body = ByteBuffer(
                string: #"[{"$canonical_identifier":"many","$keywords":["# + keywords + "]},"
                    + #"{"$canonical_identifier":"twice","$og_title":"first","$og_title":"Paper lantern"}]"#)
            let written = try await client.execute(
                uri: "/v1/items", method: .post, headers: headers(writerToken), body: body)
            let report = try json(written)
            #expect(report["indexed"] as? Int == 1 && report["rejected"] as? Int == 1)
            let error = try #require((report["errors"] as? [[String: Any]])?.first)
            #expect(error["code"] as? Int == 2019 && error["item"] as? Int == 1)
            let item = try await client.execute(uri: "/v1/items/twice", method: .get, headers: headers(readerToken))
            #expect(try json(item)["$og_title"] as? String == "Paper lantern")
        }
    }

    @Test("bad JSON is 400 naming the line and column; JSON Lines are accepted")
    func badJSON() async throws {
        try await withRouter { client, _ in
            let broken = try await client.execute(
                uri: "/v1/items", method: .post, headers: headers(writerToken),
                body: ByteBuffer(string: "[{\"$canonical_identifier\":\"a\"},\n {\"$canonical_identifier\": oops}]"))
            #expect(broken.status == .badRequest)
            #expect(try errorCode(broken) == 2002)
            let message = try #require((try json(broken)["error"] as? [String: Any])?["message"] as? String)
            #expect(message.hasPrefix("request body:2:28: "))
            var fields = headers(writerToken)
            fields[.contentType] = "application/x-ndjson"
            let lines = try await client.execute(
                uri: "/v1/items", method: .post, headers: fields,
                body: ByteBuffer(
                    string: "{\"$canonical_identifier\":\"l1\"}\n{\"$canonical_identifier\":\"l2\"}\n{oops\n"))
            let report = try json(lines)
            #expect(report["indexed"] as? Int == 2 && report["rejected"] as? Int == 1)
        }
    }

    @Test("a body over 10 MiB is 413")
    func tooLarge() async throws {
        try await withRouter { client, _ in
            let huge = ByteBuffer(repeating: UInt8(ascii: " "), count: SearchlightRequestContext.maximumBodySize + 1)
            let response = try await client.execute(
                uri: "/v1/items", method: .post, headers: headers(writerToken), body: huge)
            #expect(response.status == .contentTooLarge)
            #expect(try errorCode(response) == 2013)
            #expect(response.headers[.connection] == "close")
        }
    }

    @Test(
        "DELETE /v1/items/{id}: own private item removed; public refused 409 (1014); unknown 404",
        arguments: Fixture.Storage.allCases)
    func removeOne(storage: Fixture.Storage) async throws {
        try await withRouter(storage) { client, _ in
            let removed = try await client.execute(
                uri: "/v1/items/shop%2Fprivate", method: .delete, headers: headers(writerToken))
            #expect(removed.status == .ok)
            #expect(try json(removed)["removed"] as? Int == 1)
            let refused = try await client.execute(
                uri: "/v1/items/shop%2Fpublic", method: .delete, headers: headers(writerToken))
            #expect(refused.status == .conflict)
            #expect(try errorCode(refused) == 1014)
            let unknown = try await client.execute(
                uri: "/v1/items/nothing", method: .delete, headers: headers(writerToken))
            #expect(unknown.status == .notFound)
            let others = try await client.execute(
                uri: "/v1/items/blog%2Fprivate", method: .delete, headers: headers(writerToken))
            #expect(others.status == .notFound)
            let reader = try await client.execute(
                uri: "/v1/items/shop%2Fpublic", method: .delete, headers: headers(readerToken))
            #expect(reader.status == .forbidden)
            let anonymous = try await client.execute(uri: "/v1/items/shop%2Fpublic", method: .delete)
            #expect(anonymous.status == .unauthorized)
        }
    }

    @Test(
        "POST /v1/items/remove takes ids or BUOs and reports removed, not found and refused",
        arguments: Fixture.Storage.allCases)
    func removeList(storage: Fixture.Storage) async throws {
        try await withRouter(storage) { client, _ in
            let byIds = try await client.execute(
                uri: "/v1/items/remove", method: .post, headers: headers(writerToken),
                body: ByteBuffer(string: #"{"ids":["shop/private","shop/public","ghost"]}"#))
            #expect(byIds.status == .ok)
            let report = try json(byIds)
            #expect(report["removed"] as? Int == 1)
            #expect(report["notFound"] as? [String] == ["ghost"])
            #expect((report["refused"] as? [[String: Any]])?.first?["code"] as? Int == 1014)
            let byObjects = try await client.execute(
                uri: "/v1/items/remove", method: .post, headers: headers(otherToken),
                body: ByteBuffer(string: #"[{"$canonical_identifier":"blog/private"}]"#))
            #expect(try json(byObjects)["removed"] as? Int == 1)
        }
    }

    @Test(
        "the item routes take the Branch iOS SDK's long link for an item; one without an identifier is 400 (1013)",
        arguments: Fixture.Storage.allCases)
    func branchLinks(storage: Fixture.Storage) async throws {
        @Sendable func path(_ link: String) -> String {
            "/v1/items/" + (link.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? link)
        }
        let privateLink = branchLink(
            json: #"{"$og_title":"Secret lantern","$canonical_identifier":"shop/private","$creation_timestamp":1}"#,
            percentEncoded: true)
        let publicLink = branchLink(json: #"{"canonicalIdentifier":"shop/public"}"#, host: "shop.app.link")
        let bad = branchLink(json: #"{"$og_title":"No identifier"}"#)
        try await withRouter(storage) { client, _ in
            let found = try await client.execute(uri: path(privateLink), method: .get, headers: headers(readerToken))
            #expect(found.status == .ok)
            #expect(try json(found)["$canonical_identifier"] as? String == "shop/private")
            let badGet = try await client.execute(uri: path(bad), method: .get)
            #expect(badGet.status == .badRequest)
            #expect(try errorCode(badGet) == 1013)
            let badDelete = try await client.execute(uri: path(bad), method: .delete, headers: headers(writerToken))
            #expect(badDelete.status == .badRequest)
            #expect(try errorCode(badDelete) == 1013)
            let refusedPublic = try await client.execute(
                uri: path(publicLink), method: .delete, headers: headers(writerToken))
            #expect(try errorCode(refusedPublic) == 1014)
            let list = try await client.execute(
                uri: "/v1/items/remove", method: .post, headers: headers(writerToken),
                body: ByteBuffer(string: #"{"ids":["\#(privateLink)","\#(bad)"]}"#))
            let report = try json(list)
            #expect(report["removed"] as? Int == 1)
            #expect((report["refused"] as? [[String: Any]])?.map { $0["code"] as? Int } == [1013])
            let gone = try await client.execute(uri: path(privateLink), method: .delete, headers: headers(writerToken))
            #expect(gone.status == .notFound)
        }
    }

    @Test(
        "POST /v1/items/{id}/views records a view of the caller's item or a public one; others 404",
        arguments: Fixture.Storage.allCases)
    func views(storage: Fixture.Storage) async throws {
        try await withRouter(storage) { client, fixture in
            let own = try await client.execute(
                uri: "/v1/items/shop%2Fprivate/views", method: .post, headers: headers(writerToken))
            #expect(own.status == .ok)
            #expect(try json(own)["recorded"] as? Int == 1)
            let shared = try await client.execute(
                uri: "/v1/items/blog%2Fpublic/views", method: .post, headers: headers(writerToken))
            #expect(try json(shared)["recorded"] as? Int == 1)
            let hidden = try await client.execute(
                uri: "/v1/items/blog%2Fprivate/views", method: .post, headers: headers(writerToken))
            #expect(hidden.status == .notFound)
            #expect(try errorCode(hidden) == 2006)
            let reader = try await client.execute(
                uri: "/v1/items/shop%2Fprivate/views", method: .post, headers: headers(readerToken))
            #expect(reader.status == .forbidden)
            let anonymous = try await client.execute(uri: "/v1/items/shop%2Fprivate/views", method: .post)
            #expect(anonymous.status == .unauthorized)
            let index = try SearchableIndex(path: fixture.directory + "/index", access: .readOnly)
            var counts: [String: Int64] = [:]
            try index.forEachItem(domainIdentifier: nil) { counts[$0.uniqueIdentifier] = $0.object.viewCount ?? 0 }
            try index.close()
            #expect(counts["shop/private"] == 1 && counts["blog/public"] == 1 && counts["blog/private"] == 0)
        }
    }

    @Test("DELETE /v1/items?mode=private removes the domain's private items only", arguments: Fixture.Storage.allCases)
    func removeAllPrivate(storage: Fixture.Storage) async throws {
        try await withRouter(storage) { client, _ in
            let unconfirmed = try await client.execute(uri: "/v1/items", method: .delete, headers: headers(writerToken))
            #expect(unconfirmed.status == .badRequest)
            let response = try await client.execute(
                uri: "/v1/items?mode=private", method: .delete, headers: headers(writerToken))
            #expect(try json(response)["removed"] as? Int == 1)
            let left = try await client.execute(uri: "/v1/search?q=lantern", method: .get, headers: headers(adminToken))
            #expect(try ids(left) == ["shop/public", "blog/public", "blog/private"])
        }
    }

    @Test("POST /v1/prune is for admin only", arguments: Fixture.Storage.allCases)
    func prune(storage: Fixture.Storage) async throws {
        try await withRouter(storage) { client, _ in
            #expect(try await client.execute(uri: "/v1/prune", method: .post).status == .unauthorized)
            #expect(
                try await client.execute(uri: "/v1/prune", method: .post, headers: headers(writerToken)).status
                    == .forbidden)
            let admin = try await client.execute(uri: "/v1/prune", method: .post, headers: headers(adminToken))
            #expect(String(buffer: admin.body) == #"{"pruned":0}"#)
        }
    }

    @Test(
        "concurrent writes are coalesced into fewer commits, and every one is answered",
        arguments: Fixture.Storage.allCases)
    func coalescing(storage: Fixture.Storage) async throws {
        try await withRouter(storage) { client, fixture in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for number in 0..<40 {
                    group.addTask {
                        let body = ByteBuffer(
                            string: #"{"$canonical_identifier":"c/\#(number)","$og_title":"coalesced"}"#)
                        let response = try await client.execute(
                            uri: "/v1/items", method: .post, headers: headers(writerToken), body: body)
                        return try json(response)["indexed"] as? Int ?? 0
                    }
                }
                var indexed = 0
                for try await count in group { indexed += count }
                #expect(indexed == 40)
            }
            let batches = fixture.service.writeCounts.batches
            #expect(batches < 40)
            let search = try await client.execute(
                uri: "/v1/search?q=coalesced&limit=100", method: .get, headers: headers(readerToken))
            #expect(try json(search)["total"] as? Int == 40)
        }
    }
}

@Suite("HTTP: a read-only service (a replica's)", .temporaryFolder)
struct ReadOnlyTests {
    @Test("searches, items, stats and the page answer; every write is 405 (2014) naming the primary, before its token")
    func refusesWrites() async throws {
        let fixture = try Fixture(readOnly: .init(primary: "http://10.0.0.11:7700"))
        try await fixture.application.test(.router) { client in
            #expect(try await client.execute(uri: "/", method: .get).status == .ok)
            let search = try await client.execute(
                uri: "/v1/search?q=lantern", method: .get, headers: headers(readerToken))
            #expect(try ids(search) == ["shop/public", "shop/private", "blog/public"])
            let item = try await client.execute(uri: "/v1/items/shop%2Fpublic", method: .get)
            #expect(item.status == .ok)
            let stats = try await client.execute(uri: "/v1/stats", method: .get, headers: headers(adminToken))
            #expect(try json(stats)["documents"] as? Int == 4)
            let body = ByteBuffer(string: #"{"$canonical_identifier":"new/1"}"#)
            let writes: [(String, HTTPRequest.Method, String?)] = [
                ("/v1/items", .post, writerToken), ("/v1/items/shop%2Fprivate", .delete, writerToken),
                ("/v1/items/remove", .post, writerToken), ("/v1/items?mode=private", .delete, writerToken),
                ("/v1/items/shop%2Fpublic/views", .post, writerToken), ("/v1/prune", .post, adminToken),
                ("/v1/items", .post, nil),
            ]
            for (uri, method, token) in writes {
                let response = try await client.execute(uri: uri, method: method, headers: headers(token), body: body)
                #expect(response.status == .methodNotAllowed, "\(method) \(uri)")
                #expect(response.headers[.allow] == "GET, HEAD")
                #expect(try errorCode(response) == 2014)
                let message = (try json(response)["error"] as? [String: Any])?["message"] as? String ?? ""
                #expect(message.contains("http://10.0.0.11:7700") && message.contains(uri.prefix { $0 != "?" }))
            }
        }
        // The pool itself has no writer: nothing can write through it.
        await #expect(throws: SearchlightError.self) {
            try await fixture.service.write { batch throws(SearchlightError) in try batch.pruneExpiredItems(now: 0) }
        }
        try await fixture.cleanUp()
        let index = try SearchableIndex(path: fixture.directory + "/index", access: .readOnly)
        #expect(try index.statistics().documents == 4)
        try index.close()
    }
}

@Suite("Access tokens", .temporaryFolder)
struct AccessTokenTests {
    @Test("tokens compare in constant time and exactly")
    func comparison() {
        #expect(AccessTokens.constantTimeEqual(Array("abc".utf8), Array("abc".utf8)))
        #expect(!AccessTokens.constantTimeEqual(Array("abc".utf8), Array("abd".utf8)))
        #expect(!AccessTokens.constantTimeEqual(Array("abc".utf8), Array("abcd".utf8)))
        #expect(!AccessTokens.constantTimeEqual([], Array("a".utf8)))
    }

    @Test(
        "a bad tokens file is refused with a message naming it",
        arguments: [
            #"{"tokens":[{"token":"short","domain":"a.b","role":"read"}]}"#,
            #"{"tokens":[{"token":"long-enough-token-123","domain":"a.b","role":"owner"}]}"#,
            #"{"tokens":[{"token":"long-enough-token-123","domain":"a b","role":"read"}]}"#,
            #"{"tokens":[{"token":"long-enough-token-123","domain":"a.b","role":"read"},{"token":"long-enough-token-123","domain":"c.d","role":"read"}]}"#,
            "not json",
        ])
    func badFile(text: String) throws {
        let path = try TemporaryFolder.write("tokens.json", text)
        #expect {
            _ = try AccessTokens(contentsOf: path)
        } throws: { error in
            (error as? SearchlightError)?.message.contains(path) == true
        }
    }
}
