import Foundation
import SearchlightKit
import SearchlightTesting
import Testing

@Suite("Identity, removal and domains (reference: items)", .temporaryFolder)
struct IdentityTests {
    @Test("indexing the same (domain, identifier) again replaces the item")
    func upsert() throws {
        let test = try TestIndex()
        let first = try test.index.indexSearchableItems([item("a", title: "Old title")], now: now)
        #expect(first.added == 1 && first.updated == 0 && first.indexed == 1)
        let second = try test.index.indexSearchableItems([item("a", title: "New title")], now: now)
        #expect(second.added == 0 && second.updated == 1)
        #expect(try test.index.item(withIdentifier: "a", now: now)?.object.title == "New title")
        #expect(try test.index.statistics(now: now).documents == 1)
        #expect(try test.index.ids("old").isEmpty)
    }

    @Test("an item identical to the stored one is unchanged: counted, not rewritten")
    func unchanged() throws {
        let test = try TestIndex()
        let items = [
            item("a", title: "Alpha"), item("b", title: "Beta", expiration: now + day), item("c", title: "Gamma"),
        ]
        #expect(try test.index.indexSearchableItems(items, now: now).added == 3)
        let again = try test.index.indexSearchableItems(items, now: now)
        #expect(again.unchanged == 3 && again.added == 0 && again.updated == 0 && again.indexed == 3)
        // One changed, one now expired, one the same.
        let later = try test.index.indexSearchableItems(
            [item("a", title: "Alpha, revised"), items[1], items[2]], now: now + day)
        #expect(later.updated == 1 && later.expired == 1 && later.unchanged == 1 && later.indexed == 2)
        #expect(try test.index.item(withIdentifier: "a", now: now + day)?.object.title == "Alpha, revised")
        #expect(try test.index.statistics(now: now + day).documents == 2)
    }

