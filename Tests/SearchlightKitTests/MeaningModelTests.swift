import Foundation
import Glibc
import SearchlightKit
import Synchronization
import Testing

/// The reference runtime's figures for the same texts (Benchmarks/reference_embedding.py fixtures):
/// Hugging Face's tokenizers for the ids, ONNX Runtime on the model's int8 export for the vectors.
private struct Reference: Decodable {
    struct Case: Decodable {
        let text: String
        let ids: [Int]
        let vector: [Float]
    }
    let cases: [Case]

    static func load() throws -> Reference {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("fixtures/embedding/reference.json")
        return try JSONDecoder().decode(Reference.self, from: Data(contentsOf: file))
    }
}

private func cosine(_ a: [Float], _ b: [Float]) -> Float {
    zip(a, b).reduce(0) { $0 + $1.0 * $1.1 }
        / ((a.reduce(0) { $0 + $1 * $1 }).squareRoot() * (b.reduce(0) { $0 + $1 * $1 }).squareRoot())
}

@Suite("The meaning model: installed, checked, and equal to its reference runtime")
struct MeaningModelTests {
    @Test("the tokenizer gives the reference tokenizer's ids: accents, CJK, punctuation, unknown words, truncation")
    func tokenizerMatchesReference() throws {
        let model = try MeaningModel.installed()
        for reference in try Reference.load().cases {
            #expect(model.tokens(reference.text) == reference.ids, "\(reference.text.prefix(40))")
        }
    }

    @Test("the encoder's vectors point where the reference runtime's do, with float products and with int8")
    func vectorsMatchReference() throws {
        let cases = try Reference.load().cases
        // The reference runs the model's int8 export, quantized otherwise than Searchlight's int8.
        // With float products they agree to a cosine of 0.999 on average, 0.998 on every text with
        // words, 0.996 on the empty one. With int8 (the query, key and value products bf16), the
        // thresholds below hold on every processor, whose int8 arithmetic is the same.
        let float = try MeaningModel(
            folder: MeaningModel.installed().folder, verifiedFilesRecord: nil, precision: .float)
        for (model, mean, least) in [(float, Float(0.999), Float(0.998)), (try MeaningModel.installed(), 0.995, 0.985)]
        {
            let vectors = try model.vectors(cases.map(\.text))
            var agreement: [Float] = []
            for (reference, vector) in zip(cases, vectors) {
                #expect(vector.count == MeaningModel.dimensions)
                #expect(abs(cosine(vector, vector) - 1) < 1e-4)
                agreement.append(cosine(vector, reference.vector))
                #expect(agreement.last! > min(least, 0.995), "text: \(reference.text.prefix(40))")
            }
            #expect(agreement.reduce(0, +) / Float(agreement.count) > mean)
            // One text alone gives the vector it gets among others.
            let alone = try model.vectors([cases[1].text])[0]
            #expect(cosine(alone, vectors[1]) > 0.99999)
        }
    }

    @Test(
        "int8 products give every text a vector within a cosine of 0.99 of the float products' (CACM's articles and questions)"
    )
    func int8MatchesFloat() throws {
        let collection = try Collection()
        // Every eighth article (its title and abstract, as an item's meaning text is made), and every question.
        let texts =
            stride(from: 0, to: collection.documents.count, by: 8).map {
                let document = collection.documents[$0]
                return [document.title, document.text].filter { !$0.isEmpty }.joined(separator: "\n")
            } + collection.questions.map(\.text)
        let int8 = try MeaningModel.installed()
        let float = try MeaningModel(folder: int8.folder, verifiedFilesRecord: nil, precision: .float)
        let agreement = zip(try int8.vectors(texts), try float.vectors(texts)).map { cosine($0, $1) }
        let (least, mean) = (agreement.min()!, agreement.reduce(0, +) / Float(agreement.count))
        #expect(least >= 0.99, "the least cosine: \(least), of \(texts[agreement.firstIndex(of: least)!].prefix(60))")
        // 0.9940 at least and 0.9985 on average, on every processor (weights of 7 bits; with 8,
        // which only a processor with VNNI sums without saturating, 0.9990 and 0.9995).
        #expect(mean >= 0.997, "the mean cosine: \(mean)")
        print("int8 against float, \(texts.count) texts: least cosine \(least), mean \(mean)")
    }

