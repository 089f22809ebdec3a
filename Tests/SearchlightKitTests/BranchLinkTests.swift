import Foundation
import SearchlightKit
import SearchlightTesting
import Testing

@Suite("The Branch iOS SDK's Spotlight identifier: long links (reference: Branch links)", .temporaryFolder)
struct BranchLinkTests {
    @Test("the SDK's link names its item, base64 raw or percent-encoded, keys in any order")
    func sdkLinks() throws {
        let raw = branchLink(json: sdkDictionary)
        let base64 = String(raw.split(separator: "data=").last ?? "")
        #expect(base64.contains("+") && base64.contains("/") && base64.hasSuffix("="))
        for link in [
            raw, branchLink(json: sdkDictionary, percentEncoded: true), branchLink(json: sdkDictionaryReordered),
            branchLink(json: sdkDictionaryReordered, percentEncoded: true),
        ] {
            #expect(try BranchLink.canonicalIdentifier(in: link) == "article/deep-linking")
        }
    }

    @Test("other Branch hosts, an app's own link domain, either dialect; anything else is an identifier")
    func hostsAndDialects() throws {
        let camel = #"{"canonicalIdentifier":"cart/991","title":"Cart"}"#
        for host in ["app.link", "example.app.link", "example.test-app.link", "links.example.com"] {
            #expect(try BranchLink.canonicalIdentifier(in: branchLink(json: camel, host: host)) == "cart/991")
        }
        for plain in [
            "article/deep-linking", "https://example.com/articles/42", "https://example.com/a/KEY?feature=spotlight",
            "https://example.com/a/b/c?data=eyJ9",
        ] {
            #expect(try BranchLink.canonicalIdentifier(in: plain) == plain)
        }
    }

    @Test(
        "a Branch link without a decodable identifier is error 1013, naming what is missing",
        arguments: [
            ("https://bnc.lt/a/key_live_x?feature=spotlight", "no data parameter"),
            ("https://bnc.lt/a/key_live_x?data=%%%", "not base64"),
            (branchLink(json: "[1, 2]"), "JSON object"),
            (branchLink(json: #"{"$og_title":"No identifier","$creation_timestamp":1}"#), "without a canonical"),
            (branchLink(json: #"{"$canonical_identifier":""}"#), "without a canonical"),
        ])
    func undecodable(link: String, problem: String) {
        #expect {
            _ = try BranchLink.canonicalIdentifier(in: link)
        } throws: { error in
            let error = error as? SearchlightError
            return error?.code == .removalWithoutIdentifier && error?.message.contains(problem) == true
        }
    }

    @Test("get and remove act on the item a link names; a bad link in a list is refused, the rest removed")
    func getAndRemove() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems(
            [
                item("article/deep-linking", title: "Deep linking ~~~ ???? >>>", keywords: ["deep linking"]),
                item("cart/991", title: "Cart"),
            ], now: now)
        let link = branchLink(json: sdkDictionary, percentEncoded: true)
        #expect(try test.index.item(withIdentifier: link, now: now)?.uniqueIdentifier == "article/deep-linking")
        let bad = branchLink(json: #"{"$og_title":"No identifier"}"#)
        let report = try test.index.deleteSearchableItems(withIdentifiers: [link, bad, "cart/991"])
        #expect(report.removed == 2)
        #expect(report.refused.map(\.id) == [bad] && report.refused.map(\.code) == [.removalWithoutIdentifier])
        #expect(try test.index.ids("") == [])
        let again = try test.index.deleteSearchableItems(withIdentifiers: [link])
        #expect(again.notFound == [link])
    }
}
