import FoundationEssentials
import Glibc

extension BranchUniversalObjectReader {
    /// Reads a JSON Lines file in pieces of about `piece` lines, handing each to `body` as it is
    /// decoded, so that a file of any size is read in bounded memory. A second thread reads and
    /// decodes at most two pieces ahead of `body`, which runs on the calling thread. Item
    /// positions and line numbers run on across pieces. An unreadable file gives one piece
    /// holding its rejection. If `body` throws, reading stops and the error is rethrown.
    ///
    /// With a `filter`, lines it recognizes as stored unchanged are not decoded: the piece carries
    /// them for the writer to confirm (``IndexTransaction/index(_:options:strict:now:)``).
    ///
    /// ```swift
    /// try BranchUniversalObjectReader.readLines(path: "items.jsonl") { piece in store(piece) }
    /// ```
    public static func readLines<E: Error>(
        path: String, piece: Int = 2_000, recognizing filter: LineFilter? = nil,
        _ body: (DecodedInput) throws(E) -> Void
    ) throws(E) {
        let pieces = BoundedQueue<DecodedInput>(capacity: 2)
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

    /// Reads and decodes the file, calling `emit` with each piece; `emit` returns false to stop.
    static func decodeLines(
        path: String, piece: Int, filter: LineFilter?, emit: (DecodedInput) -> Bool
    ) {
        guard let handle = FileReader(path: path) else {
            var input = DecodedInput(path: path)
            input.rejections.append(
                SearchlightError(.unreadableInput, "Cannot read the file: \(FileSystem.lastError())", path: path))
            _ = emit(input)
            return
        }
        var input = DecodedInput(path: path)
        // Bytes read but not yet split into lines. Lines are found with memchr and hashed from
        // raw bytes: an unchanged file is mostly this loop.
        var pending: [UInt8] = []
        var item = 0
        var lineNumber = 0
        var lines: [(range: Range<Int>, number: Int)] = []
        var linesInPiece = 0
        var atStart = true
        /// Decodes the lines gathered so far into `input`, but those the filter recognizes.
        func decodeGathered() {
            guard !lines.isEmpty else { return }
            let digests = filter.map { filter in
                pending.withUnsafeBytes { raw in
                    lines.map { filter.digest(UnsafeRawBufferPointer(rebasing: raw[$0.range])) }
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
                    input = DecodedInput(path: path)
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
                error.path = path
                input.rejections.append(error)
                break
            }
            if block.isEmpty { break }
            pending.append(contentsOf: block)
            if atStart, pending.count >= 3 {
                if pending.starts(with: [0xEF, 0xBB, 0xBF]) { pending.removeFirst(3) }
                atStart = false
            }
            guard let rest = gatherLines() else { return }
            // The gathered lines are ranges of `pending`: decode them before it moves on.
            decodeGathered()
            pending.removeSubrange(0..<rest)
        }
        if pending.contains(where: { !isSpace($0) }) {
            lineNumber += 1
            lines.append((0..<pending.count, lineNumber))
            decodeGathered()
        }
        _ = emit(input)
    }

}
