extension SearchlightError: Codable {
    enum CodingKeys: String, CodingKey {
        case path, item, line, column, code, message
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            try container.decode(Code.self, forKey: .code),
            try container.decode(String.self, forKey: .message),
            path: try container.decodeIfPresent(String.self, forKey: .path),
            item: try container.decodeIfPresent(Int.self, forKey: .item),
            line: try container.decodeIfPresent(Int.self, forKey: .line),
            column: try container.decodeIfPresent(Int.self, forKey: .column)
        )
    }

    /// `{"path","item","line","column","code","message"}`; unknown parts are `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(path, forKey: .path)
        try container.encode(item, forKey: .item)
        try container.encode(line, forKey: .line)
        try container.encode(column, forKey: .column)
        try container.encode(code, forKey: .code)
        try container.encode(message, forKey: .message)
    }
}

extension SearchlightError.Code {
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(Int.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
