import Glibc
import SearchlightCommandLine

/// The controlling terminal (`/dev/tty`), in raw mode for a full-screen view: keys are read one by
/// one and drawn on the alternate screen, whatever standard input and output are (`search -i |
/// xargs …` prints its choice on stdout). ``restore()`` gives the terminal back as it was.
final class Terminal {
    /// One key read.
    enum Key: Equatable {
        case text(String), backspace, clearLine, up, down, enter, escape, interrupt, other
    }

    let descriptor: Int32
    private var saved = termios()
    private var restored = false

    /// Opens `/dev/tty` and puts it in raw mode.
    ///
    /// - Throws: ``ExitStatus`` when there is no terminal to draw on.
    init() throws {
        descriptor = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard descriptor >= 0, tcgetattr(descriptor, &saved) == 0 else {
            if descriptor >= 0 { close(descriptor) }
            Output.warn("searchlight: --interactive needs a terminal (/dev/tty)")
            throw ExitStatus.failure
        }
        var raw = saved
        cfmakeraw(&raw)
        // Output keeps turning "\n" into a new line at the left margin.
        raw.c_oflag |= tcflag_t(OPOST | ONLCR)
        // TCSANOW: keys typed before the view starts are kept, not flushed.
        tcsetattr(descriptor, TCSANOW, &raw)
        write("\u{1B}[?1049h\u{1B}[H\u{1B}[2J")
    }

    deinit { restore() }

    /// Leaves the alternate screen and gives back the terminal's settings; safe to call twice.
    func restore() {
        guard !restored else { return }
        restored = true
        write("\u{1B}[?25h\u{1B}[?1049l")
        tcsetattr(descriptor, TCSAFLUSH, &saved)
        close(descriptor)
    }

    /// The terminal's columns and rows (80×24 when it cannot say).
    var size: (columns: Int, rows: Int) {
        var window = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 else {
            return (80, 24)
        }
        return (Int(window.ws_col), Int(window.ws_row))
    }

    func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes {
                Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset)
            }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }

    /// Whether a byte arrives within `milliseconds`.
    func ready(within milliseconds: Int32) -> Bool {
        var polled = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&polled, 1, milliseconds) > 0
    }

    /// Reads the keys of the bytes waiting (call when ``ready(within:)``).
    func readKeys() -> [Key] {
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = read(descriptor, &buffer, buffer.count)
        guard count > 0 else { return [] }
        var bytes = Array(buffer[0..<count])
        // A lone escape is the Escape key; one followed at once by more is a key's sequence.
        if bytes == [0x1B], ready(within: 25) {
            let more = read(descriptor, &buffer, buffer.count)
            if more > 0 { bytes += buffer[0..<more] }
        }
        return Self.keys(in: bytes)
    }

    /// The keys a run of bytes holds.
    static func keys(in bytes: [UInt8]) -> [Key] {
        var keys: [Key] = []
        var index = 0
        var text: [UInt8] = []
        func flushText() {
            if !text.isEmpty { keys.append(.text(String(decoding: text, as: UTF8.self))) }
            text = []
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case 0x1B:
                flushText()
                if index < bytes.count, bytes[index] == UInt8(ascii: "[") || bytes[index] == UInt8(ascii: "O") {
                    // CSI or SS3: up to the final byte (0x40–0x7E).
                    var end = index + 1
                    while end < bytes.count, !(0x40...0x7E).contains(bytes[end]) { end += 1 }
                    let final = end < bytes.count ? bytes[end] : 0
                    keys.append(final == UInt8(ascii: "A") ? .up : final == UInt8(ascii: "B") ? .down : .other)
                    index = end + 1
                } else {
                    keys.append(.escape)
                }
            case 0x03: flushText(); keys.append(.interrupt)
            case 0x0D, 0x0A: flushText(); keys.append(.enter)
            case 0x7F, 0x08: flushText(); keys.append(.backspace)
            case 0x15: flushText(); keys.append(.clearLine)
            case 0x10: flushText(); keys.append(.up)
            case 0x0E: flushText(); keys.append(.down)
            case 0x00..<0x20: flushText(); keys.append(.other)
            default: text.append(byte)
            }
        }
        flushText()
        return keys
    }

    /// The columns `text` takes: two for wide (East Asian) characters, none for combining marks.
    static func width(_ text: some StringProtocol) -> Int {
        text.unicodeScalars.reduce(0) { $0 + width(of: $1) }
    }

    static func width(of scalar: Unicode.Scalar) -> Int {
        switch scalar.value {
        case 0x0300...0x036F, 0x200B...0x200F, 0xFE00...0xFE0F: 0
        case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            2
        default: 1
        }
    }

    /// `text` cut to at most `columns` columns, an ellipsis marking a cut.
    static func fit(_ text: String, _ columns: Int) -> String {
        guard width(text) > columns else { return text }
        var result = ""
        var used = 0
        for character in text {
            let needed = width(String(character))
            if used + needed > columns - 1 { break }
            result.append(character)
            used += needed
        }
        return result + "…"
    }
}