    @Test("within one call the last version wins, even when it equals the stored one")
    func unchangedLastWins() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems([item("a", title: "Original")], now: now)
        let report = try test.index.indexSearchableItems(
            [item("a", title: "Interim"), item("a", title: "Original")], now: now)
        #expect(report.updated == 2 && report.unchanged == 0)
        #expect(try test.index.item(withIdentifier: "a", now: now)?.object.title == "Original")
        #expect(try test.index.ids("interim").isEmpty)
    }

    @Test(
        "a large batch (documents built on a second thread) stores every item; a repeated identifier's last version wins"
    )
    func largeBatch() throws {
        let test = try TestIndex()
        // 1,500 items span several of the builder's chunks; "dup" appears in the first and the last.
        var items = [item("dup", title: "first version")]
        items += (1..<1_499).map { item("n\($0)", title: "number \($0)", description: "bulk item", keywords: ["bulk"]) }
        items.append(item("dup", title: "last version", expiration: now + day))
        items.append(item("gone", title: "already expired", expiration: now - 1))
        let report = try test.index.indexSearchableItems(items, now: now)
        #expect(report.indexed == 1_500 && report.added == 1_499 && report.updated == 1 && report.expired == 1)
        #expect(try test.index.statistics(now: now).documents == 1_499)
        #expect(try test.index.search(SearchQuery("bulk", limit: 0), now: now).total == 1_498)
        #expect(try test.index.ids("\"number 777\"") == ["n777"])
        #expect(try test.index.item(withIdentifier: "dup", now: now)?.object.title == "last version")
        #expect(try test.index.ids("first").isEmpty)
        // Spelling data comes from titles, whichever thread built the document.
        #expect(try test.index.search(SearchQuery("numbr", typos: false), now: now).suggestion == "number")
    }

    @Test("a large batch of unchanged items interleaved with changed ones reports and stores each one rightly")
    func largeBatchInterleaved() throws {
        let test = try TestIndex()
        let original = (0..<1_200).map { item("n\($0)", title: "number \($0)", description: "first pass") }
        #expect(try test.index.indexSearchableItems(original, now: now).added == 1_200)
        // Every third item changed, every seventh expired, the rest the same, and 300 new ones.
        var again = original.enumerated().map { index, stored in
            index % 3 == 0
                ? item("n\(index)", title: "number \(index)", description: "second pass")
                : index % 7 == 0 ? item("n\(index)", title: "number \(index)", expiration: now - 1) : stored
        }
        again += (1_200..<1_500).map { item("n\($0)", title: "number \($0)", description: "second pass") }
        let report = try test.index.indexSearchableItems(again, now: now)
        let changed = (0..<1_200).filter { $0 % 3 == 0 }.count
        let expired = (0..<1_200).filter { $0 % 3 != 0 && $0 % 7 == 0 }.count
        #expect(report.updated == changed && report.expired == expired && report.added == 300)
        #expect(report.unchanged == 1_200 - changed - expired)
        #expect(try test.index.search(SearchQuery("second", limit: 0), now: now).total == changed + 300)
        #expect(try test.index.search(SearchQuery("first", limit: 0), now: now).total == 1_200 - changed - expired)
        #expect(try test.index.item(withIdentifier: "n7", now: now) == nil)
        #expect(try test.index.item(withIdentifier: "n1499", now: now)?.object.contentDescription == "second pass")
    }

    @Test("the same identifier in two domains is two items")
    func identityIsPerDomain() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems(
            [item("a", title: "Shop", domain: "com.shop"), item("a", title: "Blog", domain: "com.blog")], now: now)
        #expect(try test.index.statistics(now: now).documents == 2)
        #expect(
            try test.index.item(withIdentifier: "a", domainIdentifier: "com.shop", now: now)?.object.title == "Shop")
        #expect(
            try test.index.item(withIdentifier: "a", domainIdentifier: "com.blog", now: now)?.object.title == "Blog")
    }

    @Test("identifiers longer than Xapian's term limit still work")
    func longIdentifiers() throws {
        let test = try TestIndex()
        let stem = String(repeating: "x", count: 600)
        let ids = [stem + "-one", stem + "-two", String(repeating: "é", count: 500)]
        try test.index.indexSearchableItems(ids.map { item($0, title: "long \($0.suffix(3))") }, now: now)
        #expect(try test.index.statistics(now: now).documents == 3)
        for id in ids {
            #expect(try test.index.item(withIdentifier: id, now: now)?.uniqueIdentifier == id)
            #expect(try test.index.ids("id:\"\(id)\"") == [id])
        }
        let report = try test.index.deleteSearchableItems(withIdentifiers: [ids[0]])
        #expect(report.removed == 1)
        #expect(try test.index.item(withIdentifier: ids[1], now: now) != nil)
        #expect(try test.index.item(withIdentifier: ids[0], now: now) == nil)
    }

    @Test("private items are removed by identifier; unknown identifiers are reported, not errors")
    func removeByIdentifier() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems([item("a"), item("b"), item("c")], now: now)
        let report = try test.index.deleteSearchableItems(withIdentifiers: ["a", "b", "zzz"])
        #expect(report.removed == 2)
        #expect(report.notFound == ["zzz"])
        #expect(report.refused.isEmpty)
        #expect(try test.index.statistics(now: now).documents == 1)
        let again = try test.index.deleteSearchableItems(withIdentifiers: ["a"])
        #expect(again.removed == 0 && again.notFound == ["a"])
    }

    @Test("removal of a public item is refused with 1014 and changes nothing for it")
    func publicRefused() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems([item("pub", mode: .public), item("priv")], now: now)
        let report = try test.index.deleteSearchableItems(withIdentifiers: ["pub", "priv"])
        #expect(report.removed == 1)
        #expect(report.refused.map(\.id) == ["pub"])
        #expect(report.refused.first?.code == .publicContentNotRemovable)
        #expect(report.refused.first?.message.hasPrefix("Spotlight cannot remove publicly indexed content") == true)
        #expect(try test.index.item(withIdentifier: "pub", now: now) != nil)
        let forced = try test.index.deleteSearchableItems(withIdentifiers: ["pub"], includePublic: true)
        #expect(forced.removed == 1)
        #expect(try test.index.item(withIdentifier: "pub", now: now) == nil)
    }

    @Test("a removal without an identifier is refused with 1013")
    func removalWithoutIdentifier() throws {
        let test = try TestIndex()
        #expect {
            _ = try test.index.deleteSearchableItems(withIdentifiers: [])
        } throws: { error in
            SearchlightError.removalWithoutIdentifier ~= error
        }
        let report = try test.index.deleteSearchableItems(withIdentifiers: [""])
        #expect(report.refused.map(\.code) == [.removalWithoutIdentifier])
    }

    @Test("domain removal is recursive on dot components and keeps public items")
    func domainRemoval() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems(
            [
                item("1", domain: "com.example"), item("2", domain: "com.example.shop"),
                item("3", domain: "com.example.shop.eu"), item("4", domain: "com.examples"),
                item("5", domain: "org.example"), item("6", mode: .public, domain: "com.example.shop"),
            ], now: now)
        let removed = try test.index.deleteSearchableItems(withDomainIdentifiers: ["com.example"])
        #expect(removed == 3)
        let left = try test.index.statistics(now: now).domains
        #expect(left == ["com.examples": 1, "org.example": 1, "com.example.shop": 1])
    }

    @Test("the Branch methods index, remove one, remove several and remove all private content")
    func branchMethods() throws {
        let test = try TestIndex()
        let objects = ["a", "b", "c", "d"].map { object($0, title: "Item \($0)") }
        let report = try test.index.indexOnSpotlight(usingSearchableItems: objects, domainIdentifier: "app", now: now)
        #expect(report.added == 4)
        try test.index.indexOnSpotlight(
            with: object("p", title: "Public", mode: .public), domainIdentifier: "app", now: now)
        #expect(try test.index.removeFromSpotlight(objects[0], domainIdentifier: "app").removed == 1)
        #expect(
            try test.index.removeSearchableItems(with: [objects[1], objects[2]], domainIdentifier: "app").removed == 2)
        #expect(try test.index.removeFromSpotlight(object("p"), domainIdentifier: "app").refused.count == 1)
        #expect(try test.index.removeAllPrivateContentFromSpotlight(domainIdentifier: "app") == 1)
        #expect(try test.index.ids("", domain: "app") == ["p"])
    }

    @Test("domains must be names like com.example.shop", arguments: ["", "a b", "a..b", ".a", "a.", "a\tb"])
    func invalidDomain(domain: String) throws {
        let test = try TestIndex()
        #expect(throws: SearchlightError.self) { try test.index.indexSearchableItems([item("x", domain: domain)]) }
    }
}

