// swift-tools-version: 6.0
import PackageDescription

let upcomingFeatures: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Searchlight",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "searchlight", targets: ["searchlight"]),
        .library(name: "SearchlightKit", targets: ["SearchlightKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")
    ],
    targets: [
        .target(
            name: "CXapian",
            cxxSettings: [.define("XAPIAN_NO_DEPRECATION_WARNINGS")],
            linkerSettings: [.linkedLibrary("xapian")]
        ),
        .target(
            name: "SearchlightKit",
            dependencies: ["CXapian"],
            swiftSettings: upcomingFeatures
        ),
        .executableTarget(
            name: "searchlight",
            dependencies: [
                "SearchlightKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: upcomingFeatures
        ),
        .executableTarget(
            name: "fuzz-decoder",
            dependencies: ["SearchlightKit"],
            path: "Fuzz/Decoder",
            swiftSettings: upcomingFeatures
        ),
        .executableTarget(
            name: "fuzz-query",
            dependencies: ["SearchlightKit"],
            path: "Fuzz/Query",
            swiftSettings: upcomingFeatures
        ),
        .testTarget(
            name: "CXapianTests",
            dependencies: ["CXapian"],
            swiftSettings: upcomingFeatures
        ),
        .testTarget(
            name: "SearchlightKitTests",
            dependencies: ["SearchlightKit"],
            swiftSettings: upcomingFeatures
        ),
        .testTarget(
            name: "searchlightTests",
            dependencies: ["searchlight"],
            swiftSettings: upcomingFeatures
        ),
    ],
    cxxLanguageStandard: .cxx17
)
