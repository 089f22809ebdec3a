import CXapian
import Foundation
import SearchlightTesting
import Testing

/// Calls `body` with an item `id` of domain `app` whose data is `data`, with a price (slot 8) and a
/// category (slot 10), leaving out of its data the keys `moved` names.
private func withShopItem<Result>(
    _ id: String, data: String, price: Double, category: String, moved: UInt32, _ body: (inout cx_item) -> Result
) -> Result {
    let texts = ["app", id, data, category].map { Array($0.utf8CString) }
    return texts[0].withUnsafeBufferPointer { domain in
        texts[1].withUnsafeBufferPointer { identifier in
            texts[2].withUnsafeBufferPointer { json in
                texts[3].withUnsafeBufferPointer { categoryText in
                    func text(_ buffer: UnsafeBufferPointer<CChar>) -> cx_text {
                        cx_text(data: buffer.baseAddress, length: buffer.count - 1)
                    }
                    let values = [
                        cx_value(slot: 8, kind: CX_VALUE_NUMBER, number: price, second: 0, text: cx_text()),
                        cx_value(slot: 10, kind: CX_VALUE_TEXT, number: 0, second: 0, text: text(categoryText)),
                    ]
                    return values.withUnsafeBufferPointer { valueBuffer in
                        var item = cx_item(
                            domain: text(domain), identifier: text(identifier), title: cx_text(),
                            description: cx_text(), schema: cx_text(), data: text(json), keywords: nil,
                            keyword_count: 0, is_public: false, expiration_ms: 0, line_digest: 0, views: -1,
                            source: cx_text(), values: valueBuffer.baseAddress, value_count: 2, moved: moved,
                            document_id: 0)
                        return body(&item)
                    }
                }
            }
        }
    }
}

/// One node of a query tree, as the test writes it.
private typealias Node = (kind: cx_node_kind, field: cx_field, text: String, children: UInt32)

/// Searches with a query tree (pre-order nodes); keeps the results for `inspect` before freeing them.
private func search(
    _ database: OpaquePointer, _ nodes: [Node], limit: UInt32 = 10, inspect: (OpaquePointer) -> Void = { _ in }
) -> (status: cx_status, count: Int, message: String?) {
    var bytes: [UInt8] = []
    var offsets: [(Int, Int)] = []
    for node in nodes {
        offsets.append((bytes.count, node.text.utf8.count))
        bytes += Array(node.text.utf8)
    }
    return bytes.withUnsafeBufferPointer { raw in
        raw.withMemoryRebound(to: CChar.self) { buffer in
            let cNodes = zip(nodes, offsets).map { node, offset in
                cx_query_node(
                    kind: node.kind, field: node.field,
                    text: cx_text(data: offset.1 == 0 ? nil : buffer.baseAddress! + offset.0, length: offset.1),
                    child_count: node.children, slot: 0, low: 0, high: 0, radius: 0)
            }
            return cNodes.withUnsafeBufferPointer { nodeBuffer in
                var request = cx_search_request(
                    nodes: nodeBuffer.baseAddress, node_count: nodeBuffer.count, domain: cx_text(), all_domains: true,
                    scope: CX_SCOPE_ALL, now_ms: 0, offset: 0, limit: limit, relax: false, sort_keys: nil,
                    sort_key_count: 0, facets: nil, facet_count: 0, keep_fields_in_memory: false, meaning: nil,
                    meaning_dimensions: 0, semantic_ratio: 0, meaning_finds: false, typos: false, languages: cx_text())
                var results: OpaquePointer?
                let (status, message) = call { cx_search(database, &request, &results, $0) }
                defer { cx_results_free(results) }
                if let results { inspect(results) }
                return (status, results.map { page($0).count } ?? -1, message)
            }
        }
    }
}

/// Searches for one plain word.
private func search(_ database: OpaquePointer, _ word: String) -> (status: cx_status, count: Int, message: String?) {
    search(database, [(CX_NODE_WORD, CX_FIELD_ANY, word, 0)])
}

/// How `cx_read_words` reads each of `words` for a search of `domain`'s items: "held", the word it
/// corrects it to, or "-".
private func readWordsOf(_ database: OpaquePointer, _ words: [String], as domain: String) -> [String] {
    let bytes = (words + [domain]).map { Array($0.utf8) }
    func texts(_ index: Int, _ done: [cx_text], _ body: ([cx_text]) -> [String]) -> [String] {
        guard index < bytes.count else { return body(done) }
        return bytes[index].withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                texts(index + 1, done + [cx_text(data: $0.baseAddress, length: $0.count)], body)
            }
        }
    }
    return texts(0, []) { all in
        var node = cx_query_node(
            kind: CX_NODE_ALL, field: CX_FIELD_ANY, text: cx_text(), child_count: 0, slot: 0, low: 0, high: 0,
            radius: 0)
        var request = cx_search_request(
            nodes: &node, node_count: 1, domain: all.last!, all_domains: false, scope: CX_SCOPE_ALL,
            now_ms: 0, offset: 0, limit: 0, relax: false, sort_keys: nil, sort_key_count: 0, facets: nil,
            facet_count: 0, keep_fields_in_memory: false, meaning: nil, meaning_dimensions: 0,
            semantic_ratio: 0, meaning_finds: false, typos: false, languages: cx_text())
        var held = [Bool](repeating: false, count: words.count)
        var corrections = [UnsafeMutablePointer<CChar>?](repeating: nil, count: words.count)
        let status = call { cx_read_words(database, &request, all, words.count, &held, &corrections, $0) }.status
        #expect(status == CX_OK)
        defer { corrections.forEach { cx_string_free($0) } }
        return zip(held, corrections).map { $0 ? "held" : $1.map { String(cString: $0) } ?? "-" }
    }
}

