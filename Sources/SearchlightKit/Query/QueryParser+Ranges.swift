/// Reading the values of the attribute fields (``ItemAttribute``): ranges of numbers and dates,
/// texts, and `near:` distances.
extension QueryParser {
    /// The least and greatest values a value written in a query stands for.
    typealias Span = (low: QueryExpression.Bound, high: QueryExpression.Bound)

    /// What `name:value` asks of a number or date attribute: `a..b`, `a..`, `..b`, `>=a`, `>a`,
    /// `<=a`, `<a`, or `a` (that number, that day or time; for `7d`, since then). Both ends are
    /// included; a date alone covers its whole day (UTC).
    func range(of attribute: ItemAttribute, _ value: String, column: Int) throws(SearchlightError) -> QueryExpression {
        let example =
            attribute.kind == .date
            ? "\(attribute.name):2026-01-01..2026-06-30, \(attribute.name):>=7d or \(attribute.name):..2026-12-31"
            : "\(attribute.name):10..30, \(attribute.name):<30 or \(attribute.name):>=4"
        func problem(_ what: String) -> SearchlightError {
            fail("has \(attribute.name):\(value), \(what); write \(example)", column: column)
        }
        func span(_ text: Substring) throws(SearchlightError) -> Span {
            guard let span = attribute.kind == .date ? Self.dateSpan(text) : Self.numberSpan(text) else {
                throw problem(
                    attribute.kind == .date
                        ? "whose '\(text)' is not a date (2026-06-30, 2026-06, 2026-06-30T12:00Z), epoch ms or an age (7d, 12h, 2w)"
                        : "whose '\(text)' is not a number")
            }
            return span
        }
        let low: QueryExpression.Bound
        let high: QueryExpression.Bound
        if let dots = value.firstRange(of: "..") {
            let from = value[..<dots.lowerBound]
            let to = value[dots.upperBound...]
            guard !from.isEmpty || !to.isEmpty else { throw problem("a range with neither end") }
            low = from.isEmpty ? .lowest : try span(from).low
            high = to.isEmpty ? .highest : try span(to).high
        } else {
            let operators = [">=", "<=", ">", "<", "="]
            let op = operators.first { value.hasPrefix($0) } ?? ""
            let bound = try span(value.dropFirst(op.count))
            switch op {
            case ">=": (low, high) = (bound.low, .highest)
            case ">": (low, high) = (past(bound.high, attribute.kind, by: 1), .highest)
            case "<=": (low, high) = (.lowest, bound.high)
            case "<": (low, high) = (.lowest, past(bound.low, attribute.kind, by: -1))
            default:
                // An age alone (`created:7d`) means since then.
                (low, high) = bound.low.fromNow && op.isEmpty ? (bound.low, .highest) : (bound.low, bound.high)
            }
        }
        if low.fromNow == high.fromNow, low.value > high.value {
            throw problem("whose low end is above its high end")
        }
        return .range(attribute, low: low, high: high)
    }

    /// The next value past `bound` upwards (`step` 1) or downwards (-1): a millisecond for a date,
    /// the next representable number for a number.
    private func past(_ bound: QueryExpression.Bound, _ kind: ItemAttribute.Kind, by step: Double)
        -> QueryExpression.Bound
    {
        var moved = bound
        moved.value = kind == .date ? bound.value + step : step > 0 ? bound.value.nextUp : bound.value.nextDown
        return moved
    }

