import Foundation

/// A long Branch link as the Branch iOS SDK builds it for Spotlight: the BUO dictionary as JSON,
/// standard base64, in the `data` parameter; with `percentEncoded`, `+`, `/` and `=` escaped.
public func branchLink(
    json: String, host: String = "bnc.lt", key: String = "key_live_hcnegAumkH7Kv18M8AOHhfgiohpXq5tB",
    percentEncoded: Bool = false
) -> String {
    var data = Data(json.utf8).base64EncodedString()
    if percentEncoded {
        data = data.replacingOccurrences(of: "+", with: "%2B").replacingOccurrences(of: "/", with: "%2F")
            .replacingOccurrences(of: "=", with: "%3D")
    }
    return "https://\(host)/a/\(key)?feature=spotlight&source=ios&data=\(data)"
}

/// The dictionary `-[BranchUniversalObject dictionary]` writes, keys in two different orders. Its
/// title makes the base64 hold `+`, `/` and `=` padding.
public let sdkDictionary =
    #"{"$creation_timestamp":1749990000000,"$og_title":"Deep linking ~~~ ???? >>>","#
    + #""$canonical_identifier":"article/deep-linking","$publicly_indexable":false,"$keywords":["deep linking"]}"#
public let sdkDictionaryReordered =
    #"{"$canonical_identifier":"article/deep-linking","$keywords":["deep linking"],"$publicly_indexable":false,"#
    + #""$og_title":"Deep linking ~~~ ???? >>>","$creation_timestamp":1749990000000}"#
