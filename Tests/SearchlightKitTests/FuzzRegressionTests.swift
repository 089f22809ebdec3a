import Foundation
import SearchlightKit
import SearchlightTesting
import Testing

/// Inputs kept from fuzzing (Fuzz/regressions/): each must give its documented outcome, not a crash.
@Suite("Fuzzing regressions", .temporaryFolder)
struct FuzzRegressionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/regressions")

    static func inputs(_ target: String) -> [String] {
        let folder = root.appendingPathComponent(target).path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.sorted().map { folder + "/" + $0 }
    }

    @Test("the BUO reader reads or rejects each kept input", arguments: inputs("decoder"))
    func decoder(path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        for format in [BranchUniversalObjectReader.Format.automatic, .lines] {
            let input = BranchUniversalObjectReader.decode(data, path: path, format: format)
            #expect(input.rejections.allSatisfy { !$0.message.isEmpty })
        }
    }

    @Test(
        "each kept query returns results or a query error, and its reading reads as written", arguments: inputs("query")
    )
    func query(path: String) throws {
        let test = try catalogue()
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
        do {
            let page = try test.index.search(SearchQuery(text), now: now)
            // How a query was read is itself a query read as written.
            if let readAs = page.readAs, let again = try? test.index.search(SearchQuery(readAs), now: now) {
                #expect(again.readAs == nil, "\(text) read as \(readAs), read again as \(again.readAs ?? "")")
            }
        } catch {
            #expect(error.code == .invalidQuery, "\(error)")
        }
    }

    @Test("there are kept inputs for both targets")
    func present() {
        #expect(!Self.inputs("decoder").isEmpty)
        #expect(!Self.inputs("query").isEmpty)
    }
}
