import Foundation

extension BranchUniversalObjectReader {
    /// Reads a JSON Lines file in pieces of about `piece` lines, handing each to `body` as it is
    /// decoded, so that a file of any size is read in bounded memory. A second thread reads and
    /// decodes at most two pieces ahead of `body`, which runs on the calling thread. Item
    /// positions and line numbers run on across pieces. An unreadable file gives one piece
    /// holding its rejection. If `body` throws, reading stops and the error is rethrown.
    ///
    /// ```swift
    /// try BranchUniversalObjectReader.readLines(path: "items.jsonl") { piece in store(piece) }
    /// ```
    public static func readLines<E: Error>(
        path: String, piece: Int = 2_000, _ body: (DecodedInput) throws(E) -> Void
    ) throws(E) {
        let pieces = PieceQueue(capacity: 2)
        let reader = Thread {
            decodeLines(path: path, piece: piece) { pieces.put($0) }
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
    private static func decodeLines(path: String, piece: Int, emit: (DecodedInput) -> Bool) {
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
        var lines = 0
        var atStart = true
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
                decodeLine(pending[start..<newline], number: lineNumber, item: &item, into: &input)
                start = pending.index(after: newline)
                lines += 1
                if lines >= piece {
                    guard emit(input) else { return }
                    input = DecodedInput(path: path)
                    lines = 0
                }
            }
            pending.removeSubrange(pending.startIndex..<start)
        }
        if !pending.isEmpty {
            lineNumber += 1
            decodeLine(pending[...], number: lineNumber, item: &item, into: &input)
        }
        _ = emit(input)
    }

}