/// The word of `words` (each held by one item) that a typo correction of `typed` gives: the fewest
/// edits within the limit, then in byte order, the first letter kept; "-" for none.
private func nearestWord(_ typed: String, among words: [String]) -> String {
    let points = Array(typed.unicodeScalars)
    let limit = points.count < 5 ? 0 : points.count < 9 ? 1 : 2
    var best: (edits: Int, word: String)?
    for candidate in words where candidate != typed && candidate.first == typed.first {
        let edits = optimalStringAlignment(points, Array(candidate.unicodeScalars))
        if edits <= limit, best.map({ edits < $0.edits || (edits == $0.edits && candidate < $0.word) }) ?? true {
            best = (edits, candidate)
        }
    }
    return best?.word ?? "-"
}

/// The optimal string alignment distance of `a` and `b`: letters added, missing, changed, or two
/// neighbours swapped.
private func optimalStringAlignment(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
    var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { table[i][0] = i }
    for j in 0...b.count { table[0][j] = j }
    for i in stride(from: 1, through: a.count, by: 1) {
        for j in stride(from: 1, through: b.count, by: 1) {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
            }
        }
    }
    return table[a.count][b.count]
}

@Suite("The C shim over Xapian", .temporaryFolder)
struct ShimTests {
    @Test("a missing database is CX_ERR_OPENING with a message, and no handle")
    func missingDatabase() throws {
        let (database, status, message) = open(TemporaryFolder.path + "/absent", CX_OPEN_READ)
        #expect(status == CX_ERR_OPENING)
        #expect(database == nil)
        #expect(message?.isEmpty == false)
    }

    @Test("a second writer gets CX_ERR_LOCKED at once")
    func lockedDatabase() throws {
        let (first, status, _) = open(TemporaryFolder.path + "/db", CX_OPEN_WRITE)
        #expect(status == CX_OK)
        defer { cx_database_free(first) }
        let (second, secondStatus, message) = open(TemporaryFolder.path + "/db", CX_OPEN_WRITE)
        #expect(secondStatus == CX_ERR_LOCKED)
        #expect(second == nil)
        #expect(message?.contains("lock") == true)
    }