    @Test(
        "threads embed with one model at once, and queries asked at once in batches, each text getting its own vector")
    func threadsAtOnce() throws {
        let model = try MeaningModel.installed()
        let texts = [
            "a pot to boil water for tea", "Copper kettle, 1.7 litres", "Mountain bike with 21 gears",
            "where to sit and read", "deep linking opens the browser instead of the app",
            String(repeating: "a long description of a walking shoe ", count: 20), "café crème", "",
        ]
        let alone = try texts.map { try model.vectors([$0])[0] }
        // Eight threads, each its text ten times, and one whole batch beside them: each call in
        // scratch space of its own, while the others run.
        let found = try atOnce(texts.count + 1) { index in
            index == texts.count
                ? try model.vectors(texts) : try (0..<10).map { _ in try model.vectors([texts[index]])[0] }
        }
        for (index, text) in texts.enumerated() {
            #expect(found[index]?.allSatisfy { $0 == alone[index] } == true, "text: \(text.prefix(40))")
            // In a batch, a text's vector is the one it has alone, bit for bit.
            #expect(found[texts.count]?[index] == alone[index], "text: \(text.prefix(40))")
        }
        // Queries asked at once are embedded in batches, each answered with its own text's vector.
        let answers = try atOnce(texts.count) { index in try (0..<10).map { _ in try model.queryVector(texts[index]) } }
        for (index, text) in texts.enumerated() {
            #expect(answers[index]?.count == 10)
            #expect(answers[index]?.allSatisfy { $0 == alone[index] } == true, "text: \(text.prefix(40))")
        }
    }

