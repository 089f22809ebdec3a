extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }

    /// The duration in seconds, as a `TimeInterval` (0 when negative).
    var timeInterval: Double { max(0, seconds) }

    var secondsText: String { seconds == seconds.rounded() ? "\(Int(seconds))s" : "\(seconds)s" }
}
