/// How items are prepared for the index: their domain and their lifetimes.
public struct IndexingOptions: Sendable, Hashable {
    /// The Branch documentation's limit on an item's lifetime: 31 days.
    public static let branchMaximumTimeToLive: Duration = .seconds(31 * 86_400)

    /// The domain of items that do not name their own.
    public var domainIdentifier: String
    /// Expirations later than index time plus this are clamped to it; `nil` disables the limit.
    public var maximumTimeToLive: Duration?
    /// Items without an expiration expire this long after index time; `nil`: they never expire.
    public var defaultTimeToLive: Duration?
    /// Whether an item's own `domain` and `source` keys (as `export` writes them) may choose its
    /// domain and the file it is recorded as coming from. When false, an item naming another domain
    /// is rejected, and every item is recorded as coming from its input.
    public var itemsMayChooseDomain: Bool
    /// The custom fields of the index written (``SearchableIndex/addField(_:type:)``), whose values
    /// each item is stored with: the writer sets them.
    var customFields: [ItemAttribute] = []
    /// The language of items that name none and whose text is not told: the index's default
    /// (``SearchableIndex/defaultLanguage()``), which the writer sets.
    var defaultLanguage = "en"

    public init(
        domainIdentifier: String = SearchableItem.defaultDomain,
        maximumTimeToLive: Duration? = IndexingOptions.branchMaximumTimeToLive,
        defaultTimeToLive: Duration? = nil,
        itemsMayChooseDomain: Bool = true
    ) {
        self.domainIdentifier = domainIdentifier
        self.maximumTimeToLive = maximumTimeToLive
        self.defaultTimeToLive = defaultTimeToLive
        self.itemsMayChooseDomain = itemsMayChooseDomain
    }

    /// The item to store for `object`, with the lifetimes applied at `now` (epoch ms), whether its
    /// expiration was clamped, and its line digest (0 when the clock shaped its expiration, so that
    /// the same line may not yield the same item again).
    func prepare(_ decoded: DecodedObject, now: Int64) throws(FieldError) -> (
        item: SearchableItem, clamped: Bool, lineDigest: UInt64
    ) {
        var object = decoded.object
        var domain = domainIdentifier
        if let named = decoded.domain, named != domainIdentifier {
            guard itemsMayChooseDomain else {
                throw FieldError(
                    code: .invalidField,
                    message: "\"domain\" names \(quoted(named)), but this request writes to \(quoted(domainIdentifier))"
                )
            }
            do {
                try SearchableItem.validateDomain(named)
            } catch {
                throw FieldError(code: .invalidField, message: "\"domain\": " + error.message)
            }
            domain = named
        }
        var clamped = false
        var lineDigest = decoded.lineDigest ?? 0
        if object.expirationDate == nil, let ttl = defaultTimeToLive {
            lineDigest = 0
            object.expirationDate = now.adding(ttl)
        }
        if let expiration = object.expirationDate, let ttl = maximumTimeToLive {
            let latest = now.adding(ttl)
            if expiration > latest {
                object.expirationDate = latest
                clamped = true
            }
        }
        object.contentIndexMode = object.effectiveIndexMode
        if clamped { lineDigest = 0 }
        return (SearchableItem(object: object, domainIdentifier: domain), clamped, lineDigest)
    }
}

extension Int64 {
    /// Epoch ms plus a duration, saturating.
    func adding(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        guard !milliseconds.overflow else { return .max }
        let (sum, overflow) = addingReportingOverflow(milliseconds.partialValue + attoseconds / 1_000_000_000_000_000)
        return overflow ? .max : sum
    }
}

/// Parsing and printing the durations the CLI and service accept: `90s`, `30m`, `12h`, `31d`, `none`.
public enum TimeToLive {
    /// Parses a duration; `none` gives `nil`.
    ///
    /// - Throws: ``SearchlightError/Code/invalidArgument`` for anything else.
    public static func parse(_ text: String) throws(SearchlightError) -> Duration? {
        let trimmed = text.trimmingSpaces.lowercased()
        if trimmed == "none" { return nil }
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        guard let unit = trimmed.last, let factor = units[unit], let count = Int64(trimmed.dropLast()), count >= 0,
            !count.multipliedReportingOverflow(by: factor).overflow
        else {
            throw SearchlightError(
                .invalidArgument,
                "\(quoted(text)) is not a duration; write a whole number and a unit (90s, 30m, 12h, 31d) or none")
        }
        return .seconds(count * factor)
    }

    /// `31d`, `12h`, `30m` or `90s`: the largest whole unit.
    public static func format(_ duration: Duration?) -> String {
        guard let duration else { return "none" }
        let seconds = duration.components.seconds
        for (unit, size) in [("d", Int64(86_400)), ("h", 3600), ("m", 60)] where seconds % size == 0 && seconds > 0 {
            return "\(seconds / size)\(unit)"
        }
        return "\(seconds)s"
    }
}
