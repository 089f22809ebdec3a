import Foundation
import SearchlightTesting
import Testing

/// A Swift package that adds SearchlightKit as a user does: by URL and version, from a Git
/// repository holding this tree tagged with a release.
@Suite("SearchlightKit as a dependency by URL and version", .temporaryFolder)
struct LibraryDependencyTests {
    @Test("a package that depends on SearchlightKit from: a tag builds, indexes and searches")
    func dependByVersion() throws {
        let folder = try TemporaryFolder.subfolder("dependency")
        let repository = folder + "/searchlight"
        // The tree as it stands (tracked files and new ones not ignored), committed and tagged.
        let publish = try shell(
            """
            set -e
            mkdir '\(repository)'
            cd '\(repositoryRoot)'
            git ls-files -z --cached --others --exclude-standard |
                tar --null --files-from=- --ignore-failed-read -cf - | tar -xf - -C '\(repository)'
            cd '\(repository)'
            git init -q
            git add -A
            git -c user.name=Test -c user.email=test@example.com commit -q -m release
            git tag 0.1.0
            """)
        try #require(publish.status == 0, "\(publish.output)")

        let consumer = folder + "/consumer"
        try FileManager.default.createDirectory(
            atPath: consumer + "/Sources/consumer", withIntermediateDirectories: true)
        try """
        // swift-tools-version: 6.0
        import PackageDescription

        let package = Package(
            name: "consumer",
            dependencies: [.package(url: "file://\(repository)", from: "0.1.0")],
            targets: [
                .executableTarget(
                    name: "consumer", dependencies: [.product(name: "SearchlightKit", package: "searchlight")])
            ]
        )
        """.write(toFile: consumer + "/Package.swift", atomically: true, encoding: .utf8)
        try """
        import SearchlightKit

        let index = try SearchableIndex(
            path: CommandLine.arguments[1], access: .readWrite(lockTimeout: .seconds(10)))
        var buo = BranchUniversalObject(canonicalIdentifier: "recipe/42")
        buo.title = "Tarte Tatin"
        buo.contentDescription = "Caramelised apples under a crisp pastry."
        buo.keywords = ["dessert", "apples"]
        try index.indexSearchableItems([SearchableItem(object: buo, domainIdentifier: "com.example.cuisine")])
        let page = try index.search(SearchQuery("tarte", domainIdentifier: "com.example.cuisine"))
        for result in page.results { print(result.title ?? "", result.score) }
        """.write(toFile: consumer + "/Sources/consumer/main.swift", atomically: true, encoding: .utf8)

        let build = try shell("cd '\(consumer)' && swift build --scratch-path .build 2>&1", timeout: 900)
        try #require(build.status == 0, "swift build of a package depending on SearchlightKit: \(build.output)")
        #expect(!build.output.contains("unsafe build flags"), "\(build.output)")
        let run = try shell("'\(consumer)/.build/debug/consumer' '\(folder)/index'")
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output == "Tarte Tatin 100\n")
    }
}

/// Runs a shell command line to completion: its status, and stdout and stderr together.
private func shell(_ command: String, timeout: Double = 120) throws -> (status: Int32, output: String) {
    let run = try runProgram(
        "/bin/bash", ["-c", command + " 2>&1"], environment: ProcessInfo.processInfo.environment, timeout: timeout)
    return (run.status, run.stdout)
}
