import Foundation
public import Testing

/// A fresh folder for each test case, removed when it ends: the one temporary-folder helper of
/// every test target.
///
/// ```swift
/// @Suite(.temporaryFolder)
/// struct IndexTests {
///     @Test func stores() throws {
///         let index = try SearchableIndex(path: TemporaryFolder.path + "/index", access: .readWrite(…))
///     }
/// }
/// ```
public struct TemporaryFolderTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    /// One folder per test case (each argument of a parameterized test has its own), none for a
    /// suite as a whole.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let path = NSTemporaryDirectory() + "searchlight-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await TemporaryFolder.$current.withValue(path) { try await function() }
    }
}

extension Trait where Self == TemporaryFolderTrait {
    /// Gives each test case a fresh temporary folder: ``TemporaryFolder/path``.
    public static var temporaryFolder: Self { Self() }
}

/// The folder of the test case running now.
public enum TemporaryFolder {
    @TaskLocal static var current: String?

    /// The folder; only inside a test (or suite) with the `.temporaryFolder` trait.
    public static var path: String {
        guard let current else { preconditionFailure("Give the test or its suite the .temporaryFolder trait") }
        return current
    }

    /// A new, empty folder inside it, for a test that needs several.
    public static func subfolder(_ prefix: String = "folder") throws -> String {
        let folder = path + "/" + prefix + "-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Writes `text` to `name` inside `folder` (the test's folder by default), creating folders on
    /// the way; returns the file's path.
    @discardableResult
    public static func write(_ name: String, _ text: String, in folder: String? = nil) throws -> String {
        let file = (folder ?? path) + "/" + name
        try FileManager.default.createDirectory(
            atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }
}
