import FoundationEssentials

/// The Branch iOS SDK's own Spotlight identifier for an item: its long Branch link,
/// `https://bnc.lt/a/<branch_key>?feature=spotlight&source=ios&data=<base64(JSON(BUO dictionary))>`.
/// The SDK indexes private items under that link and removes them by rebuilding it, so scripts and
/// logs from such apps carry these links where Searchlight expects a canonical identifier.
///
/// A text is taken for a Branch link when it is an `http` or `https` URL and either its host is
/// one of Branch's (`bnc.lt`, `app.link`, `test-app.link`, or a subdomain of the last two) or it
/// has a `data` parameter and a path `/a/KEY`. Anything else is an identifier as it stands.
public enum BranchLink {
    /// Branch's link hosts; a subdomain of any of them (an app's `example.app.link`) counts too.
    static let hosts = ["bnc.lt", "app.link", "test-app.link"]

    /// The canonical identifier `text` names: the identifier inside a Branch link's `data`, or
    /// `text` itself when it is not a Branch link.
    ///
    /// - Throws: ``SearchlightError/Code/removalWithoutIdentifier`` (1013) for a Branch link whose
    ///   `data` is missing, is not base64 of a JSON object, or holds no canonical identifier.
    public static func canonicalIdentifier(in text: String) throws(SearchlightError) -> String {
        guard case .link(let data) = parse(text) else { return text }
        guard let data else {
            throw failure("has no data parameter holding the item's Branch dictionary")
        }
        guard let bytes = decodeBase64(data) else {
            throw failure("has a data parameter that is not base64 (standard alphabet, padding optional)")
        }
        guard let object = try? JSONDecoder().decode([String: JSONValue].self, from: bytes) else {
            throw failure("has data that does not decode to a JSON object (the Branch dictionary)")
        }
        for key in ["$canonical_identifier", "canonicalIdentifier"] {
            if case .string(let identifier) = object[key], !identifier.isEmpty { return identifier }
        }
        throw failure("has data without a canonical identifier ($canonical_identifier or canonicalIdentifier)")
    }

    private enum Parsed {
        case identifier
        /// A Branch link, with its `data` parameter (percent-decoded) when it has one.
        case link(data: String?)
    }

    private static func parse(_ text: String) -> Parsed {
        guard text.hasPrefix("https://") || text.hasPrefix("http://"),
            let components = URLComponents(string: text), let host = components.host?.lowercased()
        else { return .identifier }
        // Percent-decoded; a `+` stays a plus (base64's), and `=` padding may be left unescaped.
        let data = components.queryItems?.first(where: { $0.name == "data" }).map { $0.value ?? "" }
        let branchHost = hosts.contains { host == $0 || host.hasSuffix("." + $0) }
        let segments = components.path.split(separator: "/", omittingEmptySubsequences: false)
        let keyPath = segments.count == 3 && segments[0].isEmpty && segments[1] == "a" && !segments[2].isEmpty
        return branchHost || (keyPath && data != nil) ? .link(data: data) : .identifier
    }

    /// Standard base64, padded or not; spaces (a `+` that went through form decoding) read as `+`.
    /// Also a client state's (``ClientStateUpdate/init(domainIdentifier:state:expected:base64:names:)``).
    static func decodeBase64(_ text: String) -> Data? {
        var base64 = text.replacing(" ", with: "+")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    /// The link itself is left out: the caller passed it, and a removal report lists it beside.
    private static func failure(_ problem: String) -> SearchlightError {
        SearchlightError(
            .removalWithoutIdentifier, "This Branch link \(problem); pass the item's canonical identifier instead")
    }
}
