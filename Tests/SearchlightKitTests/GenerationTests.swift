import Foundation
import SearchlightKit
import SearchlightTesting
import Synchronization
import Testing

private func contents(_ index: SearchableIndex) throws -> [String] {
    var lines: [String] = []
    try index.forEachItem(domainIdentifier: nil, includeExpired: true, now: now) { item in
        lines.append(item.object.canonicalIdentifier + "|" + (item.object.title ?? ""))
    }
    return lines.sorted()
}

private func files(_ path: String) throws -> Set<String> {
    Set(try FileManager.default.contentsOfDirectory(atPath: path))
}

@Suite("Generations and compaction (design: generations)", .temporaryFolder)
struct GenerationTests {
    @Test("compaction reclaims the space of deleted items, keeps every item, and moves the index to generations")
    func compaction() throws {
        let test = try TestIndex()
        let items = (0..<600).map { item("item/\($0)", title: "Title \($0)", description: "Words about \($0)") }
        try test.index.indexSearchableItems(items, now: now)
        _ = try test.index.deleteSearchableItems(withIdentifiers: (0..<400).map { "item/\($0)" })
        let before = try contents(test.index)
        #expect(try files(test.path).contains("iamglass"))

        let report = try test.index.compact()
        #expect(report.bytesAfter < report.bytesBefore)
        #expect(try contents(test.index) == before)
        let first = try files(test.path)
        #expect(first.contains("XAPIANDB") && first.contains("gen-000001") && !first.contains("iamglass"))
        #expect(!first.contains { $0.hasSuffix(".glass") } && first.contains("flintlock"))
        #expect(try String(contentsOfFile: test.path + "/XAPIANDB", encoding: .utf8) == "auto gen-000001\n")

        // Writes go on in the new generation; the next compaction replaces it.
        try test.index.indexSearchableItems([item("late", title: "Written after")], now: now)
        try test.index.compact()
        #expect(try files(test.path) == ["XAPIANDB", "gen-000002", "flintlock", "writer.lock"])
        #expect(try test.index.ids("written") == ["late"])
        #expect(try test.index.statistics(now: now).documents == 201)
    }

