import FoundationEssentials
import Glibc

extension BranchUniversalObjectReader {
    /// Reads a JSON Lines file in pieces of about `piece` lines, handing each to `body` as it is
    /// decoded, so that a file of any size is read in bounded memory: a line longer than an item
    /// may be (``ItemLimits/itemBytes``) is rejected alone, counted but never held whole. A second thread reads and
    /// decodes at most two pieces ahead of `body`, which runs on the calling thread. Item
    /// positions and line numbers run on across pieces. An unreadable file gives one piece
    /// holding its rejection. If `body` throws, reading stops and the error is rethrown.
    ///
    /// With a `filter`, lines it recognizes as stored unchanged are not decoded: the piece carries
    /// them for the writer to confirm (``IndexTransaction/index(_:options:strict:clientState:now:)``).
    ///
    /// ```swift
    /// try BranchUniversalObjectReader.readLines(path: "items.jsonl") { piece in store(piece) }
    /// ```
    public static func readLines<E: Error>(
        path: String, piece: Int = 2_000, recognizing filter: LineFilter? = nil,
        _ body: (DecodedInput) throws(E) -> Void
    ) throws(E) {
        let pieces = WorkQueue<DecodedInput>(capacity: 2)
        do throws(SearchlightError) {
            try OSThread.start(name: "index-reader") {
                decodeLines(path: path, piece: piece, filter: filter) { pieces.put($0) }
                pieces.finish()
            }
        } catch {
            // No thread to spare: decode on this one.
            var failure: E?
            decodeLines(path: path, piece: piece, filter: filter) { piece in
                do throws(E) {
                    try body(piece)
                    return true
                } catch {
                    failure = error
                    return false
                }
            }
            if let failure { throw failure }
            return
        }
        defer {
            pieces.cancel()
            pieces.waitUntilFinished()
        }
        while let next = pieces.take() { try body(next) }
    }

    /// Reads and decodes one input (a file, or `-` for standard input) in pieces of about `piece`
    /// items, calling `emit` with each; `emit` returns false to stop. JSON Lines are read as
    /// ``readLines(path:piece:recognizing:_:)`` reads them; a JSON document is read twice, first
    /// to check its syntax (a broken document gives one rejection and no items), then for its
    /// items. Standard input longer than ``Indexer/directInputLimit`` is first copied to a
    /// temporary file. Memory stays bounded whatever the input: a few pieces, and one item's
    /// bytes.
    static func read(path: String, piece: Int, filter: LineFilter? = nil, emit: (DecodedInput) -> Bool) {
        guard path == "-" else {
            let source = FileSystem.absolutePath(path)
            return readFile(path: path, piece: piece, filter: filter) { piece in
                var piece = piece
                piece.source = source
                return emit(piece)
            }
        }
        readStandardInput(piece: piece, filter: filter, emit: emit)
    }

    /// Reads a file; see ``read(path:piece:filter:emit:)``.
    private static func readFile(path: String, piece: Int, filter: LineFilter?, emit: (DecodedInput) -> Bool) {
        if isLines(path: path) {
            decodeLines(path: path, piece: piece, filter: filter, emit: emit)
        } else if FileSystem.size(atPath: path) <= Indexer.directInputLimit,
            let data = try? Data(contentsOf: URL(fileURLWithPath: path))
        {
            // A small document is read once, in memory.
            _ = emit(decode(data, path: path))
        } else {
            decodeDocument(path: path, name: path, piece: piece, filter: filter, emit: emit)
        }
    }

    /// Reads a JSON document (or JSON Lines in a file not named so) in pieces; see
    /// ``read(path:piece:filter:emit:)``. `name` names the input in errors.
    static func decodeDocument(
        path: String, name: String, piece: Int, filter: LineFilter?, emit: (DecodedInput) -> Bool
    ) {
        func reject(_ error: SearchlightError) {
            var input = DecodedInput(path: name)
            input.rejections.append(error)
            _ = emit(input)
        }
        // First pass: the structure, and every item's syntax.
        var checked = DocumentReading(path: name)
        var discarded = DecodedInput(path: name)
        guard
            let checking = splitItems(
                path: path,
                { item in
                    checked.add(item, into: &discarded)
                    discarded = DecodedInput(path: name)
                    return checked.failure == nil
                })
        else { return reject(unreadable(name)) }
        if checking.linesFollow { return decodeLines(path: path, name: name, piece: piece, filter: filter, emit: emit) }
        if let failure = checked.failure ?? checking.failure { return reject(syntaxError(failure, path: name)) }
        if checking.shape == .empty { return reject(emptyInput(path: name)) }
        // Second pass: the items, in pieces.
        var reading = DocumentReading(path: name)
        var input = DecodedInput(path: name)
        var stopped = false
        let complete = splitItems(path: path) { item in
            reading.add(item, into: &input)
            if input.objects.count + input.rejections.count >= piece {
                stopped = !emit(input)
                input = DecodedInput(path: name)
            }
            return !stopped
        }
        guard !stopped else { return }
        if complete == nil { input.rejections.append(unreadable(name)) }
        _ = emit(input)
    }

