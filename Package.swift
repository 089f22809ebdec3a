// swift-tools-version: 6.0
import PackageDescription

let upcomingFeatures: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

// `SEARCHLIGHT_LAYERS=kit` declares only the shim, SearchlightKit, their tests and the fuzzers, with
// the one package they depend on: the sanitizer and fuzzing stages of `scripts/test` build and run
// only those, without the service's dependency tree.
let kitOnly = Context.environment["SEARCHLIGHT_LAYERS"] == "kit"

let package = Package(
    name: "Searchlight",
    products: [
        .executable(name: "searchlight", targets: ["searchlight"]),
        .executable(name: "searchlight-server", targets: ["searchlight-server"]),
        .library(name: "SearchlightKit", targets: ["SearchlightKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0")
    ]
        + (kitOnly
            ? []
            : [
                .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
                .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
                .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
                .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
                .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
                .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
                .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
                // `swift package generate-documentation --target SearchlightKit`: the Kit's DocC catalog.
                .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
            ]),
    targets: [
        .target(
            name: "CXapian",
            cxxSettings: [
                .define("XAPIAN_NO_DEPRECATION_WARNINGS")
            ],
            linkerSettings: [.linkedLibrary("xapian"), .linkedLibrary("cld2")]
        ),
        .target(
            name: "CEncoder",
            // oneDNN and libcrypto are loaded when a model is (libraries.cpp); dlopen and
            // the vector exponentials (libmvec) are glibc's.
            linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("mvec")]
        ),
        .target(
            name: "SearchlightKit",
            dependencies: ["CXapian", "CEncoder", .product(name: "CoreMetrics", package: "swift-metrics")],
            swiftSettings: upcomingFeatures
        ),
        .target(
            name: "SearchlightServer",
            dependencies: [
                "SearchlightKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The service's OpenAPI document, served at GET /openapi.json.
            resources: [.embedInCode("openapi.json")],
            swiftSettings: upcomingFeatures
        ),
        .target(
            name: "SearchlightCommandLine",
            dependencies: [
                "SearchlightKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: upcomingFeatures
        ),
        .executableTarget(
            name: "searchlight",
            dependencies: [
                "SearchlightKit",
                "SearchlightCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: upcomingFeatures
        ),
        .executableTarget(
            name: "searchlight-server",
            dependencies: [
                "SearchlightKit",
                "SearchlightServer",
                "SearchlightCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: upcomingFeatures
        ),
        .target(
            name: "FuzzHarness",
            path: "Fuzz/Harness",
            swiftSettings: upcomingFeatures
        ),
        .executableTarget(
            name: "fuzz-decoder",
            dependencies: ["SearchlightKit", "FuzzHarness"],
            path: "Fuzz/Decoder",
            swiftSettings: upcomingFeatures
        ),
        .executableTarget(
            name: "fuzz-query",
            dependencies: ["SearchlightKit", "FuzzHarness"],
            path: "Fuzz/Query",
            swiftSettings: upcomingFeatures
        ),
        .executableTarget(
            name: "argument-parser-floor",
            dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Benchmarks/Sources/argument-parser-floor",
            swiftSettings: upcomingFeatures
        ),
        .executableTarget(
            name: "searchlight-bench",
            dependencies: ["SearchlightKit"],
            path: "Benchmarks/Sources/searchlight-bench",
            swiftSettings: upcomingFeatures
        ),
        .target(
            name: "SearchlightTesting",
            path: "Tests/Support",
            swiftSettings: upcomingFeatures
        ),
        .testTarget(
            name: "CXapianTests",
            dependencies: ["CXapian", "SearchlightTesting"],
            swiftSettings: upcomingFeatures
        ),
        .testTarget(
            name: "SearchlightKitTests",
            // CXapian for the one table of an item's fields, which ItemFieldTests checks the Kit against.
            dependencies: ["SearchlightKit", "CXapian", "SearchlightTesting"],
            swiftSettings: upcomingFeatures
        ),
        .testTarget(
            name: "SearchlightServerTests",
            dependencies: [
                "SearchlightServer",
                "SearchlightTesting",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: upcomingFeatures
        ),
        .testTarget(
            name: "searchlightTests",
            dependencies: ["searchlight", "searchlight-server", "SearchlightTesting"],
            swiftSettings: upcomingFeatures
        ),
    ],
    cxxLanguageStandard: .cxx17
)

if kitOnly {
    let kit: Set = [
        "CXapian", "CEncoder", "SearchlightKit", "FuzzHarness", "fuzz-decoder", "fuzz-query", "SearchlightTesting",
        "CXapianTests",
        "SearchlightKitTests",
    ]
    package.targets.removeAll { !kit.contains($0.name) }
    package.products.removeAll { $0.name != "SearchlightKit" }
}
