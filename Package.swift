// swift-tools-version: 6.1
import PackageDescription

/// Test targets are compiled without optimization, in a release build too (`swift build -c
/// release --build-tests`, which CI runs once for the tests, the artifacts and the
/// benchmarks): the code under test stays optimized, and the tests' own code, mostly
/// `#expect` expansions, compiles in half the time (CastDeviceTests: 34 s of CPU, not 71).
let testSettings: [SwiftSetting] = [.unsafeFlags(["-Onone"], .when(configuration: .release))]

let package = Package(
    name: "castsim",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "castsim", targets: ["castsim"]),
        .library(name: "CastSimulator", targets: ["CastSimulator"]),
        .library(name: "CastSimulatorTesting", targets: ["CastSimulatorTesting"]),
        .library(name: "CastScenario", targets: ["CastScenario"]),
        .library(name: "CastDevice", targets: ["CastDevice"]),
        .library(name: "CastWire", targets: ["CastWire"]),
        .library(name: "CastCredentials", targets: ["CastCredentials"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", exact: "2.37.6"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", exact: "1.16.2"),
        .package(url: "https://github.com/ordo-one/benchmark.git", exact: "1.38.1", traits: ["MallocInterposer"]),
        // The control API and dashboard. Without its default ConfigurationSupport trait:
        // castsim reads its own flags, and swift-configuration would only add build time.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", exact: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", exact: "2.13.0"),
        // Hummingbird's header types, named directly where a response sets a header of its own.
        .package(url: "https://github.com/apple/swift-http-types.git", exact: "1.8.0"),
        // The HTTP parts Hummingbird's pipeline carries, for the control API's handler of
        // malformed requests (Hummingbird's own dependency, at the version it resolves to).
        .package(url: "https://github.com/apple/swift-nio-extras.git", exact: "1.35.2"),
    ],
    targets: [
        // Wire format: CastMessage and the device-auth messages (protobuf, read and written
        // by hand), length framing, namespaces, JSON values.
        .target(
            name: "CastWire",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The simulated device: a deterministic state machine, no I/O, no clock.
        .target(
            name: "CastDevice",
            dependencies: ["CastWire"]
        ),
        // Scenario files: model, validation, and the director that plays them out.
        .target(
            name: "CastScenario",
            dependencies: ["CastDevice", "CastWire"],
            // The scenario grammar, written once (Assets/scenario.schema.json); apps' parts are
            // added at run time.
            exclude: ["Assets"],
            plugins: [.plugin(name: "EmbedAssetsPlugin")]
        ),
        // mDNS / DNS-SD: the DNS message codec and the responder as a pure state machine, no
        // I/O (its UDP sockets are CastSimulator's), so that the fuzzing build compiles no NIO.
        .target(name: "CastDiscovery"),
        // The developer PKI (root → intermediate → device), TLS certificates, device-auth
        // signing: with the BoringSSL that NIOSSL builds for TLS (BoringSSL.swift says why),
        // no openssl.
        .target(
            name: "CastCredentials",
            dependencies: [.product(name: "NIOSSL", package: "swift-nio-ssl")]
        ),
        // Cast Streaming's media plane as pure code: RTP and RTCP, frames put together and
        // decrypted (AES-128-CTR), the receiver's feedback and its timing. Its UDP sockets are
        // CastSimulator's.
        .target(
            name: "CastStreaming",
            dependencies: [
                // The stream an OFFER negotiated and the figures the app shows: one type each.
                "CastDevice",
                // AES-128-CTR, from NIOSSL's BoringSSL.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // Runtime: NIO server, TLS, device auth, heartbeat scheduling, HTTP endpoints.
        .target(
            name: "CastSimulator",
            dependencies: [
                "CastWire",
                "CastDevice",
                "CastScenario",
                "CastCredentials",
                "CastDiscovery",
                "CastStreaming",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // The TLS handshake's end, on a relay's links to its upstream.
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // eureka_info on 8008/8443: the control API's HTTP stack.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The control API (OpenAPI), its event stream and the dashboard, on Hummingbird.
        .target(
            name: "CastControl",
            dependencies: [
                "CastSimulator", "CastScenario", "CastDevice", "CastWire",
                .product(name: "Hummingbird", package: "hummingbird"),
                // A header by a name Hummingbird has no constant for (a second Host).
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                // ControlClient (castsim ctl) speaks HTTP/1 over NIO.
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The dashboard and the OpenAPI document (Assets/), written as ordinary files and
            // carried in the binary (no bundle to install beside it).
            exclude: ["Assets"],
            plugins: [.plugin(name: "EmbedAssetsPlugin")]
        ),
        // What a Swift test needs: a device and a small Cast sender in a line or two.
        .target(
            name: "CastSimulatorTesting",
            dependencies: [
                "CastSimulator", "CastScenario", "CastDevice", "CastWire",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "castsim",
            dependencies: [
                "CastSimulator", "CastScenario", "CastDevice", "CastWire", "CastCredentials", "CastControl",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // `castsim --version` names the commit it was built from.
            plugins: [.plugin(name: "BuildCommitPlugin")]
        ),
        // Writes the git commit into BuildCommit.swift before every build (only when it changes).
        .plugin(name: "BuildCommitPlugin", capability: .buildTool()),
        // Writes EmbeddedAssets.swift: the files of a target's Assets/ folder as string constants.
        .plugin(name: "EmbedAssetsPlugin", capability: .buildTool()),
        // Load generator for sizing a CI backend: `swift run -c release castsim-load --help`.
        .executableTarget(
            name: "castsim-load",
            dependencies: [
                // CastSimulator: the echo server takes castsim's socket options and TLS identity from it.
                // CastStreaming and CastSimulatorTesting: the streaming mode's sender (frames, and the Cast channel).
                "CastWire", "CastDevice", "CastSimulator", "CastCredentials", "CastStreaming", "CastSimulatorTesting",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // package-benchmark suites: `scripts/bench.sh` (run), `scripts/bench.sh check|update`
        // (static thresholds in Benchmarks/Thresholds). The pure core's hot paths are a target
        // of their own: `swift package benchmark --target castsim-core-benchmarks` builds no
        // sockets, TLS or HTTP in release.
        .target(
            name: "CastsimBenchmarkSupport",
            dependencies: ["CastDevice", "CastWire", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/Support"
        ),
        .executableTarget(
            name: "castsim-core-benchmarks",
            dependencies: [
                "CastsimBenchmarkSupport", "CastDevice", "CastWire", "CastScenario",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/CastsimCoreBenchmarks"
        ),
        .executableTarget(
            name: "castsim-benchmarks",
            dependencies: [
                "CastsimBenchmarkSupport", "CastDevice", "CastWire", "CastScenario", "CastSimulator", "CastSimulatorTesting",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/CastsimBenchmarks"
        ),
        // The libFuzzer targets, one executable (Fuzz/castsim-fuzz/main.swift says why), built
        // by scripts/fuzz.sh with `--sanitize=fuzzer`; in a plain build it does nothing.
        .executableTarget(
            name: "castsim-fuzz",
            dependencies: ["CastWire", "CastDevice", "CastDiscovery", "CastScenario", .product(name: "NIOCore", package: "swift-nio")],
            path: "Fuzz/castsim-fuzz"
        ),
        .testTarget(
            name: "CastWireTests",
            dependencies: ["CastWire", "CastDevice", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio")],
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "CastsimLoadTests",
            dependencies: ["castsim-load", "CastDevice", "CastWire", .product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: testSettings
        ),
        .testTarget(name: "CastDiscoveryTests", dependencies: ["CastDiscovery"], swiftSettings: testSettings),
        .testTarget(name: "CastStreamingTests", dependencies: ["CastStreaming", "CastDevice"], swiftSettings: testSettings),
        .testTarget(
            name: "CastControlTests",
            dependencies: [
                "CastControl", "CastSimulator", "CastSimulatorTesting", "CastScenario", "CastDevice", "CastWire",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // Event-stream clients that stay connected.
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "CastCredentialsTests",
            dependencies: [
                "CastCredentials",
                // ChainVerifier: BoringSSL's path builder, as a second opinion.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: testSettings
        ),
        .testTarget(name: "CastDeviceTests", dependencies: ["CastDevice", "CastWire", "CastSimulatorTesting"], swiftSettings: testSettings),
        .testTarget(name: "CastScenarioTests", dependencies: ["CastScenario", "CastDevice", "CastWire", "CastSimulatorTesting"], swiftSettings: testSettings),
        .testTarget(
            name: "CastSimulatorTests",
            dependencies: [
                "CastSimulator", "CastWire", "CastDevice", "CastScenario", "CastSimulatorTesting", "CastCredentials", "CastStreaming",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: testSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