    @Test("a text's vector is the one it has alone wherever its tokens start in a call, before and past 64 rows")
    func sameAtEveryOffset() throws {
        let model = try MeaningModel.installed()
        // Short texts, whose products are made for their count of rows, and a long one, past the
        // 64 rows such a product takes. A float product rounds a row by where it lies among the
        // product's rows, and int8 quantization after it can carry that to the fourth decimal of
        // a cosine: each text's own rows make its query, key and value product (docs/design.md).
        let texts = [
            "café crème", "Copper kettle, 1.7 litres", "where to sit and read",
            String(repeating: "a long description of a walking shoe ", count: 10),
        ]
        for text in texts {
            let alone = try model.vectors([text], threads: 1)[0]
            for count in 0..<72 {
                let before = String(repeating: "a ", count: count)  // count + 2 tokens
                #expect(
                    try model.vectors([before, text], threads: 1)[1] == alone,
                    "\(text.prefix(30)) after \(count + 2) tokens")
            }
        }
    }

    @Test("embedding in the background gives the vectors of the foreground, and leaves the caller's thread as it was")
    func inBackground() throws {
        let model = try MeaningModel.installed()
        let texts = ["a pot to boil water for tea", "Copper kettle, 1.7 litres", "", "café crème"]
        for threads in [1, 2] {
            #expect(
                try model.vectors(texts, threads: threads, inBackground: true)
                    == model.vectors(texts, threads: threads))
        }
        // The model ran on threads of its own at the idle priority; the caller's is the one it had.
        #expect(sched_getscheduler(0) == SCHED_OTHER)
    }

    /// `body` of 0 to `count - 1`, on threads at once; what each gave, by its number.
    private func atOnce<Value: Sendable>(_ count: Int, _ body: @Sendable (Int) throws -> Value) throws -> [Int: Value] {
        let results = Mutex<[Int: Value]>([:])
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: count) { index in
            do {
                let value = try body(index)
                results.withLock { $0[index] = value }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        return results.withLock { $0 }
    }

    @Test("meaning ranks a paraphrase above an unrelated text")
    func meaningRanks() throws {
        let model = try MeaningModel.installed()
        let vectors = try model.vectors([
            "a pot to boil water for tea", "Copper kettle, 1.7 litres", "Mountain bike with 21 gears",
        ])
        #expect(cosine(vectors[0], vectors[1]) > cosine(vectors[0], vectors[2]) + 0.2)
    }

    @Test("what the model reads: words of its vocabulary or of the index, in Latin script; made-up words left out")
    func readText() throws {
        let model = try MeaningModel.installed()
        var asked: [[String]] = []
        func read(_ text: String, held: Set<String> = [], corrected: [String: String] = [:]) throws -> String? {
            try model.readText(of: text) { words in
                asked.append(words)
                return words.map { held.contains($0) ? .held : corrected[$0].map { .corrected($0) } ?? .unknown }
            }
        }
        // Read whole: returned as typed, and the index is not asked.
        #expect(try read("A pot to heat water?") == "A pot to heat water?")
        #expect(asked.isEmpty)
        // Made-up words: neither the vocabulary's nor the index's.
        #expect(try read("blorft") == nil)
        #expect(try read("zxqvpl 2024 !") == nil)
        #expect(asked == [["blorft"], ["zxqvpl"]])
        // Beside a known word, an unknown one is read as typed, without asking the index.
        #expect(try read("blorft kettle") == "blorft kettle")
        #expect(asked.last == ["blorft"])
        // A typo is read as the word of the index it stands for.
        #expect(
            try read("Where is the spotlght index?", corrected: ["spotlght": "spotlight"])
                == "where is the spotlight index ?")
        #expect(try read("spotlght", corrected: ["spotlght": "spotlight"]) == "spotlight")
        // The index's word is read, accents and case folded as the tokenizer folds them.
        #expect(try read("Frobnicätor", held: ["frobnicator"]) == "Frobnicätor")
        // A script the model does not read is left out, without asking the index.
        asked.removeAll()
        #expect(try read("深度链接") == nil)
        #expect(try read("чайник") == nil)
        #expect(try read("kettle 深度链接") == "kettle")
        #expect(asked.isEmpty)
        #expect(try read("") == nil)
    }

    /// A new folder holding a copy of each of the installed model's files `names`.
    private func modelFolder(copying names: [String]) throws -> String {
        let installed = try MeaningModel.installed()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("model-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in names {
            try FileManager.default.copyItem(atPath: installed.folder + "/" + name, toPath: folder + "/" + name)
        }
        return folder
    }

    @Test("a model file that is not the pinned one is refused, naming the file and how to install the model")
    func wrongFileRefused() throws {
        let folder = try modelFolder(copying: ["vocab.txt"])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("not the model".utf8).write(to: URL(fileURLWithPath: folder + "/model.safetensors"))
        let error = #expect(throws: SearchlightError.self) { try MeaningModel(folder: folder) }
        #expect(error?.code == .meaningUnavailable)
        #expect(error?.message.contains("\(folder)/model.safetensors is not the pinned file") == true)
        #expect(error?.message.contains("scripts/install-dependencies") == true)
    }

    @Test("the files found to be the pinned ones are recorded, and a file changed since is hashed and refused")
    func verifiedFilesRecorded() throws {
        let folder = try modelFolder(copying: ["model.safetensors", "vocab.txt"])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let record = folder + "/cache/searchlight/verified-model-files"
        _ = try MeaningModel(folder: folder, verifiedFilesRecord: record)
        // One line a file: its device, inode, size and times, and the digest it was found to have
        // (and one each for the int8 form, the vocabulary's table and the tensors' table:
        // `int8FormKept`, `vocabularyTableKept`, `tensorTableKept`).
        let lines = try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 5)
        for (name, digest) in [
            ("model.safetensors", "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"),
            ("vocab.txt", "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"),
        ] {
            let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + name)
            let inode = try #require(attributes[.systemFileNumber] as? NSNumber).uint64Value
            let size = try #require(attributes[.size] as? NSNumber).uint64Value
            #expect(
                lines.contains {
                    let fields = $0.split(whereSeparator: { $0 == " " || $0 == "\t" })
                    return fields.count == 8 && fields[1] == "\(inode)" && fields[2] == "\(size)" && fields[7] == digest
                }, "\(name): \(lines)")
        }
        // Loaded again, the record holds the same; a byte changed in place is a file never seen.
        _ = try MeaningModel(folder: folder, verifiedFilesRecord: record)
        #expect(try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n") == lines)
        let weights = try FileHandle(forUpdating: URL(fileURLWithPath: folder + "/model.safetensors"))
        try weights.seek(toOffset: 4_000_000)
        let byte = try #require(try weights.read(upToCount: 1)?.first)
        try weights.seek(toOffset: 4_000_000)
        try weights.write(contentsOf: Data([byte ^ 1]))
        try weights.close()
        let error = #expect(throws: SearchlightError.self) {
            try MeaningModel(folder: folder, verifiedFilesRecord: record)
        }
        #expect(error?.message.contains("model.safetensors is not the pinned file") == true)
    }

    @Test(
        "the int8 form made at the first load is kept and recorded, read by the next loads for the same vectors, and made anew once changed"
    )
    func int8FormKept() throws {
        let folder = try modelFolder(copying: ["model.safetensors", "vocab.txt"])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let record = folder + "/cache/searchlight/verified-model-files"
        let kept = folder + "/cache/searchlight/" + MeaningModel.name + ".int8"
        let texts = ["a pot to boil water for tea", "Copper kettle, 1.7 litres", ""]
        let made = try MeaningModel(folder: folder, verifiedFilesRecord: record).vectors(texts)
        let inode = { () throws -> UInt64 in
            try #require(try FileManager.default.attributesOfItem(atPath: kept)[.systemFileNumber] as? NSNumber)
                .uint64Value
        }
        let first = try inode()
        // The record's line for it: its identity, then its digest and the model file's it was made from.
        let line = try #require(
            try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n").first {
                $0.hasSuffix(" int8 of 53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db")
            })
        let digest = line.split(separator: "\t")[1].prefix(64)
        #expect(digest.count == 64 && digest.allSatisfy { $0.isHexDigit })
        // The next load reads it in place (an encoder that quantized would keep its form anew).
        #expect(try MeaningModel(folder: folder, verifiedFilesRecord: record).vectors(texts) == made)
        #expect(try inode() == first)
        // A byte changed in it: a file the record does not hold, left unread, and kept anew.
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: kept))
        try file.seek(toOffset: 100)
        let byte = try #require(try file.read(upToCount: 1)?.first)
        try file.seek(toOffset: 100)
        try file.write(contentsOf: Data([byte ^ 0x40]))
        try file.close()
        #expect(try MeaningModel(folder: folder, verifiedFilesRecord: record).vectors(texts) == made)
        #expect(try inode() != first)
        #expect(try MeaningModel(folder: folder, verifiedFilesRecord: record).vectors(texts) == made)
        // Float products neither read nor keep it.
        try FileManager.default.removeItem(atPath: kept)
        _ = try MeaningModel(folder: folder, verifiedFilesRecord: record, precision: .float)
        #expect(!FileManager.default.fileExists(atPath: kept))
    }

    @Test(
        "the vocabulary's table made at the first load is kept and recorded, read by the next loads for the same ids, and made anew when changed or damaged"
    )
    func vocabularyTableKept() throws {
        let folder = try modelFolder(copying: ["model.safetensors", "vocab.txt"])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let record = folder + "/cache/searchlight/verified-model-files"
        let kept = KeptFile(path: folder + "/cache/searchlight/" + MeaningModel.name + ".vocabulary", record: record)
        let cases = try Reference.load().cases
        let expected = cases.map(\.ids)
        func ids(_ model: MeaningModel) -> [[Int]] { cases.map { model.tokens($0.text) } }
        #expect(ids(try MeaningModel(folder: folder, verifiedFilesRecord: record)) == expected)
        let first = try kept.identity()
        // The record's line for it: its identity, then its digest and the vocabulary file's.
        let suffix = " vocabulary table of 07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"
        #expect(try kept.isRecorded(as: suffix))
        // The next load reads it in place: the same ids, nothing written.
        #expect(ids(try MeaningModel(folder: folder, verifiedFilesRecord: record)) == expected)
        #expect(try kept.identity().inode == first.inode)
        // A byte changed in it: a file the record does not hold, left unread and made anew.
        try kept.damage(at: 4_000, with: [0x55])
        #expect(ids(try MeaningModel(folder: folder, verifiedFilesRecord: record)) == expected)
        let second = try kept.identity()
        #expect(second.inode != first.inode)
        // Damaged and yet recorded as the table (a record written by hand): a line start past the
        // text's end is found, the table never read past it, and made anew.
        try kept.damage(at: 24 + 4 * 5, with: [0xFF, 0xFF, 0xFF, 0x7F])
        try kept.forgeRecord(as: suffix)
        #expect(ids(try MeaningModel(folder: folder, verifiedFilesRecord: record)) == expected)
        let third = try kept.identity()
        #expect(third.inode != second.inode)
        // Every slot taken (each naming the first line), so that a piece it lacks would be looked
        // for without end: made anew too.
        let lines = 30_522
        try kept.damage(
            at: UInt64(24 + 4 * (lines + 1)), with: Array(repeating: [1, 0, 0, 0], count: 65_536).flatMap { $0 })
        try kept.forgeRecord(as: suffix)
        #expect(ids(try MeaningModel(folder: folder, verifiedFilesRecord: record)) == expected)
        #expect(try kept.identity().inode != third.inode)
        #expect(ids(try MeaningModel(folder: folder, verifiedFilesRecord: record)) == expected)
    }

    @Test(
        "the table of the model file's tensors made at the first load is kept and recorded, read by the next loads for the same vectors, and made anew when changed or damaged"
    )
    func tensorTableKept() throws {
        let folder = try modelFolder(copying: ["model.safetensors", "vocab.txt"])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let record = folder + "/cache/searchlight/verified-model-files"
        let kept = KeptFile(path: folder + "/cache/searchlight/" + MeaningModel.name + ".tensors", record: record)
        let texts = ["a pot to boil water for tea", "Copper kettle, 1.7 litres", ""]
        let made = try MeaningModel(folder: folder, verifiedFilesRecord: record).vectors(texts)
        let first = try kept.identity()
        // The record's line for it: its identity, then its digest and the model file's.
        let suffix = " tensor table of 53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
        #expect(try kept.isRecorded(as: suffix))
        // The next load reads it in place: the same vectors, nothing written.
        #expect(try MeaningModel(folder: folder, verifiedFilesRecord: record).vectors(texts) == made)
        #expect(try kept.identity().inode == first.inode)
        // A byte of the model file's length changed: a file the record does not hold, left unread
        // and made anew.
        try kept.damage(at: 8, with: [0x55])
        #expect(try MeaningModel(folder: folder, verifiedFilesRecord: record).vectors(texts) == made)
        let second = try kept.identity()
        #expect(second.inode != first.inode)
        // Damaged and yet recorded as the table (a record written by hand): the first tensor's
        // floats placed past the model file's end, or one byte out of line, are found, never read,
        // and the table made anew.
        for offset: [UInt8] in [[0, 0, 0, 0, 0, 0, 0, 0x40], [0x01]] {
            let before = try kept.identity().inode
            try kept.damage(at: 32, with: offset)
            try kept.forgeRecord(as: suffix)
            #expect(try MeaningModel(folder: folder, verifiedFilesRecord: record).vectors(texts) == made)
            #expect(try kept.identity().inode != before)
        }
        #expect(try MeaningModel(folder: folder, verifiedFilesRecord: record).vectors(texts) == made)
    }

    @Test("without the model, asking for it says where it was looked for and how to install it")
    func missingModel() throws {
        let error = #expect(throws: SearchlightError.self) { try MeaningModel(folder: "/nonexistent/model") }
        #expect(error?.code == .meaningUnavailable)
        #expect(error?.message.contains("/nonexistent/model/model.safetensors") == true)
    }
}

