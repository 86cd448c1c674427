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
  ],
  targets: [
    // Portable (standard library only; also compiled as Embedded Swift by `make firmware-check`).
    .target(name: "CallAlertProtocol", swiftSettings: strictSettings),
    .target(name: "CallAlertBoardCore", dependencies: ["CallAlertProtocol"], swiftSettings: strictSettings),

    // Host: the board core on virtual hardware, and simulated wires.
    .target(
      name: "CallAlertVirtualBoard", dependencies: ["CallAlertBoardCore", "CallAlertProtocol", "CallAlertTransport"],
      swiftSettings: strictSettings),

    // Host: pattern files (YAML), ring cadences, RTTTL, vibration waveforms; compiled to the table format.
    .target(
      name: "CallAlertPatterns", dependencies: ["CallAlertProtocol", .product(name: "Yams", package: "Yams")],
      swiftSettings: strictSettings),

    // Host: byte transports (the protocol, the in-memory pair, the descriptor channel); no serial-port code.
    .target(
      name: "CallAlertTransport", dependencies: [.product(name: "SystemPackage", package: "swift-system")],
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
      name: "CallAlertClient", dependencies: ["CallAlertProtocol", "CallAlertTransport", "CallAlertSerial"],
      swiftSettings: strictSettings),

    // Host: the alert engine (pure state machine), its configuration and inputs.
    .target(name: "CallAlertEngine", dependencies: ["CallAlertProtocol"], swiftSettings: strictSettings),
    .target(
      name: "CallAlertInputs",
      dependencies: ["CallAlertEngine", "CallAlertProtocol", .product(name: "Yams", package: "Yams")],
      swiftSettings: strictSettings),
    .target(
      name: "CallAlertHistory",
      dependencies: ["CallAlertEngine", .product(name: "GRDB", package: "GRDB.swift")],
      swiftSettings: strictSettings),

    // Host: the daemon: the engine at work, board drivers, the control socket, the demo.
    .target(
      name: "CallAlertDaemon",
      dependencies: [
        "CallAlertEngine", "CallAlertInputs", "CallAlertHistory", "CallAlertClient", "CallAlertSerial",
        "CallAlertTransport", "CallAlertPatterns", "CallAlertProtocol",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      swiftSettings: strictSettings),

    // Host: in-process virtual boards for `run --simulate`, handed to the daemon as a board source; the demo.
    .target(
      name: "CallAlertSimulation",
      dependencies: [
        "CallAlertDaemon", "CallAlertVirtualBoard", "CallAlertBoardCore", "CallAlertTransport", "CallAlertEngine",
        "CallAlertProtocol", "CallAlertInputs", "CallAlertPatterns",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      swiftSettings: strictSettings),

    // Host: `callalert doctor`'s checks (config, daemon, boards' access, udev rule, history, socket), and the
    // git revision baked in at build time (`make` writes Sources/CBuildInfo/revision.h).
    .target(
      name: "CallAlertDoctor",
      dependencies: [
        "CallAlertInputs", "CallAlertDaemon", "CallAlertClient", "CallAlertPatterns", "CallAlertProtocol",
        "CallAlertSerial",
      ],
      swiftSettings: strictSettings),
    .target(name: "CBuildInfo"),

    // Executables.
    .executableTarget(
      name: "callalert",
      dependencies: [
        "CallAlertProtocol", "CallAlertBoardCore", "CallAlertSerial", "CallAlertVirtualBoard", "CallAlertClient",
        "CallAlertDaemon", "CallAlertInputs", "CallAlertHistory", "CallAlertEngine", "CallAlertPatterns",
        "CallAlertQemu", "CallAlertDoctor", "CallAlertTransport", "CallAlertSimulation", "CBuildInfo",
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
      name: "callalert-fuzz-push", dependencies: ["CallAlertFuzzDriver", "CallAlertInputs", "CallAlertEngine"],
      path: "Tools/fuzz-push"),

    // Benchmarks and the reliability soak (`make bench`, `make soak`); the C target counts heap allocations
    // by interposing malloc and its relatives in the bench executable (glibc only).
    .target(name: "CallAlertBenchMalloc", path: "Tools/bench/MallocCounter"),
    .executableTarget(
      name: "callalert-bench",
      dependencies: [
        "CallAlertBenchMalloc", "CallAlertProtocol", "CallAlertBoardCore", "CallAlertSerial", "CallAlertTransport",
        "CallAlertVirtualBoard", .product(name: "SystemPackage", package: "swift-system"),
        "CallAlertClient", "CallAlertDaemon", "CallAlertSimulation", "CallAlertEngine",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      path: "Tools/bench", exclude: ["MallocCounter"], swiftSettings: strictSettings),

    // Tests.
    .testTarget(
      name: "CallAlertProtocolTests",
      dependencies: [
        "CallAlertProtocol",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertBoardCoreTests",
      dependencies: ["CallAlertBoardCore", "CallAlertProtocol"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertPatternsTests",
      dependencies: ["CallAlertPatterns", "CallAlertProtocol"],
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
      name: "CallAlertClientTests",
      dependencies: [
        "CallAlertClient", "CallAlertVirtualBoard", "CallAlertBoardCore", "CallAlertProtocol", "CallAlertSerial",
        "CallAlertTransport", .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertEngineTests",
      dependencies: ["CallAlertEngine", "CallAlertProtocol"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertInputsTests",
      dependencies: ["CallAlertInputs", "CallAlertEngine", "CallAlertProtocol"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertHistoryTests",
      dependencies: ["CallAlertHistory", "CallAlertEngine"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertDaemonTests",
      dependencies: [
        "CallAlertDaemon", "CallAlertSimulation", "CallAlertEngine", "CallAlertHistory", "CallAlertVirtualBoard",
        "CallAlertSerial",
        "CallAlertTransport", "CallAlertProtocol", "CallAlertPatterns", "CallAlertInputs",
        .product(name: "SystemPackage", package: "swift-system"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Clocks", package: "swift-clocks"),
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertDoctorTests",
      dependencies: [
        "CallAlertDoctor", "CallAlertInputs", "CallAlertProtocol", "CallAlertDaemon", "CallAlertSerial",
        "CallAlertPatterns", "CallAlertEngine",
      ],
      exclude: ["Fixtures"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertSerialTests",
      dependencies: [
        "CallAlertSerial", "CallAlertTransport", .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertTransportTests",
      dependencies: ["CallAlertTransport", .product(name: "SystemPackage", package: "swift-system")],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertConformanceTests",
      dependencies: [
        "CallAlertClient", "CallAlertVirtualBoard", "CallAlertSerial", "CallAlertTransport", "CallAlertProtocol",
        "CallAlertBoardCore", "CallAlertQemu", .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: strictSettings
    ),
  ],
  swiftLanguageModes: [.v6]
)
