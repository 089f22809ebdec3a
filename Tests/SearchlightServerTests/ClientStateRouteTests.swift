import Foundation
import Hummingbird
import HummingbirdTesting
import SearchlightKit
import SearchlightTesting
import Testing

@Suite("HTTP: batches with client state (reference: SPEC 2.6)", .temporaryFolder)
struct ClientStateRouteTests {
    private func state(_ client: any TestClientProtocol, _ token: String?, domain: String? = nil) async throws
        -> TestResponse
    {
        let uri = "/v1/client-state" + (domain.map { "?domain=\($0)" } ?? "")
        return try await client.execute(uri: uri, method: .get, headers: headers(token))
    }

    private func post(_ client: any TestClientProtocol, _ query: String, _ items: String, token: String = writerToken)
        async throws -> TestResponse
    {
        try await client.execute(
            uri: "/v1/items?" + query, method: .post, headers: headers(token), body: ByteBuffer(string: items))
    }

    @Test(
        "a write commits its items with its state; an expected state not stored is 412 and commits nothing",
        arguments: Fixture.Storage.allCases)
    func compareAndSet(storage: Fixture.Storage) async throws {
        try await withRouter(storage) { client, _ in
            let none = try await state(client, writerToken)
            #expect(none.status == .ok)
            #expect(
                String(buffer: none.body)
                    == #"{"clientState":null,"clientStateBase64":null,"domain":"com.example.shop"}"#)

            let first = try await post(
                client, "clientState=page-1&expectedClientState=", #"{"$canonical_identifier":"cart/1"}"#)
            #expect(first.status == .ok, "\(String(buffer: first.body))")
            let read = try json(try await state(client, readerToken))
            #expect(read["clientState"] as? String == "page-1" && read["clientStateBase64"] as? String == "cGFnZS0x")

            let stale = try await post(
                client, "clientState=page-2&expectedClientState=page-0", #"{"$canonical_identifier":"cart/2"}"#)
            #expect(stale.status == .preconditionFailed)
            #expect(try errorCode(stale) == 2024)
            let message = (try json(stale)["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.contains(#""page-1", not the expected "page-0""#), "\(message)")
            let missing = try await client.execute(
                uri: "/v1/items/cart%2F2", method: .get, headers: headers(writerToken))
            #expect(missing.status == .notFound)
            #expect(try json(try await state(client, writerToken))["clientState"] as? String == "page-1")

            // Bytes, in base64; and a state without a condition.
            let bytes = try await post(
                client, "clientState=AP8=&clientStateEncoding=base64", #"{"$canonical_identifier":"cart/3"}"#)
            #expect(bytes.status == .ok)
            let binary = try json(try await state(client, writerToken))
            #expect(binary["clientState"] is NSNull && binary["clientStateBase64"] as? String == "AP8=")
        }
    }

    @Test("a state is 1 to 1,024 bytes, and a bad parameter is 400 naming it")
    func badInput() async throws {
        try await withRouter { client, _ in
            let item = #"{"$canonical_identifier":"cart/1"}"#
            let long = String(repeating: "a", count: 1025)
            for query in [
                "clientState=" + long, "clientState=", "expectedClientState=x", "clientState=x&clientStateEncoding=hex",
                "clientState=%25%25&clientStateEncoding=base64",
            ] {
                let response = try await post(client, query, item)
                #expect(response.status == .badRequest, "\(query): \(String(buffer: response.body))")
            }
            #expect(try await post(client, "clientState=" + long.dropLast(), item).status == .ok)
            let missing = try await client.execute(
                uri: "/v1/items/cart%2F1", method: .get, headers: headers(writerToken))
            #expect(missing.status == .ok, "only the 1,024-byte state's write committed the item")
        }
    }

    @Test("a token reads and writes its own domain's state only", arguments: Fixture.Storage.allCases)
    func perDomain(storage: Fixture.Storage) async throws {
        try await withRouter(storage) { client, _ in
            #expect(try await post(client, "clientState=shop-1", "[]").status == .ok)
            #expect(try await post(client, "clientState=blog-1", "[]", token: otherToken).status == .ok)
            #expect(try json(try await state(client, writerToken))["clientState"] as? String == "shop-1")
            #expect(try json(try await state(client, otherToken))["clientState"] as? String == "blog-1")
            // Another domain's state is not the caller's to read, nor to expect.
            #expect(try await state(client, readerToken, domain: "com.example.blog").status == .forbidden)
            #expect(try await state(client, nil).status == .unauthorized)
            let blogExpected = try await post(client, "clientState=shop-2&expectedClientState=blog-1", "[]")
            #expect(blogExpected.status == .preconditionFailed)
            // An admin names the domain.
            #expect(
                try json(try await state(client, adminToken, domain: "com.example.blog"))["clientState"] as? String
                    == "blog-1")
        }
    }
}
