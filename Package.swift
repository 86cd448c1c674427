// swift-tools-version: 6.1
import PackageDescription

/// Settings shared by every target: Swift 6 language mode plus the upcoming features the style notes ask for.
let strictSettings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
  name: "CallAlert",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "callalert", targets: ["callalert"]),
    .executable(name: "callalert-fuzz-decoder", targets: ["callalert-fuzz-decoder"]),
    .library(name: "CallAlertProtocol", targets: ["CallAlertProtocol"]),
    .library(name: "CallAlertBoardCore", targets: ["CallAlertBoardCore"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
    .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
    .package(url: "https://github.com/pointfreeco/swift-clocks.git", from: "1.1.1"),
    .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
    // No traits: with its two default ones, each new reading of hummingbird's manifest (a change in the
    // environment, as `make` makes) passed them to the compiler in another order, and `make demo` rebuilt
    // Hummingbird every time. Neither is used here (swift-configuration, full Foundation's form dates).
    .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
    .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
    .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
    .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
    .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
    .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
    .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
    // The tests' one process spawner (CallAlertTestSupport's SpawnedProcess); no traits: Foundation's extras
    // for Data are not used.
    .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2", traits: []),
  ],
  targets: [
    // Portable (standard library only; also compiled as Embedded Swift by `make firmware-check`).
    // On the host only, the codec's CRC-32C uses the CPU's instruction through this C shim (checked at run time).
    .target(name: "CCallAlertCRC32C"),
    .target(name: "CCallAlertEpoll"),
    .target(name: "CallAlertProtocol", dependencies: ["CCallAlertCRC32C"], swiftSettings: strictSettings),
    .target(name: "CallAlertBoardCore", dependencies: ["CallAlertProtocol"], swiftSettings: strictSettings),

    // Pure: what USB presence lights (Kuando, blink(1), Luxafor, Embrava) are sent, and the player that turns a
    // pattern's rhythm into those reports with time passed in.
    .target(name: "CallAlertLights", dependencies: ["CallAlertProtocol"], swiftSettings: strictSettings),

    // Host: real USB lights through hidapi's hidraw backend (discovery, output and feature reports).
    .systemLibrary(
      name: "CHIDAPI", pkgConfig: "hidapi-hidraw", providers: [.apt(["libhidapi-dev"]), .brew(["hidapi"])]),
    .target(name: "CallAlertHID", dependencies: ["CHIDAPI", "CallAlertLights"], swiftSettings: strictSettings),

    // Host: driving pure state machines against a clock (one long-lived deadline), and the retry backoff.
    .target(name: "CallAlertRuntime", swiftSettings: strictSettings),

    // Host: the board core on virtual hardware, and simulated wires.
    .target(
      name: "CallAlertVirtualBoard",
      dependencies: ["CallAlertBoardCore", "CallAlertProtocol", "CallAlertRuntime", "CallAlertTransport"],
      swiftSettings: strictSettings),

    // Host: YAML errors and marks read as line:column, for the parsers that read YAML (config, patterns).
    .target(
      name: "CallAlertParsing", dependencies: [.product(name: "Yams", package: "Yams")], swiftSettings: strictSettings),
    // Host: text read without Yams: the JSON reader (values with offsets, paths), offsets as line:column,
    // "did you mean" hints, input errors and text made safe to show.
    .target(name: "CallAlertText", swiftSettings: strictSettings),

    // Host: pattern files (YAML), ring cadences, RTTTL, vibration waveforms; compiled to the table format.
    .target(
      name: "CallAlertPatterns",
      dependencies: [
        "CallAlertProtocol", "CallAlertParsing", "CallAlertText", .product(name: "Yams", package: "Yams"),
      ],
      swiftSettings: strictSettings),

    // Host: byte transports (the protocol, the in-memory pair, the descriptor channel); no serial-port code.
    .target(
      name: "CallAlertTransport",
      dependencies: ["CCallAlertEpoll", .product(name: "SystemPackage", package: "swift-system")],
      swiftSettings: strictSettings),

    // Host: the serial ports (libserialport, termios, pseudo-terminals), opened into descriptor channels.
    .systemLibrary(
      name: "CSerialPort", pkgConfig: "libserialport",
      providers: [.apt(["libserialport-dev"]), .brew(["libserialport"])]),
    .target(
      name: "CallAlertSerial",
      dependencies: ["CSerialPort", "CallAlertTransport", .product(name: "SystemPackage", package: "swift-system")],
      swiftSettings: strictSettings),

    // Host: the board firmware in QEMU (mps2-an386): starting, watching and stopping qemu-system-arm.
    .target(name: "CallAlertQemu", swiftSettings: strictSettings),

    // Host: a connection to one board (handshake, commands, events, lease, reboot and unplug recovery).
    .target(
      name: "CallAlertClient",
      dependencies: ["CallAlertProtocol", "CallAlertRuntime", "CallAlertTransport", "CallAlertSerial"],
      swiftSettings: strictSettings),

    // Host: the alert engine (pure state machine), its configuration and inputs.
    .target(
      name: "CallAlertEngine", dependencies: ["CallAlertProtocol", "CallAlertLights"], swiftSettings: strictSettings),
    // Host: the values the host modules share, with no I/O and no YAML: the configuration and its sections
    // (sources, SIP accounts, HTTP, MQTT, KDE Connect, push rules), push payloads read from JSON, call records.
    .target(
      name: "CallAlertValues", dependencies: ["CallAlertEngine", "CallAlertText"], swiftSettings: strictSettings),
    // Host: the configuration file (YAML) read into those values, the quiet-hours file, anonymous-call tracking.
    .target(
      name: "CallAlertInputs",
      dependencies: [
        "CallAlertEngine", "CallAlertProtocol", "CallAlertValues", "CallAlertText", "CallAlertBridges",
        "CallAlertParsing", "CallAlertLights", .product(name: "Yams", package: "Yams"),
      ],
      swiftSettings: strictSettings),
    // Host: phone systems as sources of calls (FRITZ!Box call monitor, Asterisk AMI): parsers, trackers, clients.
    .target(
      name: "CallAlertBridges",
      dependencies: [
        "CallAlertEngine", "CallAlertValues", "CallAlertTransport",
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: strictSettings),
    // Host: MQTT (libmosquitto): calls in from a broker, shared state out, Home Assistant discovery.
    .systemLibrary(
      name: "CMosquitto", providers: [.apt(["libmosquitto-dev"]), .brew(["mosquitto"])]),
    .target(
      name: "CallAlertMQTT",
      dependencies: ["CMosquitto", "CallAlertEngine", "CallAlertControl", "CallAlertText", "CallAlertValues"],
      swiftSettings: strictSettings),
    // Host: SIP ring extensions: sofia-sip's user agent (NUA) behind a small C shim (its calls take variadic tag
    // lists Swift cannot pass), in a thread of its own; INVITEs become the engine's inputs.
    .systemLibrary(
      name: "CSofiaSIP", pkgConfig: "sofia-sip-ua", providers: [.apt(["libsofia-sip-ua-dev"]), .brew(["sofia-sip"])]),
    .target(name: "CCallAlertSIP", dependencies: ["CSofiaSIP"]),
    .target(
      name: "CallAlertSIP", dependencies: ["CCallAlertSIP", "CallAlertBridges", "CallAlertEngine", "CallAlertValues"],
      swiftSettings: strictSettings),
    // Host: the control protocol as types: requests, answers, status, the typed client; JSON only at the edge.
    .target(
      name: "CallAlertControl",
      dependencies: [
        "CallAlertEngine", "CallAlertProtocol", "CallAlertText", "CallAlertValues",
      ],
      swiftSettings: strictSettings),
    .target(
      name: "CallAlertHistory",
      dependencies: ["CallAlertEngine", "CallAlertValues", .product(name: "GRDB", package: "GRDB.swift")],
      swiftSettings: strictSettings),

    // Host: the HTTP API, the telephony webhooks' parsers, live events (SSE) and /metrics, on Hummingbird 2; it
    // knows the daemon only through a handler closure and providers (it never imports CallAlertDaemon).
    .target(
      name: "CallAlertHTTP",
      dependencies: [
        "CallAlertControl", "CallAlertEngine", "CallAlertInputs",
        "CallAlertPatterns", "CallAlertProtocol", "CallAlertText", "CallAlertValues",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
        .product(name: "Metrics", package: "swift-metrics"),
        .product(name: "Prometheus", package: "swift-prometheus"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Crypto", package: "swift-crypto"),
      ],
      swiftSettings: strictSettings),

    // Host: the daemon: the engine at work, board drivers, the control socket, the demo.
    .target(
      name: "CallAlertDaemon",
      dependencies: [
        "CallAlertEngine", "CallAlertInputs", "CallAlertControl", "CallAlertHistory", "CallAlertClient",
        "CallAlertSerial", "CallAlertTransport", "CallAlertPatterns", "CallAlertProtocol", "CallAlertRuntime",
        "CallAlertBridges", "CallAlertMQTT", "CallAlertSIP", "CallAlertLights", "CallAlertHID", "CallAlertText",
        "CallAlertValues",
        .product(name: "SystemPackage", package: "swift-system"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      swiftSettings: strictSettings),

    // Host: the HTTP API as an add-on of the daemon (`run --http`, `http:`): secrets read, handler and events
    // wired. Apart from the daemon, which never links the HTTP server (see DaemonAddOn).
    .target(
      name: "CallAlertHTTPDaemon",
      dependencies: [
        "CallAlertDaemon", "CallAlertHTTP", "CallAlertBridges", "CallAlertInputs", "CallAlertControl",
        "CallAlertEngine", "CallAlertDoctor", "CallAlertPatterns", "CallAlertText", "CallAlertValues",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      swiftSettings: strictSettings),

    // Host: KDE Connect's telephony (docs/PHONE.md): packets, the phone-call tracker and pairing as pure cores;
    // discovery, the TLS links (SwiftNIO, swift-nio-ssl) and the device's certificate (swift-certificates).
    .target(
      name: "CallAlertKDEConnect",
      dependencies: [
        "CallAlertEngine", "CallAlertText", "CallAlertValues",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "NIOTLS", package: "swift-nio"),
        .product(name: "X509", package: "swift-certificates"),
        .product(name: "SwiftASN1", package: "swift-asn1"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strictSettings),
    // Host: KDE Connect as a `DaemonAddOn`: the `kdeconnect:` section's service, its pairing and health.
    .target(
      name: "CallAlertKDEConnectDaemon",
      dependencies: [
        "CallAlertDaemon", "CallAlertKDEConnect", "CallAlertControl", "CallAlertEngine", "CallAlertValues",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      swiftSettings: strictSettings),

    // Host: in-process virtual boards for `run --simulate`, handed to the daemon as a board source; the demo.
    .target(
      name: "CallAlertSimulation",
      dependencies: [
        "CallAlertDaemon", "CallAlertVirtualBoard", "CallAlertBoardCore", "CallAlertTransport", "CallAlertEngine",
        "CallAlertProtocol", "CallAlertInputs", "CallAlertPatterns", "CallAlertLights",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      swiftSettings: strictSettings),

    // Host: `callalert doctor`'s checks (config, daemon, boards' access, udev rule, history, socket), and the
    // git revision baked in at build time (`make` writes Sources/CBuildInfo/revision.h).
    .target(
      name: "CallAlertDoctor",
      dependencies: [
        "CallAlertInputs", "CallAlertControl", "CallAlertDaemon", "CallAlertClient", "CallAlertPatterns",
        "CallAlertProtocol", "CallAlertTransport", "CallAlertSerial", "CallAlertBridges", "CallAlertEngine",
        "CallAlertHID", "CallAlertLights", "CallAlertText", "CallAlertValues",
      ],
      swiftSettings: strictSettings),
    .target(name: "CBuildInfo"),

    // Executables.
    .executableTarget(
      name: "callalert",
      dependencies: [
        "CallAlertProtocol", "CallAlertBoardCore", "CallAlertSerial", "CallAlertVirtualBoard", "CallAlertClient",
        "CallAlertDaemon", "CallAlertInputs", "CallAlertControl", "CallAlertHistory", "CallAlertEngine",
        "CallAlertPatterns", "CallAlertQemu", "CallAlertDoctor", "CallAlertTransport", "CallAlertSimulation",
        "CallAlertHTTPDaemon", "CallAlertKDEConnectDaemon", "CBuildInfo", "CallAlertLights", "CallAlertHID",
        "CallAlertText", "CallAlertValues",
        .product(name: "SystemPackage", package: "swift-system"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Tools/callalert",
      swiftSettings: strictSettings
    ),
    .target(name: "CallAlertFuzzDriver", path: "Tools/fuzz-driver"),
    .executableTarget(
      name: "callalert-fuzz-decoder", dependencies: ["CallAlertFuzzDriver", "CallAlertProtocol"],
      path: "Tools/fuzz-decoder"),
    .executableTarget(
      name: "callalert-fuzz-patterns", dependencies: ["CallAlertFuzzDriver", "CallAlertPatterns", "CallAlertProtocol"],
      path: "Tools/fuzz-patterns"),
    .executableTarget(
      name: "callalert-fuzz-push",
      dependencies: ["CallAlertFuzzDriver", "CallAlertControl", "CallAlertEngine", "CallAlertValues"],
      path: "Tools/fuzz-push"),
    .executableTarget(
      name: "callalert-fuzz-fritzbox", dependencies: ["CallAlertFuzzDriver", "CallAlertBridges", "CallAlertValues"],
      path: "Tools/fuzz-fritzbox"),
    .executableTarget(
      name: "callalert-fuzz-ami", dependencies: ["CallAlertFuzzDriver", "CallAlertBridges", "CallAlertValues"],
      path: "Tools/fuzz-ami"),

    // Benchmarks and the reliability soak (`make bench`, `make soak`); the C target counts heap allocations
    // by interposing malloc and its relatives in the bench executable (glibc only).
    .target(name: "CallAlertBenchMalloc", path: "Tools/bench/MallocCounter"),
    .executableTarget(
      name: "callalert-bench",
      dependencies: [
        "CallAlertBenchMalloc", "CallAlertProtocol", "CallAlertBoardCore", "CallAlertSerial", "CallAlertTransport",
        "CallAlertVirtualBoard", .product(name: "SystemPackage", package: "swift-system"),
        "CallAlertClient", "CallAlertDaemon", "CallAlertSimulation", "CallAlertEngine", "CallAlertHTTPDaemon",
        "CallAlertHistory", "CallAlertValues", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
      ],
      path: "Tools/bench", exclude: ["MallocCounter", "floor"], swiftSettings: strictSettings),
    // The floor the bench compares the daemon's latency with: the same trips in plain C (Tools/bench/floor).
    .executableTarget(name: "callalert-bench-floor", path: "Tools/bench/floor"),

    // Tests, and the helpers they share (board rigs, captured logs, bounded waits). CTestProcess sets the test
    // process's own state once at its start (SIGPIPE ignored), for every suite.
    .target(name: "CTestProcess", path: "Tests/CTestProcess"),
    .target(
      name: "CallAlertTestSupport",
      dependencies: [
        "CTestProcess", "CallAlertProtocol", "CallAlertVirtualBoard", "CallAlertSerial", "CallAlertTransport",
        "CallAlertDaemon",
        "CallAlertSimulation", .product(name: "SystemPackage", package: "swift-system"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Clocks", package: "swift-clocks"), .product(name: "Logging", package: "swift-log"),
        .product(name: "Subprocess", package: "swift-subprocess"),
      ],
      path: "Tests/CallAlertTestSupport", swiftSettings: strictSettings),
    .testTarget(
      name: "CallAlertProtocolTests",
      dependencies: [
        "CallAlertProtocol", "CallAlertVirtualBoard",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertBoardCoreTests",
      dependencies: ["CallAlertBoardCore", "CallAlertProtocol", "CallAlertVirtualBoard"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertPatternsTests",
      dependencies: ["CallAlertPatterns", "CallAlertProtocol", "CallAlertVirtualBoard", "CallAlertTestSupport"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertVirtualBoardTests",
      dependencies: [
        "CallAlertVirtualBoard", "CallAlertBoardCore", "CallAlertProtocol", "CallAlertTransport",
        .product(name: "Clocks", package: "swift-clocks"),
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertLightsTests", dependencies: ["CallAlertLights", "CallAlertProtocol", "CallAlertTestSupport"],
      exclude: ["Fixtures"],
      swiftSettings: strictSettings),
    .testTarget(
      name: "CallAlertRuntimeTests",
      dependencies: ["CallAlertRuntime", .product(name: "Clocks", package: "swift-clocks")],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertClientTests",
      dependencies: [
        "CallAlertClient", "CallAlertRuntime", "CallAlertVirtualBoard", "CallAlertBoardCore", "CallAlertProtocol",
        "CallAlertSerial", "CallAlertTransport", "CallAlertTestSupport",
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertEngineTests",
      dependencies: ["CallAlertEngine", "CallAlertProtocol"],
      swiftSettings: strictSettings
    ),
    .testTarget(name: "CallAlertTextTests", dependencies: ["CallAlertText"], swiftSettings: strictSettings),
    .testTarget(
      name: "CallAlertValuesTests",
      dependencies: ["CallAlertValues", "CallAlertText", "CallAlertEngine", "CallAlertTestSupport"],
      swiftSettings: strictSettings),
    .testTarget(
      name: "CallAlertInputsTests",
      dependencies: [
        "CallAlertInputs", "CallAlertControl", "CallAlertEngine", "CallAlertProtocol",
        "CallAlertTestSupport", "CallAlertLights", "CallAlertText", "CallAlertValues",
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertControlTests",
      dependencies: [
        "CallAlertControl", "CallAlertInputs", "CallAlertEngine", "CallAlertProtocol",
        "CallAlertTestSupport", "CallAlertText", "CallAlertValues",
      ],
      swiftSettings: strictSettings
    ),
    // The CLI's parsing and help, through `@testable import callalert` (SwiftPM links an executable target's
    // code into its tests), so the commands stay in the executable that runs them.
    .testTarget(
      name: "CallAlertCLITests",
      dependencies: [
        "callalert", "CallAlertControl", "CallAlertEngine", "CallAlertLights", "CallAlertValues", "CallAlertPatterns",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertHistoryTests",
      dependencies: [
        "CallAlertHistory", "CallAlertEngine", "CallAlertValues", .product(name: "GRDB", package: "GRDB.swift"),
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertDaemonTests",
      dependencies: [
        "CallAlertDaemon", "CallAlertSimulation", "CallAlertEngine", "CallAlertHistory", "CallAlertVirtualBoard",
        "CallAlertSerial", "CallAlertTransport", "CallAlertProtocol", "CallAlertPatterns", "CallAlertInputs",
        "CallAlertControl", "CallAlertTestSupport", .product(name: "SystemPackage", package: "swift-system"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"), "CallAlertLights", "CallAlertText",
        "CallAlertValues", "CallAlertClient",
      ],
      exclude: ["FakeHidraw"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertHTTPTests",
      dependencies: [
        "CallAlertHTTP", "CallAlertHTTPDaemon", "CallAlertDaemon", "CallAlertSimulation", "CallAlertControl",
        "CallAlertEngine",
        "CallAlertInputs", "CallAlertVirtualBoard", "CallAlertTestSupport", "CallAlertText", "CallAlertValues",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Clocks", package: "swift-clocks"),
      ],
      exclude: ["Fixtures"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertDoctorTests",
      dependencies: [
        "CallAlertDoctor", "CallAlertLights", "CallAlertHID", "CallAlertInputs", "CallAlertControl",
        "CallAlertProtocol",
        "CallAlertDaemon",
        "CallAlertSerial", "CallAlertPatterns", "CallAlertEngine", "CallAlertText", "CallAlertValues",
      ],
      exclude: ["Fixtures"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertBridgesTests",
      dependencies: [
        "CallAlertBridges", "CallAlertEngine", "CallAlertSerial", "CallAlertTransport", "CallAlertValues",
        .product(name: "Clocks", package: "swift-clocks"),
      ],
      exclude: ["Fixtures"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertMQTTTests",
      dependencies: [
        "CallAlertMQTT", "CallAlertDaemon", "CallAlertSimulation", "CallAlertEngine", "CallAlertInputs",
        "CallAlertControl", "CallAlertVirtualBoard", "CallAlertTestSupport", "CallAlertText", "CallAlertValues",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      exclude: ["Fixtures"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertSIPTests",
      dependencies: [
        "CallAlertSIP", "CallAlertEngine", "CallAlertVirtualBoard", "CallAlertProtocol", "CallAlertTestSupport",
        "CallAlertText", "CallAlertValues",
        .product(name: "Logging", package: "swift-log"),
      ],
      exclude: ["Scenarios"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertKDEConnectTests",
      dependencies: [
        "CallAlertKDEConnect", "CallAlertKDEConnectDaemon", "CallAlertEngine", "CallAlertInputs", "CallAlertControl",
        "CallAlertTestSupport", "CallAlertHTTPDaemon",
        "CallAlertText", "CallAlertValues",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOEmbedded", package: "swift-nio"),
      ],
      exclude: ["Fixtures"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertSerialTests",
      dependencies: [
        "CallAlertSerial", "CallAlertTransport", "CallAlertTestSupport",
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertTransportTests",
      dependencies: [
        "CallAlertTransport", "CallAlertTestSupport", .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertConformanceTests",
      dependencies: [
        "CallAlertClient", "CallAlertVirtualBoard", "CallAlertSerial", "CallAlertTransport", "CallAlertProtocol",
        "CallAlertBoardCore", "CallAlertQemu", "CallAlertText",
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: strictSettings
    ),
  ],
  swiftLanguageModes: [.v6]
)