    /// Splits the file at `path` into its items, in blocks of 1 MiB, handing each item to `body`
    /// until it returns false. Returns the splitter as it ended (finished when the file was read
    /// to its end), or nil when the file cannot be read.
    private static func splitItems(path: String, _ body: (JSONDocumentSplitter.Item) -> Bool)
        -> JSONDocumentSplitter?
    {
        guard let handle = FileReader(path: path) else { return nil }
        var splitter = JSONDocumentSplitter()
        var going = true
        func take(_ item: JSONDocumentSplitter.Item) { if going { going = body(item) } }
        while going, splitter.failure == nil, !splitter.linesFollow {
            let block: Data
            do throws(SearchlightError) {
                block = try handle.read(upToCount: 1 << 20)
            } catch {
                return nil
            }
            if block.isEmpty {
                splitter.finish(emit: take)
                break
            }
            block.withUnsafeBytes { splitter.feed($0, emit: take) }
        }
        return splitter
    }

    /// The rejection of an input that cannot be read, for the error `errno` holds.
    static func unreadable(_ name: String) -> SearchlightError {
        SearchlightError(.unreadableInput, "Cannot read the file: \(FileSystem.lastError())", path: name)
    }

    /// Reads and decodes the file, calling `emit` with each piece; `emit` returns false to stop.
    /// `name` names the input in errors (the path by default).
    static func decodeLines(
        path: String, name: String? = nil, piece: Int, filter: LineFilter?, emit: (DecodedInput) -> Bool
    ) {
        let name = name ?? path
        // A line's digest covers the file it is in: the same line in another file is another
        // item's source.
        let seed = filter?.seed(source: name == "-" ? "" : FileSystem.absolutePath(name))
        guard let handle = FileReader(path: path) else {
            var input = DecodedInput(path: name)
            input.rejections.append(unreadable(name))
            _ = emit(input)
            return
        }
        var input = DecodedInput(path: name)
        // Bytes read but not yet split into lines. Lines are found with memchr and hashed from
        // raw bytes: an unchanged file is mostly this loop.
        var pending: [UInt8] = []
        var item = 0
        var lineNumber = 0
        var lines: [(range: Range<Int>, number: Int)] = []
        var linesInPiece = 0
        var atStart = true
        /// The bytes so far of a line longer than an item may be, which is being skipped.
        var skipping: Int?
        /// Decodes the lines gathered so far into `input`, but those the filter recognizes.
        func decodeGathered() {
            guard !lines.isEmpty else { return }
            let digests = filter.map { filter in
                pending.withUnsafeBytes { raw in
                    lines.map { filter.digest(UnsafeRawBufferPointer(rebasing: raw[$0.range]), from: seed!) }
                }
            }
            let known = digests.map { filter?.known($0) ?? [] } ?? []
            for (index, line) in lines.enumerated() {
                let bytes = Data(pending[line.range])
                if index < known.count, known[index] != 0, let digest = digests?[index] {
                    item += 1
                    input.knownLines.append(
                        .init(digest: digest, document: known[index], bytes: bytes, item: item, line: line.number))
                } else {
                    decodeLine(bytes[...], number: line.number, item: &item, into: &input, lineDigest: digests?[index])
                }
            }
            lines.removeAll(keepingCapacity: true)
        }
        /// Gathers the complete lines of `pending`; returns where the incomplete rest begins, or
        /// nil when the consumer has gone.
        func gatherLines() -> Int? {
            var start = 0
            while true {
                let newline: Int? = pending.withUnsafeBytes { raw in
                    guard start < raw.count, let base = raw.baseAddress,
                        let found = memchr(base + start, Int32(UInt8(ascii: "\n")), raw.count - start)
                    else { return nil }
                    return base.distance(to: UnsafeRawPointer(found))
                }
                guard let newline else { return start }
                lineNumber += 1
                if pending[start..<newline].contains(where: { !isSpace($0) }) {
                    lines.append((start..<newline, lineNumber))
                }
                start = newline + 1
                linesInPiece += 1
                if linesInPiece >= piece {
                    decodeGathered()
                    guard emit(input) else { return nil }
                    input = DecodedInput(path: name)
                    linesInPiece = 0
                }
            }
        }
        while true {
            let block: Data
            do throws(SearchlightError) {
                block = try handle.read(upToCount: 1 << 20)
            } catch {
                var error = error
                error.path = name
                input.rejections.append(error)
                break
            }
            if block.isEmpty { break }
            if let skipped = skipping {
                // The rest of an oversized line is counted, never kept.
                guard let newline = block.firstIndex(of: UInt8(ascii: "\n")) else {
                    skipping = skipped + block.count
                    continue
                }
                skipping = nil
                lineNumber += 1
                item += 1
                input.rejections.append(
                    oversized(
                        bytes: skipped + block.distance(from: block.startIndex, to: newline), path: name,
                        item: item, line: lineNumber))
                pending.append(contentsOf: block[block.index(after: newline)...])
            } else {
                pending.append(contentsOf: block)
            }
            if atStart, pending.count >= 3 {
                if pending.starts(with: [0xEF, 0xBB, 0xBF]) { pending.removeFirst(3) }
                atStart = false
            }
            guard let rest = gatherLines() else { return }
            // The gathered lines are ranges of `pending`: decode them before it moves on.
            decodeGathered()
            pending.removeSubrange(0..<rest)
            if pending.count > ItemLimits.itemBytes {
                skipping = pending.count
                pending.removeAll(keepingCapacity: false)
            }
        }
        if let skipped = skipping {
            lineNumber += 1
            item += 1
            input.rejections.append(oversized(bytes: skipped, path: name, item: item, line: lineNumber))
        } else if pending.contains(where: { !isSpace($0) }) {
            lineNumber += 1
            lines.append((0..<pending.count, lineNumber))
            decodeGathered()
        }
        _ = emit(input)
    }

}
