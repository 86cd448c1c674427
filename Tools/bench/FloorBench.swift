import Foundation

/// The floor: the same trip as a call (a fresh unix-socket connection, 30 bytes written into a pseudo-terminal,
/// read on the other side), or as a call to many boards, done in plain C by `callalert-bench-floor` in the same
/// run, so that every latency figure is reported beside it and as a ratio to it.
enum FloorBench {
  /// The floor's figures for one kind of trip.
  struct Figures: Sendable {
    /// Each call's trip, from connecting to the arrival on the (last) board, ms.
    let samples: [Double]
    /// CPU time (user + system) of the whole floor process per call, ms.
    let cpuMsPerCall: Double

    /// The trips' percentiles.
    var trip: Summary { Summary(samples) }

    var json: JSONValue {
      .object([("trip", trip.json(unit: "ms")), ("cpu_ms_per_call", .number(cpuMsPerCall))])
    }

    /// As ``json``, with every trip.
    var jsonWithSamples: JSONValue {
      .object([
        ("trip", trip.json(unit: "ms")), ("cpu_ms_per_call", .number(cpuMsPerCall)),
        ("samples_ms", .array(samples.map { .number($0) })),
      ])
    }
  }

  /// Where the floor executable is: beside this one (`make bench` builds both).
  static var executable: String { sibling("callalert-bench-floor") }

  /// The path of the executable `name` in this one's directory.
  static func sibling(_ name: String) -> String {
    let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    return URL(fileURLWithPath: own).deletingLastPathComponent().appendingPathComponent(name).path
  }

  /// Runs the floor for `calls` calls to `boards` boards; nil (with the reason on standard error) if it cannot.
  static func measure(boards: Int, calls: Int) async -> Figures? {
    let path = executable
    guard FileManager.default.isExecutableFile(atPath: path) else {
      progress("floor: no \(path); build it with swift build -c release --product callalert-bench-floor")
      return nil
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = boards == 1 ? ["latency", "\(calls)"] : ["fanout", "\(boards)", "\(calls)"]
    let output = Pipe()
    process.standardOutput = output
    let exit: ChildExit
    do { exit = try ChildExit(starting: process) } catch {
      progress("floor: \(error)")
      return nil
    }
    // Read to the end on a thread of its own (the pipe would fill up otherwise), then reap the child.
    let data = await withCheckedContinuation { (continuation: CheckedContinuation<Data, Never>) in
      Thread.detachNewThread { continuation.resume(returning: output.fileHandleForReading.readDataToEndOfFile()) }
    }
    guard await exit.waitOrKill(after: .seconds(600)) == 0 else {
      progress("floor: callalert-bench-floor failed")
      return nil
    }
    var samples: [Double] = []
    var cpuNs = 0.0
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
      let fields = line.split(separator: " ")
      guard fields.count == 2, let value = Double(fields[1]) else { continue }
      if fields[0] == "sample" { samples.append(value / 1e6) }
      if fields[0] == "cpu_ns_per_call" { cpuNs = value }
    }
    guard !samples.isEmpty else { return nil }
    return Figures(samples: samples, cpuMsPerCall: cpuNs / 1e6)
  }

  /// The ratios as JSON.
  static func ratiosJSON(_ measured: Summary, _ floor: Summary) -> JSONValue {
    .object([("p50", .number(measured.p50 / floor.p50)), ("p99", .number(measured.p99 / floor.p99))])
  }
}