    @Test("a reader opened before compactions follows the new generations without an error")
    func readerFollows() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems([item("a", title: "apple")], now: now)
        let reader = try SearchableIndex(path: test.path, access: .readOnly)
        #expect(try reader.ids("apple") == ["a"])
        for round in 0..<3 {
            try test.index.indexSearchableItems([item("r\(round)", title: "apple round \(round)")], now: now)
            try test.index.compact()
            #expect(try reader.ids("apple").count == round + 2)
        }
        #expect(try reader.statistics(now: now).documents == 4)
    }

    @Test("a reader in the middle of an export reads on when a compaction deletes its generation")
    func readerMidExport() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems((0..<500).map { item("n\($0)", title: "number \($0)") }, now: now)
        try test.index.compact()
        let reader = try SearchableIndex(path: test.path, access: .readOnly)
        var seen = 0
        try reader.forEachItem(domainIdentifier: nil, now: now) { _ in
            if seen == 10 {
                try test.index.compact()
                #expect(!(try files(test.path)).contains("gen-000001"))
            }
            seen += 1
        }
        #expect(seen == 500)
        #expect(try reader.ids("number", at: now).count == 100)
    }

    @Test("a writer that waited through a compaction writes into the new generation")
    func waitingWriter() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems((0..<300).map { item("n\($0)", title: "number \($0)") }, now: now)
        let path = test.path
        let waiting = OnThread {
            let second = try SearchableIndex(path: path, access: .readWrite(lockTimeout: .seconds(30)))
            try second.indexSearchableItems([item("second", title: "from the waiting writer")], now: now)
            try second.close()
        }
        Thread.sleep(forTimeInterval: 0.12)
        try test.index.compact()
        try test.index.close()
        try waiting.value()
        let reader = try SearchableIndex(path: path, access: .readOnly)
        #expect(try reader.ids("waiting") == ["second"])
        #expect(try reader.statistics(now: now).documents == 301)
    }

    @Test("what a killed compaction leaves is removed by the next writer; the old layout stays current")
    func leftovers() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems([item("a", title: "apple")], now: now)
        try test.index.close()
        // Killed after publishing the stub but before removing iamglass, and another killed mid-copy.
        try TemporaryFolder.write("XAPIANDB", "auto gen-000001\n", in: test.path)
        try TemporaryFolder.write("gen-000001/postlist.glass", "partial", in: test.path)
        try TemporaryFolder.write("gen-000007/termlist.glass", "partial", in: test.path)
        let reader = try SearchableIndex(path: test.path, access: .readOnly)
        #expect(try reader.ids("apple") == ["a"])
        let writer = try SearchableIndex(path: test.path, access: .readWrite(lockTimeout: .seconds(5)))
        #expect(try files(test.path).isDisjoint(with: ["XAPIANDB", "gen-000001", "gen-000007"]))
        try writer.compact()
        try TemporaryFolder.write("gen-000005/termlist.glass", "partial", in: test.path)
        try writer.close()
        _ = try SearchableIndex(path: test.path, access: .readWrite(lockTimeout: .seconds(5)))
        #expect(!(try files(test.path)).contains("gen-000005"))
        #expect(try reader.ids("apple") == ["a"])
    }

    @Test("a writer leaves a stub that is not one of its own alone")
    func foreignStub() throws {
        let test = try TestIndex()
        try test.index.close()
        try TemporaryFolder.write("XAPIANDB", "auto /srv/elsewhere\n", in: test.path)
        let writer = try SearchableIndex(path: test.path, access: .readWrite(lockTimeout: .seconds(5)))
        try writer.close()
        #expect(try files(test.path).contains("XAPIANDB"))
    }

    @Test("a stub file listing shards is searched but never compacted")
    func stubNotCompacted() throws {
        let test = try TestIndex()
        try test.index.indexSearchableItems([item("1", title: "shared word")], now: now)
        try test.index.close()
        let stub = try TemporaryFolder.write("one.stub", "auto \(test.path)\n")
        let index = try SearchableIndex(path: stub, access: .readWrite(lockTimeout: .seconds(5)))
        #expect(throws: SearchlightError.self) { try index.compact() }
        #expect(try index.compactIfWorthwhile(afterDeleting: 1) == nil)
    }

    @Test("a reader of shards follows a local shard compacted on its own into a new generation")
    func shardCompactedAlone() throws {
        let folder = try TemporaryFolder.subfolder("shards")
        let topology = try TemporaryFolder.write("cluster", "auto shard-1\nauto shard-2\n", in: folder)
        let writer = try SearchableIndex(path: topology, access: .readWrite(lockTimeout: .seconds(5)))
        try writer.indexSearchableItems((0..<20).map { item("a/\($0)", title: "apple \($0)") }, now: now)
        try writer.close()
        let reader = try SearchableIndex(path: topology, access: .readOnly)
        #expect(try reader.ids("apple").count == 20)
        for round in 1...2 {
            let shard = try SearchableIndex(path: folder + "/shard-1", access: .readWrite(lockTimeout: .seconds(5)))
            try shard.compact()
            try shard.indexSearchableItems([item("late/\(round)", title: "apple late")], now: now)
            try shard.close()
            #expect(try reader.ids("apple").count == 20 + round)
        }
        try reader.close()
    }

    @Test("readers of shards search on, each time whole, while a local shard is compacted on its own again and again")
    func readersDuringShardCompactions() throws {
        let folder = try TemporaryFolder.subfolder("shards")
        let topology = try TemporaryFolder.write("cluster", "auto shard-1\nauto shard-2\n", in: folder)
        let writer = try SearchableIndex(path: topology, access: .readWrite(lockTimeout: .seconds(5)))
        try writer.indexSearchableItems((0..<200).map { item("a/\($0)", title: "apple \($0)") }, now: now)
        try writer.close()
        let done = Mutex(false)
        let counts = Mutex<[Int]>([])
        let failures = Mutex<[String]>([])
        let reading = Thread {
            do {
                let reader = try SearchableIndex(path: topology, access: .readOnly)
                while !done.withLock({ $0 }) {
                    let total = try reader.search(SearchQuery("apple", limit: 1), now: now).total
                    counts.withLock { $0.append(total) }
                }
                try reader.close()
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        reading.start()
        for round in 1...5 {
            let shard = try SearchableIndex(path: folder + "/shard-1", access: .readWrite(lockTimeout: .seconds(5)))
            try shard.indexSearchableItems([item("late/\(round)", title: "apple late")], now: now)
            try shard.compact()
            try shard.close()
        }
        done.withLock { $0 = true }
        while !reading.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        #expect(failures.withLock { $0 }.isEmpty)
        // Every search saw every item committed so far, and items only ever came.
        let totals = counts.withLock { $0 }
        #expect(!totals.isEmpty && totals.allSatisfy { (200...205).contains($0) }, "\(totals.prefix(20))")
        #expect(totals == totals.sorted())
    }

    @Test("prune compacts when it deleted 1 % of the items or more, so the index does not grow")
    func pruneCompacts() throws {
        let test = try TestIndex()
        var items = (0..<300).map { item("keep/\($0)", title: "kept \($0)") }
        items += (0..<30).map { item("old/\($0)", title: "expiring \($0)", expiration: now + 10) }
        try test.index.indexSearchableItems(items, now: now)
        let before = try test.index.statistics(now: now).sizeBytes ?? 0
        #expect(try test.index.pruneExpiredItems(now: now + 10) == 30)
        #expect(try files(test.path).contains("XAPIANDB"))
        #expect((try test.index.statistics(now: now + 10).sizeBytes ?? .max) <= before)
        // One item of many is not worth a compaction.
        try test.index.indexSearchableItems([item("old/x", title: "one more", expiration: now + 20)], now: now)
        #expect(try test.index.pruneExpiredItems(now: now + 20) == 1)
        #expect(try String(contentsOfFile: test.path + "/XAPIANDB", encoding: .utf8) == "auto gen-000001\n")
    }

    @Test("a replica kept by xapian-replicate is read like generations, followed across full copies, and never written")
    func replica() throws {
        let folder = try TemporaryFolder.subfolder("replica")
        let banner = """
            # Automatically generated by Xapian::DatabaseReplica v1.4.22.
            # Do not manually edit - replication operations may regenerate this file.

            """
        // The replicator's layout: live copies in replica_0/ and replica_1/, the stub naming one.
        func write(_ copy: Int, _ items: [SearchableItem]) throws {
            let index = try SearchableIndex(
                path: folder + "/replica_\(copy)", access: .readWrite(lockTimeout: .seconds(5)))
            try index.indexSearchableItems(items, now: now)
            try index.close()
        }
        func makeLive(_ copy: Int) throws {
            try (banner + "auto replica_\(copy)\n").write(
                toFile: folder + "/XAPIANDB.tmp", atomically: false, encoding: .utf8)
            #expect(rename(folder + "/XAPIANDB.tmp", folder + "/XAPIANDB") == 0)
        }
        try write(0, [item("a", title: "apple")])
        try makeLive(0)
        let reader = try SearchableIndex(path: folder, access: .readOnly)
        #expect(try reader.ids("apple") == ["a"])
        // A changeset applied to the live copy in place.
        try write(0, [item("b", title: "apple pie")])
        #expect(try reader.ids("apple").sorted() == ["a", "b"])
        // A full copy (the primary published a new generation) goes live by the stub's rename.
        try write(1, [item("c", title: "apple crumble")])
        try makeLive(1)
        try FileManager.default.removeItem(atPath: folder + "/replica_0")
        #expect(try reader.ids("apple") == ["c"])
        try reader.close()

        #expect {
            try SearchableIndex(path: folder, access: .readWrite(lockTimeout: .seconds(1)))
        } throws: { error in
            (error as? SearchlightError)?.code == .readOnly
                && (error as? SearchlightError)?.message.contains("replica kept by xapian-replicate") == true
        }
    }
}
