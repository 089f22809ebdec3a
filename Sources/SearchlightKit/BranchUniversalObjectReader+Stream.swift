import Foundation

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
        let pieces = PieceQueue(capacity: 2)
        let reader = Thread {
            decodeLines(path: path, piece: piece, filter: filter) { pieces.put($0) }
            pieces.finish()
        }
        reader.start()
        defer {
            pieces.cancel()
            pieces.waitUntilFinished()
        }
        while let next = pieces.take() { try body(next) }
    }

    /// Reads and decodes the file, calling `emit` with each piece; `emit` returns false to stop.
    private static func decodeLines(
        path: String, piece: Int, filter: LineFilter?, emit: (DecodedInput) -> Bool
    ) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            var input = DecodedInput(path: path)
            input.rejections.append(SearchlightError(.unreadableInput, "Cannot read the file", path: path))
            _ = emit(input)
            return
        }
        defer { try? handle.close() }
        var input = DecodedInput(path: path)
        var pending = Data()
        var item = 0
        var lineNumber = 0
        var lines: [(bytes: Data.SubSequence, number: Int)] = []
        var linesInPiece = 0
        var atStart = true
        /// Decodes the lines gathered so far into `input`, but those the filter recognizes.
        func decodeGathered() {
            let digests = filter.map { filter in lines.map { filter.digest($0.bytes) } }
            let known = digests.map { filter?.known($0) ?? [] } ?? []
            for (index, line) in lines.enumerated() {
                if index < known.count, known[index], let digest = digests?[index] {
                    item += 1
                    input.knownLines.append(
                        .init(digest: digest, bytes: Data(line.bytes), item: item, line: line.number))
                } else {
                    decodeLine(line.bytes, number: line.number, item: &item, into: &input, lineDigest: digests?[index])
                }
            }
            lines.removeAll(keepingCapacity: true)
        }
        while true {
            let block: Data
            do {
                block = try handle.read(upToCount: 1 << 20) ?? Data()
            } catch {
                input.rejections.append(
                    SearchlightError(
                        .unreadableInput, "Cannot read the file: \(error.localizedDescription)", path: path))
                break
            }
            if block.isEmpty { break }
            pending.append(block)
            if atStart, pending.count >= 3 {
                if pending.starts(with: [0xEF, 0xBB, 0xBF]) { pending.removeFirst(3) }
                atStart = false
            }
            var start = pending.startIndex
            while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                lineNumber += 1
                let line = pending[start..<newline]
                if line.contains(where: { !isSpace($0) }) { lines.append((line, lineNumber)) }
                start = pending.index(after: newline)
                linesInPiece += 1
                if linesInPiece >= piece {
                    decodeGathered()
                    guard emit(input) else { return }
                    input = DecodedInput(path: path)
                    linesInPiece = 0
                }
            }
            // The gathered lines are slices of `pending`: decode them before it moves on.
            decodeGathered()
            pending.removeSubrange(pending.startIndex..<start)
        }
        if !pending.isEmpty {
            lineNumber += 1
            if pending.contains(where: { !isSpace($0) }) { lines.append((pending[...], lineNumber)) }
            decodeGathered()
        }
        _ = emit(input)
    }

}
