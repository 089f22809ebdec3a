import Foundation
public import Logging

/// Writes each log entry as one JSON object on one line of standard error, for log shippers
/// (`serve --log-format json`): `time` (ISO 8601, UTC, milliseconds), `level`, `label`, `message`,
/// and the entry's metadata as fields of their own. Numbers stay numbers, and nested metadata
/// stays nested.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String

    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [String: Any] = [:]
        let provided = metadataProvider?.get() ?? [:]
        for (key, value) in metadata.merging(provided, uniquingKeysWith: { $1 }).merging(
            event.metadata ?? [:], uniquingKeysWith: { $1 })
        {
            fields[key] = Self.json(value)
        }
        fields["time"] = Self.time.format(Date())
        fields["level"] = event.level.rawValue
        fields["label"] = label
        fields["message"] = "\(event.message)"
        guard
            var line = try? JSONSerialization.data(
                withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return }
        line.append(UInt8(ascii: "\n"))
        FileHandle.standardError.write(line)
    }

    /// ISO 8601 in UTC with milliseconds: `2026-11-24T02:29:42.534Z`.
    private static let time = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    private static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let text):
            return text
        case .stringConvertible(let convertible):
            switch convertible {
            case let number as Int: return number
            case let number as Double: return number.isFinite ? number : "\(number)"
            case let flag as Bool: return flag
            default: return convertible.description
            }
        case .array(let values):
            return values.map(json)
        case .dictionary(let entries):
            return entries.mapValues(json)
        }
    }
}
