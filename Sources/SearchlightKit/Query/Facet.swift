/// Counts over every match of a search that the caller may see, for one attribute
/// (``SearchQuery/facets``): how many matches hold each text, or the least and greatest number or
/// date and how many fall in each of a few ranges.
public struct Facet: Sendable, Hashable, Encodable {
    /// How many matches hold one text.
    public struct ValueCount: Sendable, Hashable, Encodable {
        public var value: String
        public var count: Int
    }

    /// How many matches hold a number from `from` up to, not including, `to`.
    public struct Bucket: Sendable, Hashable, Encodable {
        public var from: Double
        public var to: Double
        public var count: Int
    }

    /// The attribute's name.
    public var name: String
    public var kind: ItemAttribute.Kind
    /// For a text, each value and its count, most first (at most ``maximumValues``). Values that
    /// differ only in case count as one, shown as most matches write it.
    public var values: [ValueCount] = []
    /// For a number or a date, the least and the greatest; `nil` when no match holds one.
    public var minimum: Double?
    public var maximum: Double?
    /// For a number, how many matches fall in each of a few ranges of round bounds.
    public var buckets: [Bucket] = []

    /// The most values of a text a facet lists.
    public static let maximumValues = 100

    /// The facet of `attribute` from the index's counts: each distinct value and how many matches
    /// hold it.
    init(_ attribute: ItemAttribute, texts: [(String, Int)], numbers: [(Double, Int)]) {
        name = attribute.name
        kind = attribute.kind
        if attribute.kind == .text {
            values = Self.merged(texts)
            return
        }
        minimum = numbers.map(\.0).min()
        maximum = numbers.map(\.0).max()
        if attribute.kind == .number, let minimum, let maximum { buckets = Self.buckets(numbers, minimum, maximum) }
    }

    /// Texts that differ only in case as one, written as most of them are (the first in Unicode
    /// order among equals); most first.
    private static func merged(_ texts: [(String, Int)]) -> [ValueCount] {
        var groups: [String: (count: Int, spelling: String, spellingCount: Int)] = [:]
        for (text, count) in texts {
            let key = text.lowercased()
            var group = groups[key] ?? (0, text, 0)
            group.count += count
            if count > group.spellingCount || (count == group.spellingCount && text < group.spelling) {
                (group.spelling, group.spellingCount) = (text, count)
            }
            groups[key] = group
        }
        let ordered = groups.values.sorted { ($0.count, $1.spelling) > ($1.count, $0.spelling) }
        return ordered.prefix(maximumValues).map { ValueCount(value: $0.spelling, count: $0.count) }
    }

    /// About five ranges of one round width (1, 2, 2.5 or 5 times a power of ten) covering
    /// `minimum` to `maximum`.
    private static func buckets(_ numbers: [(Double, Int)], _ minimum: Double, _ maximum: Double) -> [Bucket] {
        let width = roundWidth(above: (maximum - minimum) / 5)
        // Bounds are whole multiples of the width, computed in its own decimals: 19 × 0.2 is 3.8,
        // not 3.8000000000000003.
        var scale = 1.0
        while (width * scale).rounded() != width * scale, scale < 1e15 { scale *= 10 }
        let step = (width * scale).rounded()
        let firstStep = (minimum / width).rounded(.down)
        let bound = { (index: Int) in (firstStep + Double(index)) * step / scale }
        let count = max(1, Int(((maximum - bound(0)) / width).rounded(.down)) + 1)
        var buckets = (0..<count).map { index in Bucket(from: bound(index), to: bound(index + 1), count: 0) }
        let first = bound(0)
        for (number, matches) in numbers {
            buckets[min(count - 1, max(0, Int(((number - first) / width).rounded(.down))))].count += matches
        }
        return buckets
    }

    /// The least round width at least `span` (1 for none).
    private static func roundWidth(above span: Double) -> Double {
        guard span > 0, span.isFinite else { return 1 }
        var power = 1.0
        while power * 10 <= span { power *= 10 }
        while power > span { power /= 10 }
        return [1, 2, 2.5, 5, 10].map { $0 * power }.first { $0 >= span } ?? power * 10
    }

    enum CodingKeys: String, CodingKey {
        case kind, values, min, max, buckets
    }

    /// A text's facet writes its values; a number's its least, greatest and ranges; a date's its
    /// earliest and latest.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        if kind == .text {
            try container.encode(values, forKey: .values)
            return
        }
        try container.encode(minimum, forKey: .min)
        try container.encode(maximum, forKey: .max)
        if kind == .number { try container.encode(buckets, forKey: .buckets) }
    }
}