/// A file the model keeps in the user's cache beside the `record` of verified files.
private struct KeptFile {
    let path: String
    let record: String

    /// Its inode, and its identity as the record writes it.
    func identity() throws -> (inode: UInt64, line: String) {
        var info = stat()
        #expect(stat(path, &info) == 0)
        let line = [
            UInt64(info.st_dev), UInt64(info.st_ino), UInt64(info.st_size), UInt64(info.st_mtim.tv_sec),
            UInt64(info.st_mtim.tv_nsec), UInt64(info.st_ctim.tv_sec), UInt64(info.st_ctim.tv_nsec),
        ].map(String.init).joined(separator: " ")
        return (UInt64(info.st_ino), line)
    }

    /// Whether the record holds it as it is, its digest followed by `suffix`.
    func isRecorded(as suffix: String) throws -> Bool {
        let line = try identity().line
        return try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n").contains {
            $0.hasPrefix(line + "\t") && $0.hasSuffix(suffix)
        }
    }

    /// Writes `bytes` over it at `offset`.
    func damage(at offset: UInt64, with bytes: [UInt8]) throws {
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try file.seek(toOffset: offset)
        try file.write(contentsOf: Data(bytes))
        try file.close()
    }

    /// Records it as it is, whatever it holds, as a record written by hand would.
    func forgeRecord(as suffix: String) throws {
        let forged = try identity().line + "\t" + String(repeating: "0", count: 64) + suffix + "\n"
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: record))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(forged.utf8))
        try handle.close()
    }
}