@Suite("Expiration (reference: expiration)", .temporaryFolder)
struct ExpirationTests {
    @Test("an item is never returned from the instant it expires, pruned or not")
    func neverReturnedOnceExpired() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems([item("soon", title: "melon", expiration: now + 1000)], now: now)
        #expect(try test.index.ids("melon", at: now + 999) == ["soon"])
        #expect(try test.index.item(withIdentifier: "soon", now: now + 999) != nil)
        #expect(try test.index.ids("melon", at: now + 1000).isEmpty)
        #expect(try test.index.ids("", at: now + 1000).isEmpty)
        #expect(try test.index.item(withIdentifier: "soon", now: now + 1000) == nil)
        #expect(try test.index.statistics(now: now + 1000).expired == 1)
        #expect(try test.index.statistics(now: now + 1000).documents == 1)
    }

    @Test("expirations more than 31 days ahead are clamped and counted")
    func clamp() throws {
        let test = try TestIndex()
        var input = DecodedInput(path: "x")
        input.objects = [
            DecodedObject(object: object("far", expiration: now + 90 * day), domain: nil, item: 1, line: nil),
            DecodedObject(object: object("near", expiration: now + 5 * day), domain: nil, item: 2, line: nil),
            DecodedObject(object: object("never"), domain: nil, item: 3, line: nil),
        ]
        let report = try test.index.index([input], options: IndexingOptions(), now: now)
        #expect(report.clamped == 1)
        #expect(try test.index.item(withIdentifier: "far", now: now)?.expirationDate == now + 31 * day)
        #expect(try test.index.item(withIdentifier: "near", now: now)?.expirationDate == now + 5 * day)
        #expect(try test.index.item(withIdentifier: "never", now: now)?.expirationDate == nil)
    }

    @Test("the maximum lifetime can be changed or disabled, and a default lifetime given")
    func lifetimes() throws {
        let test = try TestIndex()
        var input = DecodedInput(path: "x")
        input.objects = [
            DecodedObject(object: object("far", expiration: now + 90 * day), domain: nil, item: 1, line: nil),
            DecodedObject(object: object("open"), domain: nil, item: 2, line: nil),
        ]
        let unlimited = IndexingOptions(maximumTimeToLive: nil, defaultTimeToLive: .seconds(3600))
        #expect(try test.index.index([input], options: unlimited, now: now).clamped == 0)
        #expect(try test.index.item(withIdentifier: "far", now: now)?.expirationDate == now + 90 * day)
        #expect(try test.index.item(withIdentifier: "open", now: now)?.expirationDate == now + 3_600_000)
        let tight = IndexingOptions(maximumTimeToLive: .seconds(60))
        #expect(try test.index.index([input], options: tight, now: now).clamped == 1)
        #expect(try test.index.item(withIdentifier: "far", now: now)?.expirationDate == now + 60_000)
    }

    @Test("an item already expired is not stored, removes the stored version, and counts as expired")
    func alreadyExpired() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems([item("x", title: "fresh")], now: now)
        let report = try test.index.indexSearchableItems([item("x", title: "stale", expiration: now - 1)], now: now)
        #expect(report.expired == 1 && report.indexed == 0)
        #expect(try test.index.statistics(now: now).documents == 0)
    }

    @Test("prune deletes expired items in every domain; a dry run only counts")
    func prune() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems(
            [
                item("a", domain: "one", expiration: now + 10), item("b", domain: "two", expiration: now + 20),
                item("c", domain: "two", expiration: now + day), item("d"),
            ], now: now)
        #expect(try test.index.pruneExpiredItems(now: now + 20, dryRun: true) == 2)
        #expect(try test.index.statistics(now: now).documents == 4)
        #expect(try test.index.pruneExpiredItems(now: now + 20) == 2)
        #expect(try test.index.statistics(now: now + 20).documents == 2)
        #expect(try test.index.pruneExpiredItems(now: now + 20) == 0)
    }
}

