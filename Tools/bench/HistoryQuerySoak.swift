import CallAlertEngine
import CallAlertHistory
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `callalert history --limit 1000` on a large history (under 100 ms on a million rows).
/// The history is written straight through ``CallHistory/record(_:)`` in transactions of 20 000 calls, a
/// call every 5 s back from now (a million calls span 58 days), every tenth missed. Then the real command is
/// run `runs` times as a child process, as text, as JSON and for the missed calls only, its output read to the end, and the store's
/// query alone timed in this process.
struct HistoryQuerySoak {
  let rows: Int
  let executable: String
  var limit = 1_000
  var runs = 7

  /// The bound the issue sets on the command.
  static let targetMs = 100.0

  struct Outcome: Sendable {
    var rows = 0
    var limit = 0
    var buildSeconds = 0.0
    var fileMiB = 0.0
    var command: [Double] = []
    var commandJSON: [Double] = []
    var commandMissed: [Double] = []
    var query: [Double] = []
    var printedLines = 0
    var notes: [String] = []

    var violations: Int {
      (Summary(command).p50 < HistoryQuerySoak.targetMs ? 0 : 1) + (printedLines == limit ? 0 : 1)
    }

    var json: JSONValue {
      .object([
        ("rows", .int(rows)), ("limit", .int(limit)), ("build_seconds", .number(buildSeconds)),
        ("file_mib", .number(fileMiB)), ("command", Summary(command).json(unit: "ms")),
        ("command_json", Summary(commandJSON).json(unit: "ms")),
        ("command_missed", Summary(commandMissed).json(unit: "ms")), ("store_query", Summary(query).json(unit: "ms")),
        ("lines_printed", .int(printedLines)), ("notes", .array(notes.map { .string($0) })),
      ])
    }

    func report(into table: inout ResultTable) {
      func figures(_ values: [Double]) -> String {
        let summary = Summary(values)
        return String(format: "%.1f / %.1f / %.1f ms", summary.min, summary.p50, summary.max)
      }
      table.add(
        "history of \(rows) calls: written",
        String(format: "%.1f s (%.0f calls/s), %.0f MiB", buildSeconds, Double(rows) / max(buildSeconds, 1e-9), fileMiB)
      )
      table.add(
        "`callalert history --limit \(limit)`: min / median / max of \(command.count)", figures(command),
        target: "< 100 ms")
      table.add("`callalert history --limit \(limit) --json`: min / median / max", figures(commandJSON))
      table.add("`callalert history --limit \(limit) --missed`: min / median / max", figures(commandMissed))
      table.add("the store's query of \(limit) calls: min / median / max", figures(query))
    }
  }

  func run() async throws -> Outcome {
    guard FileManager.default.isExecutableFile(atPath: executable) else {
      throw BenchError("no executable at \(executable)")
    }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "callalert-history-query-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(
      at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("history.sqlite").path
    let config = directory.appendingPathComponent("config.yaml").path
    try "boards:\n  - name: desk\nhistory:\n  path: \(path)\n".write(toFile: config, atomically: true, encoding: .utf8)

    var outcome = Outcome(rows: rows, limit: limit)
    let started = ContinuousClock.now
    try fill(path)
    outcome.buildSeconds = started.duration(to: .now).seconds
    let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    outcome.fileMiB = Double(size) / 1_048_576

    let arguments = ["history", "--config", config, "--database", path, "--limit", "\(limit)"]
    for _ in 0..<runs {
      let (text, lines) = try timeCommand(arguments)
      outcome.command.append(text)
      outcome.printedLines = lines
      outcome.commandJSON.append(try timeCommand(arguments + ["--json"]).ms)
      outcome.commandMissed.append(try timeCommand(arguments + ["--missed"]).ms)
      let history = try CallHistory.reading(path: path)
      let query = ContinuousClock.now
      let calls = try history.calls(limit: limit)
      outcome.query.append(query.duration(to: .now).milliseconds)
      if calls.count != min(limit, rows) { outcome.notes.append("the store gave \(calls.count) calls") }
    }
    return outcome
  }

  /// The history: `rows` calls, 5 s apart, the newest now; every tenth missed (it rang to its cap).
  private func fill(_ path: String) throws {
    let history = try CallHistory(path: path)
    let now = Date()
    var records: [HistoryRecord] = []
    records.reserveCapacity(40_000)
    for index in 0..<rows {
      let call = IncomingCall(
        id: "query-\(index)", callerNumber: "+49301234\(index % 10_000)", callerName: index % 3 == 0 ? "Office" : nil)
      let date = now.addingTimeInterval(-Double(rows - index) * 5)
      if index % 10 == 0 {
        records.append(
          HistoryRecord(.ringing(call, boards: ["desk"], pattern: .named("DE"), capMs: 30_000, silent: false), at: date)
        )
        records.append(HistoryRecord(.stopped(callID: call.id, reason: .cap), at: date.addingTimeInterval(30)))
        records.append(HistoryRecord(.missed(call, reason: .cap), at: date.addingTimeInterval(30)))
      } else {
        records += HistoryCallMaker.hungUp(call, at: date)
      }
      if records.count >= 40_000 {
        try history.record(records)
        records.removeAll(keepingCapacity: true)
      }
    }
    if !records.isEmpty { try history.record(records) }
  }

  /// Runs `callalert` with `arguments`, reads its output to the end; the wall time from spawn to exit in
  /// milliseconds, and how many lines it printed.
  private func timeCommand(_ arguments: [String]) throws -> (ms: Double, lines: Int) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    let started = ContinuousClock.now
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let elapsed = started.duration(to: .now).milliseconds
    guard process.terminationStatus == 0 else {
      throw BenchError("`callalert \(arguments.joined(separator: " "))` exited with \(process.terminationStatus)")
    }
    return (elapsed, data.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) })
  }
}
