// swift-tools-version: 6.1
import PackageDescription

// The codec's micro-benchmarks on ordo-one's benchmark package (`make bench` runs them with
// `swift package benchmark`, allocations counted by its malloc interposer). A package of its own, depending on
// the main one by path, so that `swift build` and `make test` of the main package never resolve or build it.
let package = Package(
  name: "CallAlertBenchmarks",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(name: "CallAlert", path: ".."),
    .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
  ],
  targets: [
    .executableTarget(
      name: "CodecBenchmarks",
      dependencies: [
        .product(name: "Benchmark", package: "benchmark"),
        .product(name: "CallAlertProtocol", package: "CallAlert"),
      ],
      path: "CodecBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    )
  ]
)
