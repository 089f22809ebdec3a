public import FoundationEssentials

extension JSONEncoder {
    /// The one configuration Searchlight writes JSON with: keys sorted, slashes unescaped, and
    /// optionally indented. Stored items, exports, the CLI's `--json` and the HTTP service use it.
    public static func searchlight(pretty: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        if pretty { encoder.outputFormatting.insert(.prettyPrinted) }
        return encoder
    }
}
