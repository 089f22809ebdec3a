import Foundation
import SearchlightKit
import SearchlightTesting
import Testing

@Suite("Reading BUO input (reference: items)", .temporaryFolder)
struct DecodingTests {
    @Test("a file may hold one object, an array, or JSON Lines")
    func inputShapes() throws {
        #expect(decode(#"{"$canonical_identifier":"a"}"#).objects.map(\.object.canonicalIdentifier) == ["a"])
        #expect(
            decode(#"[{"$canonical_identifier":"a"},{"canonicalIdentifier":"b"}]"#).objects.map(\.item) == [1, 2])
        let lines = decode("{\"$canonical_identifier\":\"a\"}\n\n{\"canonicalIdentifier\":\"b\"}\n", name: "x.jsonl")
        #expect(lines.objects.map(\.object.canonicalIdentifier) == ["a", "b"])
        #expect(lines.objects.map(\.line) == [1, 3])
        #expect(lines.rejections.isEmpty)
    }

    @Test(
        "streamed JSON Lines give the same items, rejections, positions and line numbers as a whole read",
        arguments: [1, 2, 1_000])
    func streamedLines(piece: Int) throws {
        let lines = [
            #"{"canonicalIdentifier":"a","title":"First"}"#, "", "   ", #"{"canonicalIdentifier":"b"}"#,
            "{not json", "[1, 2]", #"{"canonicalIdentifier":"c","keywords":"x"}"#,
            #"{"canonicalIdentifier":"d","title":"no newline at the end"}"#,
        ]
        let file = try TemporaryFolder.write("items.jsonl", "\u{FEFF}" + lines.joined(separator: "\n"))
        let whole = BranchUniversalObjectReader.read(path: file)
        var pieces: [DecodedInput] = []
        BranchUniversalObjectReader.readLines(path: file, piece: piece) { pieces.append($0) }
        #expect(pieces.flatMap(\.objects) == whole.objects)
        #expect(pieces.flatMap(\.rejections) == whole.rejections)
        #expect(whole.objects.map(\.line) == [1, 4, 7, 8])
        #expect(whole.rejections.map(\.line) == [5, 6])
        // Seven lines end in a newline; the last piece holds what follows the last one.
        #expect(pieces.count == (piece == 1_000 ? 1 : 7 / piece + 1))
    }

    @Test("a streamed read stops when its consumer throws, and reports an unreadable file")
    func streamedLinesStop() throws {
        let file = try TemporaryFolder.write(
            "items.jsonl", (1...10_000).map { #"{"canonicalIdentifier":"\#($0)"}"# }.joined(separator: "\n"))
        var seen = 0
        #expect(throws: SearchlightError.self) {
            try BranchUniversalObjectReader.readLines(path: file, piece: 100) {
                (_: DecodedInput) throws(SearchlightError) in
                seen += 1
                if seen == 3 { throw SearchlightError(.writeFailed, "stop") }
            }
        }
        #expect(seen == 3)
        var missing: [DecodedInput] = []
        BranchUniversalObjectReader.readLines(path: TemporaryFolder.path + "/absent.jsonl") { missing.append($0) }
        #expect(missing.count == 1)
        #expect(missing.first?.rejections.first?.code == .unreadableInput)
    }

    @Test("a .json file holding JSON Lines is read as JSON Lines")
    func jsonLinesInJSONFile() {
        let input = decode("{\"$canonical_identifier\":\"a\"}\n{\"$canonical_identifier\":\"b\"}\n", name: "x.json")
        #expect(input.objects.map(\.object.canonicalIdentifier) == ["a", "b"])
        #expect(input.rejections.isEmpty)
    }

    @Test("a UTF-8 byte-order mark is ignored")
    func byteOrderMark() throws {
        let input = decode("\u{FEFF}{\"$canonical_identifier\":\"a\"}")
        #expect(input.objects.count == 1)
        #expect(input.rejections.isEmpty)
    }

    @Test(
        "both key dialects fill the same fields",
        arguments: [
            (#"{"$canonical_identifier":"x","$og_title":"T","$og_description":"D","$canonical_url":"https://u","$og_image_url":"https://i"}"#),
            (#"{"canonicalIdentifier":"x","title":"T","contentDescription":"D","canonicalUrl":"https://u","imageUrl":"https://i"}"#),
            (#"{"canonicalIdentifier":"x","$og_title":"T","contentDescription":"D","$canonical_url":"https://u","contentImageUrl":"https://i"}"#),
        ])
    func dialects(json: String) throws {
        let object = try decodeOne(json)
        #expect(object.canonicalIdentifier == "x")
        #expect(object.title == "T")
        #expect(object.contentDescription == "D")
        #expect(object.canonicalUrl == "https://u")
        #expect(object.imageUrl == "https://i")
        #expect(object.contentMetadata.customMetadata.isEmpty)
    }

    @Test("both dialects may appear in the same file")
    func mixedFile() {
        let input = decode(#"[{"$canonical_identifier":"a","$og_title":"A"},{"canonicalIdentifier":"b","title":"B"}]"#)
        #expect(input.objects.map(\.object.title) == ["A", "B"])
    }

    @Test(
        "keywords are an array of strings or a single string",
        arguments: [
            (#"{"$canonical_identifier":"x","$keywords":["a","b"]}"#, ["a", "b"]),
            (#"{"canonicalIdentifier":"x","keywords":"solo"}"#, ["solo"]),
            (#"{"canonicalIdentifier":"x","keywords":[]}"#, []),
            (#"{"canonicalIdentifier":"x"}"#, []),
        ])
    func keywords(json: String, expected: [String]) throws {
        #expect(try decodeOne(json).keywords == expected)
    }

    @Test(
        "dates are epoch milliseconds as numbers or numeric strings; 0 or less is none",
        arguments: [
            ("1750000000000", Int64?.some(1_750_000_000_000)),
            ("\"1750000000000\"", 1_750_000_000_000),
            ("1750000000000.7", 1_750_000_000_000),
            ("0", nil),
            ("-5", nil),
            ("\"0\"", nil),
            ("null", nil),
        ])
    func dates(value: String, expected: Int64?) throws {
        let branch = try decodeOne(
            #"{"$canonical_identifier":"x","$exp_date":\#(value),"$creation_timestamp":\#(value)}"#)
        #expect(branch.expirationDate == expected)
        #expect(branch.creationDate == expected)
        let camel = try decodeOne(#"{"canonicalIdentifier":"x","expirationDate":\#(value)}"#)
        #expect(camel.expirationDate == expected)
    }

    @Test(
        "booleans accept true/false, numbers and the strings older SDKs write",
        arguments: [
            ("true", true), ("false", false), ("1", true), ("0", false), ("2", true), ("0.0", false),
            ("\"true\"", true), ("\"false\"", false), ("\"1\"", true), ("\"0\"", false), ("\"YES\"", true),
            ("\"NO\"", false), ("\"yes\"", true),
        ])
    func booleans(value: String, expected: Bool) throws {
        let object = try decodeOne(
            #"{"$canonical_identifier":"x","$publicly_indexable":\#(value),"locallyIndex":\#(value)}"#)
        #expect(object.publiclyIndex == expected)
        #expect(object.locallyIndex == expected)
    }

    @Test(
        "an item is public by contentIndexMode, else by $publicly_indexable (the Branch SDK's rule)",
        arguments: [
            (#""contentIndexMode":"public""#, ContentIndexMode.public),
            (#""contentIndexMode":"private""#, .private),
            (#""contentIndexMode":"ContentIndexModePublic""#, .public),
            (#""contentIndexMode":"ContentIndexModePrivate""#, .private),
            (#""contentIndexMode":"private","$publicly_indexable":true"#, .private),
            (#""contentIndexMode":"public","$publicly_indexable":false"#, .public),
            (#""$publicly_indexable":true"#, .public),
            (#""$publicly_indexable":"NO""#, .private),
            (#""publiclyIndex":1"#, .public),
            (#""$locally_indexable":true"#, .private),
        ])
    func indexMode(fields: String, expected: ContentIndexMode) throws {
        #expect(try decodeOne(#"{"$canonical_identifier":"x",\#(fields)}"#).effectiveIndexMode == expected)
    }

    @Test("content metadata is read from $ keys and from contentMetadata")
    func metadata() throws {
        let flat = try decodeOne(
            #"{"$canonical_identifier":"p","$content_schema":"COMMERCE_PRODUCT","$price":"19.5","$currency":"EUR","$sku":"K-1","$rating_average":4.5,"$image_captions":["front"],"$latitude":48.85}"#
        )
        let nested = try decodeOne(
            #"{"canonicalIdentifier":"p","contentMetadata":{"contentSchema":"COMMERCE_PRODUCT","price":19.5,"currency":"EUR","sku":"K-1","ratingAverage":4.5,"imageCaptions":["front"],"latitude":48.85}}"#
        )
        for object in [flat, nested] {
            #expect(object.contentMetadata.contentSchema == "COMMERCE_PRODUCT")
            #expect(object.contentMetadata.price == 19.5)
            #expect(object.contentMetadata.currency == "EUR")
            #expect(object.contentMetadata.sku == "K-1")
            #expect(object.contentMetadata.ratingAverage == 4.5)
            #expect(object.contentMetadata.imageCaptions == ["front"])
            #expect(object.contentMetadata.latitude == 48.85)
        }
        #expect(flat == nested)
    }

    @Test("unknown keys are kept as custom metadata, never an error")
    func customMetadata() throws {
        let flat = try decodeOne(#"{"$canonical_identifier":"x","color":"red","sizes":[1,2],"nested":{"a":null}}"#)
        #expect(
            flat.contentMetadata.customMetadata == [
                "color": .string("red"), "sizes": .array([.integer(1), .integer(2)]),
                "nested": .object(["a": .null]),
            ])
        let nested = try decodeOne(
            #"{"canonicalIdentifier":"x","contentMetadata":{"customMetadata":{"color":"red"},"extra":true}}"#)
        #expect(nested.contentMetadata.customMetadata == ["color": .string("red"), "extra": .bool(true)])
    }

    @Test("an object without an identifier is rejected with 1009, naming the file and item")
    func missingIdentifier() throws {
        let input = decode(#"[{"$canonical_identifier":"ok"},{"$og_title":"no id"},{"canonicalIdentifier":""}]"#)
        #expect(input.objects.map(\.object.canonicalIdentifier) == ["ok"])
        #expect(input.rejections.map(\.code) == [.missingIdentifier, .missingIdentifier])
        #expect(input.rejections.map(\.item) == [2, 3])
        #expect(input.rejections.allSatisfy { $0.path == "input.json" })
        #expect(
            input.rejections[0].message.hasPrefix("A canonical identifier is required to uniquely identify content"))
    }

    @Test("JSON Lines rejections name the line")
    func jsonLinesLine() throws {
        let input = decode("{\"$canonical_identifier\":\"a\"}\n\n{\"title\":\"x\"}\n", name: "f.jsonl")
        #expect(input.rejections.first?.line == 3)
        #expect(input.rejections.first?.item == 2)
    }

    @Test(
        "a field of the wrong type is rejected, naming the field",
        arguments: [
            (#""$og_title":42"#, "\"$og_title\" must be a string"),
            (#""$keywords":[1]"#, "\"$keywords\" element 1 must be a string"),
            (#""$keywords":{"a":1}"#, "\"$keywords\" must be an array of strings or a string"),
            (#""$exp_date":"tomorrow""#, "\"$exp_date\" must be epoch milliseconds"),
            (#""$exp_date":true"#, "\"$exp_date\" must be epoch milliseconds"),
            (#""$exp_date":1e300"#, "\"$exp_date\" is out of range"),
            (#""$publicly_indexable":"maybe""#, "\"$publicly_indexable\" must be a boolean"),
            (#""contentIndexMode":"secret""#, "\"contentIndexMode\" must be \"public\" or \"private\""),
            (#""$price":"cheap""#, "\"$price\" must be a number or a numeric string"),
            (#""contentMetadata":[]"#, "\"contentMetadata\" must be an object"),
            (#""contentMetadata":{"price":"x"}"#, "\"contentMetadata.price\" must be a number"),
            (#""$canonical_identifier":7"#, "\"$canonical_identifier\" must be a string"),
            (#""domain":5"#, "\"domain\" must be a string"),
            (#""source":["a"]"#, "\"source\" must be a string"),
        ])
    func wrongType(field: String, message: String) throws {
        let error = try rejection(#"{"canonicalIdentifier":"x",\#(field)}"#)
        #expect(error.code == .invalidField)
        #expect(error.message.contains(message), "\(error.message)")
        #expect(error.item == 1)
    }

    @Test("a syntax error rejects the whole file with its line and column")
    func syntaxError() throws {
        let error = try rejection("[{\"$canonical_identifier\":\"a\"},\n {\"$canonical_identifier\": oops}]")
        #expect(error.code == .invalidJSON)
        #expect(error.line == 2)
        #expect(error.column == 28)
        #expect(error.item == nil)
    }

    @Test(
        "a syntax error says what is wrong and where",
        arguments: [
            ("{\"a\": tru}", 1, 10, "unexpected character"),
            ("[1 2]", 1, 4, "unexpected character"),
            ("{\"a\": 01}", 1, 8, "unexpected character"),
            ("{\"a\": \"x\\q\"}", 1, 10, "unexpected character"),
            ("{\"a\": \"é\u{01}\"}", 1, 9, "a control character in a string must be escaped"),
            ("{\"a\": [1,\n  2", 2, 4, "the input ends before the JSON is complete"),
            ("{\"a\": 1} {}", 1, 10, "unexpected character"),
            (String(repeating: "[", count: 600), 1, 513, "too many nested arrays or objects (at most 512)"),
        ])
    func syntaxErrorReasons(text: String, line: Int, column: Int, reason: String) throws {
        let error = try rejection(text)
        #expect(error.code == .invalidJSON)
        #expect(error.message.contains(": \(reason);"), "\(error.message)")
        #expect(error.line == line)
        #expect(error.column == column)
    }

    @Test("bytes that are not UTF-8 inside a string are named as such")
    func notUTF8() throws {
        var bytes = Data("{\"canonicalIdentifier\": \"a\u{FF}".utf8)
        bytes.append(contentsOf: [0xC3, 0x28])
        bytes.append(contentsOf: Array("\"}".utf8))
        let input = BranchUniversalObjectReader.decode(bytes, path: "x.json", format: .automatic)
        let error = try #require(input.rejections.first)
        #expect(error.message.contains("not valid UTF-8"), "\(error.message)")
        #expect(error.column == 28)
    }

    @Test("truncated JSON is a syntax error at the end")
    func truncated() throws {
        let error = try rejection("[{\"$canonical_identifier\":\"a\"},\n {\"$canon")
        #expect(error.code == .invalidJSON)
        #expect(error.line == 2)
    }

    @Test("in JSON Lines a broken line rejects that line only")
    func brokenLine() {
        let input = decode(
            "{\"$canonical_identifier\":\"a\"}\n{\"$canonical_identifier\":\n{\"canonicalIdentifier\":\"c\"}\n",
            name: "x.ndjson")
        #expect(input.objects.map(\.object.canonicalIdentifier) == ["a", "c"])
        #expect(input.rejections.map(\.line) == [2])
        #expect(input.rejections.map(\.code) == [.invalidJSON])
    }

    @Test("values that are not objects are rejected by position")
    func notObjects() {
        let input = decode(#"[{"$canonical_identifier":"a"}, 5, "x"]"#)
        #expect(input.objects.count == 1)
        #expect(input.rejections.map(\.item) == [2, 3])
        #expect(input.rejections.map(\.code) == [.notAnObject, .notAnObject])
        #expect(decode("42").rejections.map(\.code) == [.notAnObject])
    }

    @Test("an empty JSON file is an error; an empty JSON Lines file holds no items")
    func emptyInput() {
        #expect(decode("").rejections.map(\.code) == [.invalidJSON])
        #expect(decode("  \n ").rejections.map(\.code) == [.invalidJSON])
        let lines = decode("\n\n", name: "empty.jsonl")
        #expect(lines.objects.isEmpty && lines.rejections.isEmpty)
    }

    @Test("folders are walked for .json, .jsonl and .ndjson files, sorted, hidden ones skipped")
    func walking() throws {
        _ = try TemporaryFolder.write("b.json", "{}")
        _ = try TemporaryFolder.write("sub/a.jsonl", "")
        _ = try TemporaryFolder.write("sub/c.ndjson", "")
        _ = try TemporaryFolder.write("notes.txt", "")
        _ = try TemporaryFolder.write(".hidden/d.json", "{}")
        let files = try BranchUniversalObjectReader.inputFiles(for: [TemporaryFolder.path, "-"])
        let names = files.map {
            $0.hasPrefix(TemporaryFolder.path) ? String($0.dropFirst(TemporaryFolder.path.count)) : $0
        }
        #expect(names.sorted() == ["-", "/b.json", "/sub/a.jsonl", "/sub/c.ndjson"])
        #expect(throws: SearchlightError.self) {
            try BranchUniversalObjectReader.inputFiles(for: [TemporaryFolder.path + "/missing.json"])
        }
    }

    @Test("the Branch dictionary written back reads as the same object")
    func dictionaryRoundTrip() throws {
        let original = try decodeOne(
            #"{"canonicalIdentifier":"x","title":"T","keywords":["k"],"expirationDate":"1750000000000","publiclyIndex":"YES","contentMetadata":{"price":3,"customMetadata":{"c":1.5}}}"#
        )
        let data = try JSONEncoder().encode(original.branchDictionary)
        let again = try decodeOne(String(decoding: data, as: UTF8.self))
        #expect(again == original)
        #expect(original.branchDictionary["$exp_date"] == .integer(1_750_000_000_000))
    }
}

@Suite("Durations", .temporaryFolder)
struct DurationTests {
    @Test(
        "durations are written 90s, 30m, 12h, 31d or none",
        arguments: [
            ("90s", Duration?.some(.seconds(90))), ("30m", .seconds(1800)), ("12h", .seconds(43_200)),
            ("31d", .seconds(2_678_400)), ("none", nil),
        ])
    func parse(text: String, expected: Duration?) throws {
        #expect(try TimeToLive.parse(text) == expected)
        #expect(TimeToLive.format(expected) == text)
    }

    @Test("other durations are rejected with a hint", arguments: ["", "5", "d", "5w", "-3d", "1.5h"])
    func invalid(text: String) {
        #expect(throws: SearchlightError.self) { try TimeToLive.parse(text) }
    }
}
