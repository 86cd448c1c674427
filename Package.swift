// swift-tools-version: 6.1
import PackageDescription

/// Settings shared by every target: Swift 6 language mode plus the upcoming features the style notes ask for.
let strictSettings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
  name: "CallAlert",
  platforms: [.macOS(.v14)],
  products: [
    .executable(name: "callalert", targets: ["callalert"]),
    .library(name: "CallAlertProtocol", targets: ["CallAlertProtocol"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
  ],
  targets: [
    // Portable: standard library only, also compiled as Embedded Swift (make firmware-check).
    .target(name: "CallAlertProtocol", swiftSettings: strictSettings),
    .executableTarget(
      name: "callalert",
      dependencies: [
        "CallAlertProtocol",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Tools/callalert",
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "CallAlertProtocolTests",
      dependencies: [
        "CallAlertProtocol",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ],
      swiftSettings: strictSettings
    ),
  ],
  swiftLanguageModes: [.v6]
)