    @Test("a damaged database is reported, not a crash")
    func corruptDatabase() throws {
        let (database, _, _) = open(TemporaryFolder.path + "/db", CX_OPEN_WRITE)
        let writer = try #require(database)
        #expect(call { cx_database_begin(writer, $0) }.status == CX_OK)
        for index in 0..<50 { #expect(store(writer, id: "id\(index)", title: "word \(index)") == CX_OK) }
        #expect(call { cx_database_commit(writer, $0) }.status == CX_OK)
        cx_database_free(writer)
        for name in try FileManager.default.contentsOfDirectory(atPath: TemporaryFolder.path + "/db")
        where name.hasSuffix(".glass") {
            try Data(repeating: 0xAB, count: 8192).write(to: URL(fileURLWithPath: TemporaryFolder.path + "/db/" + name))
        }
        let (reader, status, message) = open(TemporaryFolder.path + "/db", CX_OPEN_READ)
        defer { cx_database_free(reader) }
        if status == CX_OK, let reader {
            #expect(search(reader, "word").status != CX_OK)
        } else {
            #expect([CX_ERR_CORRUPT, CX_ERR_OPENING, CX_ERR_IO, CX_ERR_VERSION].contains(status))
            #expect(message?.isEmpty == false)
        }
    }

    @Test("a malformed query tree is CX_ERR_INVALID_ARGUMENT with a message, never a crash")
    func malformedTree() throws {
        let (database, _, _) = open(TemporaryFolder.path + "/db", CX_OPEN_WRITE)
        let writer = try #require(database)
        defer { cx_database_free(writer) }
        let badMode = search(writer, [(CX_NODE_FILTER, CX_FIELD_MODE, "nonsense", 0)])
        #expect(badMode.status == CX_ERR_INVALID_ARGUMENT)
        #expect(badMode.message?.contains("mode:") == true)
        let cutShort = search(writer, [(CX_NODE_AND, CX_FIELD_ANY, "", 2), (CX_NODE_WORD, CX_FIELD_ANY, "a", 0)])
        #expect(cutShort.status == CX_ERR_INVALID_ARGUMENT)
        let trailing = search(writer, [(CX_NODE_WORD, CX_FIELD_ANY, "a", 0), (CX_NODE_WORD, CX_FIELD_ANY, "b", 0)])
        #expect(trailing.status == CX_ERR_INVALID_ARGUMENT)
        let wordAsFilter = search(writer, [(CX_NODE_WORD, CX_FIELD_ID, "a", 0)])
        #expect(wordAsFilter.status == CX_ERR_INVALID_ARGUMENT)
        let none = search(writer, [])
        #expect(none.status == CX_ERR_INVALID_ARGUMENT)
    }

    @Test(
        "a page comes in one call: each result's data, percent, what found it, and its snippet as text and byte ranges")
    func resultPage() throws {
        let (database, _, _) = open(TemporaryFolder.path + "/db", CX_OPEN_WRITE)
        let writer = try #require(database)
        defer { cx_database_free(writer) }
        let description = "Une crème brûlée"
        let data = #"{"$canonical_identifier":"one","$og_description":"\#(description)"}"#
        #expect(store(writer, id: "one", title: "Crème brûlée", data: data) == CX_OK)
        #expect(store(writer, id: "two", title: "Brûlée", data: #"{"$canonical_identifier":"two"}"#) == CX_OK)
        var checked = false
        let result = search(writer, [(CX_NODE_PARTIAL, CX_FIELD_ANY, "creme", 0)]) { results in
            let found = page(results)
            #expect(found.count == 1)
            guard let first = found.first else { return }
            #expect(string(first.data).contains(#""$canonical_identifier":"one""#))
            #expect((1...100).contains(first.percent))
            #expect(first.matched_by == UInt32(CX_MATCHED_BY_WORDS))
            #expect(string(first.snippet) == description)
            #expect(first.snippet_match_count == 1)
            #expect(first.snippet_matches?.pointee.offset == 4 && first.snippet_matches?.pointee.length == 6)
            #expect(cx_results_correction_count(results) == 0)
            #expect(cx_results_correction_text(results, 3).length == 0)
            checked = true
        }
        #expect(result.status == CX_OK && checked)
        // An item without a description: an empty snippet, no ranges.
        let plain = search(writer, [(CX_NODE_WORD, CX_FIELD_ANY, "brulee", 0)]) { results in
            let found = page(results)
            #expect(found.count == 2)
            for result in found where string(result.data).contains("two") {
                #expect(result.snippet.length == 0 && result.snippet_matches == nil && result.snippet_match_count == 0)
            }
        }
        #expect(plain.status == CX_OK && plain.count == 2)
        // A page with nothing on it.
        let none = search(writer, [(CX_NODE_WORD, CX_FIELD_ANY, "nothing", 0)]) { results in
            var count = 7
            #expect(cx_results_page(results, &count) == nil && count == 0)
        }
        #expect(none.status == CX_OK && none.count == 0)
        #expect(result.status == CX_OK && checked)
    }

    @Test(
        "a result's snippet is its item's description as its JSON holds it: escapes undone, nested members passed over"
    )
    func snippetFromData() throws {
        let (database, _, _) = open(TemporaryFolder.path + "/db", CX_OPEN_WRITE)
        let writer = try #require(database)
        defer { cx_database_free(writer) }
        let cases: [(json: String, description: String)] = [
            (#"{"a":{"$og_description":"no","b":["}",{"c":"]"}]},"$og_description":"plain kettle"}"#, "plain kettle"),
            (
                #"{"$og_description":"say \"hi\" \\ a\/b\ttab\nline \u00e9t\u00E9 \ud83d\ude00 台所 \u0001"}"#,
                "say \"hi\" \\ a/b\ttab\nline été 😀 台所 \u{1}"
            ),
            (#"{"n":-1.5e3,"t":true,"x":null,"$og_description":"after scalars"}"#, "after scalars"),
            (#"{"$og_description":42}"#, ""),
            (#"{"$og_description":"lone \udc00 half"}"#, "lone \u{FFFD} half"),
            (#"{"$og_description":"cut"#, ""),
        ]
        for (number, (json, _)) in cases.enumerated() {
            #expect(store(writer, id: "item-\(number)", title: "Kettle \(number)", data: json) == CX_OK)
        }
        var snippets: [String: String] = [:]
        let result = search(writer, [(CX_NODE_WORD, CX_FIELD_TITLE, "kettle", 0)]) { results in
            for result in page(results) { snippets[string(result.data)] = string(result.snippet) }
        }
        #expect(result.status == CX_OK)
        for (json, description) in cases { #expect(snippets[json] == description, "\(json)") }
    }

    @Test(
        "a result's fields are read from its data in one pass as the Kit reads them, or left to the Kit when written otherwise"
    )
    func resultFields() throws {
        let (database, _, _) = open(TemporaryFolder.path + "/db", CX_OPEN_WRITE)
        let writer = try #require(database)
        defer { cx_database_free(writer) }
        let envelope = #""domain":"app","contentIndexMode":"private""#
        struct Read: Equatable {
            var identifier = "", domain = "app", title: String? = nil, description: String? = nil
            var url: String? = nil, image: String? = nil, keywords: [String] = [], expiration: Int64 = 0
            var isPublic = false
        }
        let cases: [(json: String, read: Read?)] = [
            (
                #"{"$canonical_identifier":"r0","domain":"app","contentIndexMode":"public","$og_title":"Say \"hi\" \u00e9","#
                    + #""$og_description":null,"$keywords":["a","","b"],"$exp_date":1797505963288,"#
                    + #""$canonical_url":"https://x.example/1","$og_image_url":"","x":{"$og_title":"no"}}"#,
                Read(
                    identifier: "r0", title: "Say \"hi\" é", url: "https://x.example/1", image: "",
                    keywords: ["a", "b"],
                    expiration: 1_797_505_963_288, isPublic: true)
            ),
            (
                #"{ "$canonical_identifier" : "r1" , "$keywords" : "one" , "$exp_date" : -5 , \#(envelope) }"#,
                Read(identifier: "r1", keywords: ["one"])
            ),
            (#"{"$canonical_identifier":"r2","$exp_date":null,"$keywords":[],\#(envelope)}"#, Read(identifier: "r2")),
            // Written otherwise than the Kit writes: left to the Kit.
            (#"{"$canonical_identifier":"r3","title":"camel",\#(envelope)}"#, nil),
            (#"{"$canonical_identifier":"r4","contentImageUrl":"alias",\#(envelope)}"#, nil),
            (#"{"$canonical_identifier":"r5","$exp_date":"1797505963288",\#(envelope)}"#, nil),
            (#"{"$canonical_identifier":"r6","$exp_date":1.5e12,\#(envelope)}"#, nil),
            (#"{"$canonical_identifier":"r7","domain":"app","contentIndexMode":"ContentIndexModePublic"}"#, nil),
            (#"{"$canonical_identifier":"r8","contentIndexMode":"public"}"#, nil),
            (#"{"$canonical_identifier":"r9","$og_title":"a","$og_title":"b",\#(envelope)}"#, nil),
            (#"{"$canonical_identifier":"r10","$keywords":["a",1],\#(envelope)}"#, nil),
            (#"{"$canonical_identifier":"r11","$exp_date":253402300800000,\#(envelope)}"#, nil),
            (#"{"$canonical_identifier":"r12",\#(envelope)"#, nil),
            (#"{"$canonical_identifier":"",\#(envelope)}"#, nil),
        ]
        for (number, (json, _)) in cases.enumerated() {
            #expect(store(writer, id: "item-\(number)", title: "Kettle \(number)", data: json) == CX_OK)
        }
        var found: [String: Read?] = [:]
        let result = search(writer, [(CX_NODE_WORD, CX_FIELD_TITLE, "kettle", 0)], limit: 100) { results in
            for result in page(results) {
                guard result.fields_read else {
                    found[string(result.data)] = .some(nil)
                    continue
                }
                func present(_ text: cx_text) -> String? { text.data == nil ? nil : string(text) }
                found[string(result.data)] = Read(
                    identifier: string(result.identifier), domain: string(result.domain), title: present(result.title),
                    description: present(result.description), url: present(result.canonical_url),
                    image: present(result.image_url),
                    keywords: UnsafeBufferPointer(start: result.keywords, count: result.keyword_count).map(string),
                    expiration: result.expiration, isPublic: result.is_public)
            }
        }
        #expect(result.status == CX_OK && found.count == cases.count)
        for (json, read) in cases { #expect(found[json] == .some(read), "\(json)") }
    }

    @Test("domains come back as a list of names and counts")
    func domainList() throws {
        let (database, _, _) = open(TemporaryFolder.path + "/db", CX_OPEN_WRITE)
        let writer = try #require(database)
        defer { cx_database_free(writer) }
        #expect(store(writer, id: "a", title: "A") == CX_OK)
        #expect(store(writer, id: "b", title: "B") == CX_OK)
        var list: OpaquePointer?
        #expect(call { cx_database_domains(writer, &list, $0) }.status == CX_OK)
        defer { cx_name_list_free(list) }
        let domains = try #require(list)
        #expect(cx_name_list_count(domains) == 1)
        let entry = cx_name_list_entry(domains, 0)
        #expect(
            String(
                decoding: UnsafeRawBufferPointer(start: entry.name.data, count: entry.name.length), as: UTF8.self)
                == "app")
        #expect(entry.documents == 2)
        #expect(cx_name_list_entry(domains, 1).documents == 0)
        cx_name_list_free(nil)
    }

    @Test("cx_read_words: held, corrected by a typo, or neither, only from the items the caller may see")
    func readWords() throws {
        let (database, _, _) = open(TemporaryFolder.path + "/db", CX_OPEN_WRITE)
        let writer = try #require(database)
        defer { cx_database_free(writer) }
        #expect(store(writer, id: "p", title: "Copper kettle", public: true) == CX_OK)
        #expect(store(writer, id: "s", title: "Zorblax heater", public: false) == CX_OK)
        let words = ["kettle", "kettel", "zorblax", "zorblaxx", "blorft"]
        // Another domain sees the public kettle only: the private item's word is neither held nor
        // offered as a correction.
        #expect(readWordsOf(writer, words, as: "other") == ["held", "kettle", "-", "-", "-"])
        #expect(readWordsOf(writer, words, as: "app") == ["held", "kettle", "held", "zorblax", "-"])
        #expect(readWordsOf(writer, [], as: "app").isEmpty)
    }

    @Test(
        "cx_read_words: a word's correction is the nearest word a typo or two from it, as a comparison with every word finds"
    )
    func correctionsAgainstEveryWord() throws {
        let (database, _, _) = open(TemporaryFolder.path + "/db", CX_OPEN_WRITE)
        let writer = try #require(database)
        defer { cx_database_free(writer) }
        // Words of a few letters, so that many lie a typo or two from one another.
        var random = SeededGenerator(seed: 7)
        let letters = Array("aeilnorst")
        func word() -> String {
            String((0..<(5 + Int(random.next() % 6))).map { _ in letters[Int(random.next() % UInt64(letters.count))] })
        }
        var stored = Set<String>()
        while stored.count < 1_500 { stored.insert(word()) }
        let sorted = stored.sorted()
        for start in stride(from: 0, to: sorted.count, by: 50) {
            let title = sorted[start..<min(start + 50, sorted.count)].joined(separator: " ")
            #expect(store(writer, id: "item\(start)", title: title, public: true) == CX_OK)
        }
        var typed: [String] = []
        while typed.count < 300 {
            // A stored word with an edit or two, or a word of its own.
            var points = Array(sorted[Int(random.next() % UInt64(sorted.count))])
            for _ in 0..<(1 + Int(random.next() % 2)) {
                let at = 1 + Int(random.next() % UInt64(points.count - 1))
                switch random.next() % 4 {
                case 0: points.insert(letters[Int(random.next() % UInt64(letters.count))], at: at)
                case 1: if points.count > 5 { points.remove(at: at) }
                case 2: points[at] = letters[Int(random.next() % UInt64(letters.count))]
                default: if at + 1 < points.count { points.swapAt(at, at + 1) }
                }
            }
            let candidate = random.next() % 5 == 0 ? word() : String(points)
            if !stored.contains(candidate) { typed.append(candidate) }
        }
        let read = readWordsOf(writer, typed, as: "app")
        var compared = 0
        for (word, answer) in zip(typed, read) where answer != "held" {
            #expect(answer == nearestWord(word, among: sorted), "\(word)")
            compared += 1
        }
        #expect(compared > 200)
    }

    @Test("a reader's words for typos follow each commit: the words written since, and none that no item holds")
    func correctionsFollowCommits() throws {
        let path = TemporaryFolder.path + "/db"
        let (database, _, _) = open(path, CX_OPEN_WRITE)
        let writer = try #require(database)
        defer { cx_database_free(writer) }
        var random = SeededGenerator(seed: 11)
        let letters = Array("aeilnorst")
        var every = Set<String>()
        // Each word in one item only: every word's frequency is 1, and an item removed takes its
        // words out of the index.
        func words(_ count: Int) -> [String] {
            var made: [String] = []
            while made.count < count {
                let length = 5 + Int(random.next() % 6)
                let word = String((0..<length).map { _ in letters[Int(random.next() % UInt64(letters.count))] })
                if every.insert(word).inserted { made.append(word) }
            }
            return made
        }
        var items: [String: [String]] = [:]
        func commit(adding added: [String: [String]], removing removed: String? = nil) {
            #expect(call { cx_database_begin(writer, $0) }.status == CX_OK)
            for (id, words) in added.sorted(by: { $0.key < $1.key }) {
                #expect(store(writer, id: id, title: words.joined(separator: " "), public: true) == CX_OK)
                items[id] = words
            }
            if let removed {
                #expect(deleteItem(writer, id: removed) == CX_OK)
                items[removed] = nil
            }
            #expect(call { cx_database_commit(writer, $0) }.status == CX_OK)
        }
        commit(adding: Dictionary(uniqueKeysWithValues: (0..<20).map { ("first\($0)", words(50)) }))
        let (opened, _, _) = open(path, CX_OPEN_READ)
        let reader = try #require(opened)
        defer { cx_database_free(reader) }
        for round in 0..<4 {
            let held = items.values.flatMap { $0 }.sorted()
            // Words a typo from the words held, from words removed and from words still to come.
            var typed: [String] = []
            while typed.count < 150 {
                var points = Array(Array(every)[Int(random.next() % UInt64(every.count))])
                let at = 1 + Int(random.next() % UInt64(points.count - 1))
                points[at] = letters[Int(random.next() % UInt64(letters.count))]
                if !every.contains(String(points)) { typed.append(String(points)) }
            }
            for (word, answer) in zip(typed, readWordsOf(reader, typed, as: "app")) where answer != "held" {
                #expect(answer == nearestWord(word, among: held), "round \(round): \(word)")
            }
            commit(adding: ["round\(round)": words(15)], removing: "first\(round)")
            #expect(call { cx_database_reopen(reader, $0) }.status == CX_OK)
        }
    }

    @Test("NULL handles are refused or ignored, never dereferenced")
    func nullHandling() {
        cx_database_free(nil)
        cx_results_free(nil)
        cx_cursor_free(nil)
        cx_string_free(nil)
        var database: OpaquePointer?
        #expect(call { cx_database_open(nil, CX_OPEN_READ, &database, $0) }.status == CX_ERR_INVALID_ARGUMENT)
        #expect(call { cx_database_close(nil, $0) }.status == CX_ERR_INVALID_ARGUMENT)
        #expect(call { cx_database_begin(nil, $0) }.status == CX_ERR_INVALID_ARGUMENT)
        #expect(call { cx_database_commit(nil, $0) }.status == CX_ERR_INVALID_ARGUMENT)
        var results: OpaquePointer?
        #expect(call { cx_search(nil, nil, &results, $0) }.status == CX_ERR_INVALID_ARGUMENT)
        var cursor: OpaquePointer?
        #expect(call { cx_cursor_open(nil, 1, false, &cursor, $0) }.status == CX_ERR_INVALID_ARGUMENT)
        #expect(call { cx_database_reopen(nil, $0) }.status == CX_ERR_INVALID_ARGUMENT)
        #expect(!cx_database_is_writable(nil))
        // A NULL out_error is allowed: the status still says what happened.
        #expect(cx_database_close(nil, nil) == CX_ERR_INVALID_ARGUMENT)
    }

    @Test("writes need a writable handle and an open transaction is committed or cancelled")
    func transactions() throws {
        let (database, _, _) = open(TemporaryFolder.path + "/db", CX_OPEN_WRITE)
        let writer = try #require(database)
        defer { cx_database_free(writer) }
        #expect(call { cx_database_commit(writer, $0) }.status == CX_ERR_INVALID_ARGUMENT)
        #expect(call { cx_database_begin(writer, $0) }.status == CX_OK)
        #expect(call { cx_database_begin(writer, $0) }.status == CX_ERR_INVALID_ARGUMENT)
        #expect(store(writer, id: "kept", title: "kept") == CX_OK)
        #expect(call { cx_database_commit(writer, $0) }.status == CX_OK)
        #expect(call { cx_database_begin(writer, $0) }.status == CX_OK)
        #expect(store(writer, id: "dropped", title: "dropped") == CX_OK)
        #expect(call { cx_database_cancel(writer, $0) }.status == CX_OK)
        #expect(search(writer, "kept").count == 1)
        #expect(search(writer, "dropped").count == 0)

        let (reader, _, _) = open(TemporaryFolder.path + "/db", CX_OPEN_READ)
        defer { cx_database_free(reader) }
        let readOnly = try #require(reader)
        #expect(!cx_database_is_writable(readOnly))
        #expect(call { cx_database_begin(readOnly, $0) }.status == CX_ERR_INVALID_ARGUMENT)
        #expect(store(readOnly, id: "x", title: "x") == CX_ERR_INVALID_ARGUMENT)
    }

    @Test("a new item is stored at the document id it asks for, which must be past the last one")
    func documentIDs() throws {
        let (database, _, _) = open(TemporaryFolder.path + "/ids", CX_OPEN_WRITE)
        let writer = try #require(database)
        defer { cx_database_free(writer) }
        /// The document ids of `identifiers` (0 for none), and the last id used.
        func found(_ identifiers: [String]) -> (ids: [UInt32], last: UInt32) {
            let bytes = Array(("app" + identifiers.joined()).utf8)
            var ids = [UInt32](repeating: 0, count: identifiers.count)
            var last: UInt32 = 0
            bytes.withUnsafeBufferPointer { raw in
                raw.withMemoryRebound(to: CChar.self) { buffer in
                    var start = 3
                    let items = identifiers.map { identifier in
                        var item = cx_item()
                        item.domain = cx_text(data: buffer.baseAddress, length: 3)
                        item.identifier = cx_text(data: buffer.baseAddress! + start, length: identifier.utf8.count)
                        start += identifier.utf8.count
                        return item
                    }
                    _ = call { cx_database_find_documents(writer, items, items.count, &ids, &last, $0) }
                }
            }
            return (ids, last)
        }
        #expect(store(writer, id: "five", title: "five", documentID: 5) == CX_OK)
        #expect(store(writer, id: "next", title: "next") == CX_OK)
        #expect(found(["five", "next", "none"]) == ([5, 6, 0], 6))
        // An item stored already keeps its id; an id not past the last is refused.
        #expect(store(writer, id: "five", title: "five again", documentID: 9) == CX_OK)
        #expect(store(writer, id: "early", title: "early", documentID: 3) == CX_ERR_INVALID_ARGUMENT)
        #expect(found(["five", "early"]) == ([5, 0], 6))
        #expect(search(writer, "again").count == 1)
    }

    @Test("a view of shards reads each shard at the revision it opened until reopened, and searches them as one")
    func viewOfShards() throws {
        let folders = (1...2).map { TemporaryFolder.path + "/shard-\($0)" }
        let key = "searchlight.batch"
        /// Commits `value` under the key, and one item, on the shard at `folder`.
        func commit(_ folder: String, _ value: String) throws {
            let (database, status, message) = open(folder, CX_OPEN_WRITE)
            let writer = try #require(database, "\(status): \(message ?? "")")
            defer { cx_database_free(writer) }
            #expect(call { cx_database_begin(writer, $0) }.status == CX_OK)
            #expect(store(writer, id: "\(folder)-\(value)", title: "lantern \(value)") == CX_OK)
            let set = withText(key) { key in
                withText(value) { value in call { cx_database_set_metadata(writer, key, value, $0) } }
            }
            #expect(set.status == CX_OK)
            #expect(call { cx_database_commit(writer, $0) }.status == CX_OK)
        }
        for folder in folders { try commit(folder, "1") }
        var opened: OpaquePointer?
        let shards = folders.map { strdup($0) }
        defer { for shard in shards { free(shard) } }
        let specs = shards.map { cx_shard(folder: $0, host: nil, port: 0, meaning_copy: nil) }
        #expect(call { cx_database_open_shards("topology", specs, specs.count, 1000, &opened, $0) }.status == CX_OK)
        let view = try #require(opened)
        defer { cx_database_free(view) }
        func batches() -> String {
            var values: UnsafeMutablePointer<CChar>?
            _ = withText(key) { key in call { cx_database_shard_metadata(view, key, &values, $0) } }
            defer { cx_string_free(values) }
            return values.map { String(cString: $0) } ?? "none"
        }
        #expect(batches() == "1\n1")
        #expect(search(view, "lantern").count == 2)
        // One shard commits: the view stays where it was until it is reopened, whole.
        try commit(folders[1], "2")
        #expect(batches() == "1\n1")
        #expect(search(view, "lantern").count == 2)
        #expect(call { cx_database_reopen(view, $0) }.status == CX_OK)
        #expect(batches() == "1\n2")
        #expect(search(view, "lantern").count == 3)
        // One index is not a view of shards.
        let (single, _, _) = open(folders[0], CX_OPEN_READ)
        defer { cx_database_free(single) }
        var values: UnsafeMutablePointer<CChar>?
        let refused = withText(key) { key in call { cx_database_shard_metadata(single, key, &values, $0) } }
        #expect(refused.status == CX_ERR_INVALID_ARGUMENT)
    }

    @Test("documents are stored only with the items they were built from")
    func documentsMatchTheirItems() throws {
        let (database, _, _) = open(TemporaryFolder.path + "/db", CX_OPEN_WRITE)
        let writer = try #require(database)
        defer { cx_database_free(writer) }
        var items = [cx_item](repeating: cx_item(), count: 2)
        var documents: OpaquePointer?
        #expect(call { cx_documents_build(&items, 2, &documents, $0) }.status == CX_OK)
        let built = try #require(documents)
        defer { cx_documents_free(built) }
        let stored = call { cx_database_store_documents(writer, built, &items, 1, 0, nil, $0) }
        #expect(stored.status == CX_ERR_INVALID_ARGUMENT)
        #expect(stored.message?.contains("not built from these items") == true)
    }

    @Test("an item's data may leave out what its values hold: reading puts it back, and a changed value is a change")
    func leftOutKeys() throws {
        var count = 0
        let fields = UnsafeBufferPointer(start: cx_item_fields(&count), count: count)
        func givenBack(_ slot: UInt32) -> String? {
            fields.first { $0.given_back && $0.slot == slot }.flatMap { $0.branch_key.map { String(cString: $0) } }
        }
        #expect(givenBack(8) == "$price" && givenBack(10) == "$product_category")
        #expect(givenBack(16) == nil && givenBack(32) == nil && givenBack(0) == nil)
        let (database, _, _) = open(TemporaryFolder.path + "/db", CX_OPEN_WRITE)
        let writer = try #require(database)
        defer { cx_database_free(writer) }
        let moved: UInt32 = 1 << 1 | 1 << 3  // slots 8 and 10
        let data = "{\"domain\":\"app\",\"title\":\"Kettle\"}"
        let category = "Kitchen \"&\" Co \\ 台所\u{1}"
        func unchanged(_ id: String, price: Double, moved: UInt32, data: String = data) -> UInt8 {
            withShopItem(id, data: data, price: price, category: category, moved: moved) { item in
                var marks: [UInt8] = [9]
                let status = call { cx_database_find_unchanged(writer, &item, 1, 0, &marks, $0) }.status
                return status == CX_OK ? marks[0] : 9
            }
        }
        for (id, price) in [("a", 24.5), ("b", 31.0)] {
            let status = withShopItem(id, data: data, price: price, category: category, moved: moved) { item in
                var documents: OpaquePointer?
                guard call({ cx_documents_build(&item, 1, &documents, $0) }).status == CX_OK else { return CX_ERR_IO }
                defer { cx_documents_free(documents) }
                return call { cx_database_store_documents(writer, documents!, &item, 1, 0, nil, $0) }.status
            }
            #expect(status == CX_OK)
        }

        for (id, price) in [("a", "24.5"), ("b", "31")] {
            var bytes: UnsafeMutablePointer<CChar>?
            var length = 0
            let got = call { error in
                "app".withCString { domain in
                    id.withCString { identifier in
                        cx_database_get(
                            writer, cx_text(data: domain, length: 3), cx_text(data: identifier, length: 1), &bytes,
                            &length, nil, error)
                    }
                }
            }
            defer { cx_string_free(bytes) }
            #expect(got.status == CX_OK)
            let json = String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
            #expect(json.hasPrefix("{\"domain\":\"app\",\"title\":\"Kettle\","), "\(json)")
            #expect(json.contains("\"$price\":\(price)"), "\(json)")
            let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
            #expect(object?["$product_category"] as? String == category, "\(json)")
            #expect(object?["title"] as? String == "Kettle")
        }

        #expect(unchanged("a", price: 24.5, moved: moved) == 1)
        #expect(unchanged("a", price: 24.25, moved: moved) == 0)
        #expect(unchanged("a", price: 24.5, moved: 0) == 0)
        #expect(unchanged("b", price: 31, moved: moved) == 1)
    }

    @Test("a closed handle refuses further calls")
    func closedHandle() throws {
        let (database, _, _) = open(TemporaryFolder.path + "/db", CX_OPEN_WRITE)
        let writer = try #require(database)
        defer { cx_database_free(writer) }
        #expect(call { cx_database_close(writer, $0) }.status == CX_OK)
        #expect(call { cx_database_close(writer, $0) }.status == CX_OK)
        #expect(search(writer, "x").status == CX_ERR_INVALID_ARGUMENT)
        #expect(call { cx_database_begin(writer, $0) }.status == CX_ERR_INVALID_ARGUMENT)
    }

    @Test(
        "accent folding keeps case and every other character",
        arguments: [
            ("Café", "Cafe"), ("Straße", "Strasse"), ("Œuvre", "OEuvre"), ("Ångström", "Angstrom"),
            ("Łódź", "Lodz"), ("cafe\u{301}", "cafe"), ("深度链接", "深度链接"), ("plain", "plain"), ("×÷", "×÷"),
        ])
    func folding(input: String, expected: String) {
        let bytes = Array(input.utf8)
        var output: UnsafeMutablePointer<CChar>?
        var length = 0
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                call { cx_fold_accents(cx_text(data: chars.baseAddress, length: chars.count), &output, &length, $0) }
                    .status
            }
        }
        defer { cx_string_free(output) }
        #expect(status == CX_OK)
        #expect(
            output.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: length), as: UTF8.self) } == expected
        )
    }
}

/// The held-out sentences the tests ship (`Tests/fixtures/languages/sentences.tsv`), as
/// (language, text) pairs, each cut to its first `words` words (0: whole).
private func heldOutSentences(words: Int) throws -> [(String, String)] {
    let path =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().path
        + "/fixtures/languages/sentences.tsv"
    return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }.map {
        let parts = $0.split(separator: "\t", maxSplits: 1)
        let sentence = parts[1].split(separator: " ")
        return (String(parts[0]), (words == 0 ? sentence[...] : sentence.prefix(words)).joined(separator: " "))
    }
}

@Suite("Telling a text's language (SPEC §2.5)")
struct LanguageDetectionTests {
    /// What `cx_detect_language` tells of `text`, `expected` the language most texts are in, or nil.
    static func told(_ text: String, host: String = "", expected: String = "") -> String? {
        var code = [CChar](repeating: 0, count: 8)
        let length = text.withCString { text in
            host.withCString { host in
                expected.withCString {
                    cx_detect_language(
                        cx_text(data: text, length: strlen(text)), cx_text(data: host, length: strlen(host)),
                        cx_text(data: $0, length: strlen($0)), &code, code.count)
                }
            }
        }
        return length == 0 ? nil : String(cString: code)
    }

    @Test(
        "held-out sentences in English, French, German, Spanish and Italian, whole and cut to six words, with no language expected and with English expected (as items are told): at least 95 % told right",
        arguments: [0, 6], ["", "en"])
    func heldOut(words: Int, expected: String) throws {
        let texts = try heldOutSentences(words: words)
        #expect(texts.count == 100)
        // A text not told is in the language expected.
        let right = texts.filter { (Self.told($0.1, expected: expected) ?? expected) == $0.0 }.count
        #expect(right >= 95, "\(right) of 100 told right, cut to \(words) words, \(expected) expected")
    }

    @Test("a title of a few words is told another language than the one expected only when it fits it clearly")
    func shortTitles() {
        // Titles of CACM, an English collection, that CLD2 fits to Italian and Irish a little.
        #expect(Self.told("Monte Carlo (Algorithm 166).", expected: "en") == nil)
        #expect(Self.told("Free Field Read (Algorithm 239 [I5]).", expected: "en") == nil)
        #expect(Self.told("Tarte Tatin aux pommes caramélisées", expected: "en") == "fr")
        // A long English text stays English, the language expected leaning it.
        let long = "Preliminary report on the international algebraic language, with the syntax of its statements"
        #expect((Self.told(long, expected: "en") ?? "en") == "en")
    }

    @Test("a language Searchlight does not read, or no text, is not told; too small a buffer gets nothing")
    func notTold() {
        #expect(Self.told("") == nil)
        #expect(Self.told("12 34 56") == nil)
        var code = [CChar](repeating: 0, count: 2)
        let length = "Une tarte aux pommes caramélisées".withCString {
            cx_detect_language(
                cx_text(data: $0, length: strlen($0)), cx_text(data: nil, length: 0), cx_text(data: nil, length: 0),
                &code,
                code.count)
        }
        #expect(length == 0)
    }
}