@Suite("Transactions, locking and opening", .temporaryFolder)
struct StorageTests {
    @Test("a second writer waits for the lock, then fails with indexLocked")
    func secondWriter() throws {
        let test = try TestIndex()
        let clock = ContinuousClock()
        let start = clock.now
        #expect {
            _ = try SearchableIndex(path: test.path, access: .readWrite(lockTimeout: .milliseconds(300)))
        } throws: { error in
            (error as? SearchlightError)?.code == .indexLocked
        }
        #expect(clock.now - start >= .milliseconds(300))
        try test.index.close()
        // The writer that gave up was still queued in the kernel for the lock: it takes it once and
        // lets go at once, so the next writers wait a moment at most. The kernel wakes every waiter
        // when the lock is let go, so it may take it before this writer or after it: the writer
        // after that one may still find it held for that moment.
        let second = try SearchableIndex(path: test.path, access: .readWrite(lockTimeout: .seconds(5)))
        try second.close()
        let third = try SearchableIndex(path: test.path, access: .readWrite(lockTimeout: .seconds(1)))
        try third.close()
    }

    @Test("a writer through a stub file holds Xapian's lock alone; the folder's next writer waits for it too")
    func stubWriterHoldsXapiansLock() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems([item("a", title: "apple")], now: now)
        try test.index.close()
        let stub = try TemporaryFolder.write("one.stub", "auto \(test.path)\n")
        let viaStub = try SearchableIndex(path: stub, access: .readWrite(lockTimeout: .seconds(5)))
        #expect {
            _ = try SearchableIndex(path: test.path, access: .readWrite(lockTimeout: .milliseconds(200)))
        } throws: { error in
            (error as? SearchlightError)?.code == .indexLocked
        }
        let path = test.path
        let waiting = OnThread {
            let writer = try SearchableIndex(path: path, access: .readWrite(lockTimeout: .seconds(10)))
            try writer.indexSearchableItems([item("b", title: "banana")], now: now)
            try writer.close()
        }
        Thread.sleep(forTimeInterval: 0.15)
        try viaStub.close()
        try waiting.value()
        let reader = try SearchableIndex(path: test.path, access: .readOnly)
        #expect(try reader.ids("banana") == ["b"])
    }

    @Test("readers see only committed writes, and a reader opened earlier sees later commits")
    func readersSeeCommits() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems([item("a", title: "apple")], now: now)
        let reader = try SearchableIndex(path: test.path, access: .readOnly)
        #expect(try reader.ids("apple") == ["a"])
        try test.index.indexSearchableItems([item("b", title: "apple pie")], now: now)
        #expect(try reader.ids("apple").sorted() == ["a", "b"])
        #expect(throws: SearchlightError.self) { try reader.indexSearchableItems([item("c")]) }
    }

    @Test("a missing index is reported as unavailable (1010) for reading")
    func missingIndex() throws {
        #expect {
            _ = try SearchableIndex(path: TemporaryFolder.path + "/nothing", access: .readOnly)
        } throws: { error in
            (error as? SearchlightError)?.code == .indexUnavailable
        }
    }

    @Test("index failures carry what the storage reported, in words that name no command-line flag")
    func failureFacts() throws {
        var failures: [SearchlightError] = []
        do {
            _ = try SearchableIndex(path: TemporaryFolder.path + "/nothing", access: .readOnly)
        } catch {
            failures.append(error)
        }
        #expect(failures.last?.failure == .notFound)
        let test = try TestIndex()
        do {
            _ = try SearchableIndex(path: test.path, access: .readWrite(lockTimeout: .zero))
        } catch {
            failures.append(error)
        }
        #expect(failures.last?.code == .indexLocked)
        #expect(failures.last?.failure == .locked)
        let empty = try TemporaryFolder.subfolder("empty")
        do {
            _ = try SearchableIndex(path: empty, access: .readOnly)
        } catch {
            failures.append(error)
        }
        #expect(failures.last?.failure == .notOpenable)
        _ = try TemporaryFolder.write("junk/iamglass", "garbage")
        do {
            _ = try SearchableIndex(path: TemporaryFolder.path + "/junk", access: .readOnly)
        } catch {
            failures.append(error)
        }
        #expect(failures.last?.failure == .corrupt)
        #expect(failures.count == 4)
        for error in failures {
            #expect(!error.message.contains("--"), "\(error.message)")
            #expect(!error.message.contains("searchlight "), "\(error.message)")
        }
    }

    @Test("a folder that is not an index is reported as unavailable (1010), naming the path")
    func notAnIndex() throws {
        _ = try TemporaryFolder.write("junk/iamglass", "garbage")
        #expect {
            _ = try SearchableIndex(path: TemporaryFolder.path + "/junk", access: .readOnly)
        } throws: { error in
            guard let error = error as? SearchlightError else { return false }
            return error.code == .indexUnavailable && error.message.contains(TemporaryFolder.path + "/junk")
        }
    }

    @Test("a stub database file listing several indexes is searched as one")
    func stubDatabase() throws {
        let one = try TestIndex()
        let two = try TestIndex()
        try one.index.indexSearchableItems([item("1", title: "shared word", mode: .public)], now: now)
        try two.index.indexSearchableItems([item("2", title: "shared word", mode: .public)], now: now)
        try one.index.close()
        try two.index.close()
        let stub = try TemporaryFolder.write("all.stub", "auto \(one.path)\nauto \(two.path)\n")
        let both = try SearchableIndex(path: stub, access: .readOnly)
        #expect(try both.ids("shared").sorted() == ["1", "2"])
        #expect(try both.statistics(now: now).documents == 2)
    }

    @Test("statistics count documents, modes, expired items and domains")
    func statistics() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems(
            [
                item("a", mode: .public, domain: "x"), item("b", domain: "x"), item("c", domain: "y"),
                item("d", domain: "y", expiration: now + 5),
            ], now: now)
        let stats = try test.index.statistics(now: now + 5)
        #expect(stats.documents == 4)
        #expect(stats.public == 1)
        #expect(stats.private == 3)
        #expect(stats.expired == 1)
        #expect(stats.domains == ["x": 2, "y": 2])
        #expect((stats.sizeBytes ?? 0) > 0)
        #expect(stats.path == test.path)
    }

    @Test("exporting every item and indexing it into a new index reproduces the same items")
    func exportRoundTrip() throws {
        let test = try TestIndex()
        let input = decode(
            #"""
            [{"$canonical_identifier":"a","$og_title":"Café crème","$keywords":["coffee"],"$exp_date":1750500000000,"$publicly_indexable":true,"color":"brown"},
             {"canonicalIdentifier":"b","title":"深度链接","contentIndexMode":"private","contentMetadata":{"contentSchema":"TEXT_ARTICLE","price":2.5,"customMetadata":{"tags":["x"]}}},
             {"canonicalIdentifier":"c","title":"Elsewhere","domain":"com.other"}]
            """#)
        #expect(try test.index.index([input], options: IndexingOptions(), now: now).indexed == 3)
        var exported: [SearchableItem] = []
        try test.index.forEachItem(domainIdentifier: nil, now: now) { exported.append($0) }
        #expect(exported.count == 3)
        let lines = try exported.map { String(decoding: try JSONEncoder().encode($0.dictionary), as: UTF8.self) }
        let reread = decode(lines.joined(separator: "\n"), name: "export.jsonl")
        #expect(reread.rejections.isEmpty)
        let copy = try TestIndex()
        #expect(try copy.index.index([reread], options: IndexingOptions(), now: now).indexed == 3)
        var again: [SearchableItem] = []
        try copy.index.forEachItem(domainIdentifier: nil, now: now) { again.append($0) }
        #expect(Set(again) == Set(exported))
        #expect(Set(exported.map(\.domainIdentifier)) == ["default", "com.other"])
    }
}

@Suite("The README's example", .temporaryFolder)
struct ReadmeExampleTests {
    /// README.md, *Use from Swift*, as written there but for the index's path.
    @Test("Use from Swift: index one item and find it")
    func useFromSwift() throws {
        let path = try TemporaryFolder.subfolder("readme") + "/my-index"
        let index = try SearchableIndex(path: path, access: .readWrite(lockTimeout: .seconds(10)))
        var buo = BranchUniversalObject(canonicalIdentifier: "recipe/42")
        buo.title = "Tarte Tatin"
        buo.contentDescription = "Caramelised apples under a crisp pastry."
        buo.keywords = ["dessert", "apples"]
        try index.indexSearchableItems([SearchableItem(object: buo, domainIdentifier: "com.example.cuisine")])

        let page = try index.search(SearchQuery("tarte", domainIdentifier: "com.example.cuisine"))
        #expect(page.results.map { "\($0.title ?? "") \($0.score)" } == ["Tarte Tatin 100"])
    }
}