    /// `near:LATITUDE,LONGITUDE,RADIUS` with the radius in `km`, `m` or `mi` (km when bare).
    func near(_ value: String, column: Int) throws(SearchlightError) -> QueryExpression {
        func problem(_ what: String) -> SearchlightError {
            fail("has near:\(value), \(what); write near:48.85,2.35,5km (latitude, longitude, radius)", column: column)
        }
        let parts = value.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw problem("which needs a latitude, a longitude and a radius") }
        guard let latitude = Double(parts[0].trimmingSpaces), (-90...90).contains(latitude) else {
            throw problem("whose latitude '\(parts[0])' is not a number from -90 to 90")
        }
        guard let longitude = Double(parts[1].trimmingSpaces), (-180...180).contains(longitude) else {
            throw problem("whose longitude '\(parts[1])' is not a number from -180 to 180")
        }
        let radius = parts[2].trimmingSpaces.lowercased()
        let units: [(suffix: String, metres: Double)] = [("km", 1000), ("mi", 1609.344), ("m", 1), ("", 1000)]
        let unit = units.first { radius.hasSuffix($0.suffix) }!
        guard let amount = Double(radius.dropLast(unit.suffix.count)), amount.isFinite, amount >= 0 else {
            throw problem("whose radius '\(parts[2])' is not a distance such as 5km, 800m or 3mi")
        }
        return .near(latitude: latitude, longitude: longitude, metres: amount * unit.metres)
    }

    /// A number as the SDK writes it: the one value it is.
    static func numberSpan(_ text: Substring) -> Span? {
        guard let number = Double(text), number.isFinite else { return nil }
        return (QueryExpression.Bound(value: number), QueryExpression.Bound(value: number))
    }

    /// The span of time `text` names: a year (`2026`), a month (`2026-06`) or a day (`2026-06-30`),
    /// each from its first millisecond to its last (UTC), a time (`2026-06-30T12:00`, `…:30.250Z`, `…+02:00`), epoch milliseconds, or an age
    /// counted back from the search's time (`7d`, `12h`, `2w`; `+7d` counts forward).
    static func dateSpan(_ text: Substring) -> Span? {
        if let age = text.wholeMatch(of: /([+-]?)([0-9]{1,6})([hdw])/) {
            let unit: Double = age.3 == "h" ? 3_600_000 : age.3 == "d" ? 86_400_000 : 604_800_000
            let offset = (age.1 == "+" ? 1 : -1) * Double(age.2)! * unit
            let bound = QueryExpression.Bound(value: offset, fromNow: true)
            return (bound, bound)
        }
        if text.wholeMatch(of: /-?[0-9]{5,16}/) != nil, let milliseconds = Double(text) {
            return (QueryExpression.Bound(value: milliseconds), QueryExpression.Bound(value: milliseconds))
        }
        // A year or a month: from its first millisecond to its last.
        if let period = text.wholeMatch(of: /([0-9]{4})(?:-([0-9]{2}))?/), let year = Int(period.1) {
            let month = period.2.flatMap { Int($0) }
            if let month, !(1...12).contains(month) { return nil }
            let first = daysFromCivil(year: year, month: month ?? 1, day: 1)
            let next =
                (month ?? 12) == 12
                ? daysFromCivil(year: year + 1, month: 1, day: 1) : daysFromCivil(year: year, month: month! + 1, day: 1)
            return (
                QueryExpression.Bound(value: Double(first) * 86_400_000),
                QueryExpression.Bound(value: Double(next) * 86_400_000 - 1)
            )
        }
        guard
            let date = text.wholeMatch(
                of:
                    /([0-9]{4})-([0-9]{2})-([0-9]{2})(?:[T ]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,3}))?)?(Z|[+-][0-9]{2}:?[0-9]{2})?)?/
            ),
            let year = Int(date.1), let month = Int(date.2), let day = Int(date.3), (1...12).contains(month),
            (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        let start = Double(daysFromCivil(year: year, month: month, day: day)) * 86_400_000
        guard let hourText = date.4, let minuteText = date.5 else {
            return (QueryExpression.Bound(value: start), QueryExpression.Bound(value: start + 86_399_999))
        }
        let hour = Int(hourText)!
        let minute = Int(minuteText)!
        let second = date.6.map { Int($0)! } ?? 0
        guard hour < 24, minute < 60, second < 60 else { return nil }
        let fraction = date.7.map { Double("0." + $0)! * 1000 } ?? 0
        var offset = 0.0
        if let zone = date.8, zone != "Z" {
            let digits = zone.dropFirst().filter(\.isNumber)
            let hours = Int(digits.prefix(2))!
            let minutes = Int(digits.suffix(2))!
            guard hours < 24, minutes < 60 else { return nil }
            offset = (zone.first == "-" ? -1 : 1) * Double(hours * 3_600_000 + minutes * 60_000)
        }
        let instant = start + Double(hour * 3_600_000 + minute * 60_000 + second * 1000) + fraction.rounded() - offset
        return (QueryExpression.Bound(value: instant), QueryExpression.Bound(value: instant))
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's
    /// `days_from_civil`).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
