import CallAlertEngine
import CallAlertHistory
import CallAlertValues
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Long life: `callalert run --simulate` as a child process takes a million call/hangup
/// pairs on its control socket, pipelined (``PipelinedPairs``), in real time: the daemon's timers run on its
/// continuous clock, which no option of `run` makes virtual, so the calls come as fast as the socket takes them
/// instead. Every `calls / samples` calls the daemon's resident set (VmRSS) and open descriptors
/// (/proc/PID/fd) are read; after the warm-up they must stay within 5 MiB and 2 descriptors of the first
/// sample after it. Before the start its history is seeded with calls older than `keep_days` (every hundredth
/// an unacknowledged missed call, which the retention keeps) and calls a day old: the retention runs at the
/// start, so the run checks that the old calls went, the missed ones and the recent ones stayed, and every
/// call of the run is in the history, hung up, none left ringing, none missed.
struct LongLifeSoak {
  let calls: Int
  let executable: String
  /// The history's `keep_days`.
  var keepDays = 7
  /// The engine's `tombstone` (how long an ended call's id is remembered); nil: the default, 5 minutes.
  var tombstone: String? = nil
  /// Calls seeded older than `keepDays`.
  var agedCalls = 10_000
  /// Calls seeded a day old, inside the retention.
  var recentCalls = 1_000
  /// How many times RSS and descriptors are read.
  var samples = 100
  /// Requests in flight on the connection.
  var window = 64
  /// The run's bound: past it the run stops and counts as failed.
  var timeout: Duration = .seconds(3_600)

  /// How far RSS may move after the warm-up.
  static let residentToleranceKiB = 5 * 1_024
  /// How far the open descriptors may move after the warm-up.
  static let descriptorTolerance = 2

  /// One reading of the daemon.
  struct Sample: Sendable {
    var calls: Int
    var seconds: Double
    var residentKiB: Int
    var descriptors: Int
  }

  struct Outcome: Sendable {
    var calls = 0
    var keepDays = 0
    var tombstone = ""
    var seconds = 0.0
    var answers = 0
    var answeredOK = 0
    var finishedInTime = false
    var warmUpCalls = 0
    var samples: [Sample] = []
    var hungUp = 0
    var ringing = 0
    var missed = 0
    var otherOutcome = 0
    var agedSeeded = 0
    var agedKeptMissed = 0
    var agedLeft = 0
    var recentSeeded = 0
    var recentLeft = 0
    var statusLost: Int?
    var daemonExited = false
    var activity: MachineActivity?
    var daemonCores = 0.0
    var notes: [String] = []

    var callsPerSecond: Double { seconds > 0 ? Double(calls) / seconds : 0 }
    /// The samples from the end of the warm-up on.
    var afterWarmUp: [Sample] { samples.filter { $0.calls >= warmUpCalls } }

    /// The first reading after the warm-up, the last, and how far the readings moved from the first.
    func drift(_ value: (Sample) -> Int) -> (first: Int, last: Int, max: Int, min: Int)? {
      guard let first = afterWarmUp.first, let last = afterWarmUp.last else { return nil }
      let values = afterWarmUp.map(value)
      return (value(first), value(last), values.max() ?? 0, values.min() ?? 0)
    }

    /// How far the readings after the warm-up moved from the first one, either way.
    func spread(_ value: (Sample) -> Int) -> Int {
      guard let drift = drift(value) else { return Int.max }
      return max(drift.max - drift.first, drift.first - drift.min)
    }

    var violations: Int {
      (calls - hungUp) + ringing + missed + otherOutcome + (statusLost ?? 1) + (2 * calls - answeredOK)
        + (finishedInTime ? 0 : 1) + (agedLeft - agedKeptMissed) + (recentSeeded - recentLeft)
        + (spread(\.residentKiB) > LongLifeSoak.residentToleranceKiB ? 1 : 0)
        + (spread(\.descriptors) > LongLifeSoak.descriptorTolerance ? 1 : 0)
    }

    var json: JSONValue {
      func figures(_ value: (Sample) -> Int) -> JSONValue {
        guard let drift = drift(value) else { return .string("no samples") }
        return .object([
          ("first", .int(drift.first)), ("last", .int(drift.last)), ("max", .int(drift.max)), ("min", .int(drift.min)),
          ("last_delta", .int(drift.last - drift.first)), ("max_delta", .int(drift.max - drift.first)),
        ])
      }
      return .object([
        ("calls", .int(calls)), ("keep_days", .int(keepDays)), ("tombstone", .string(tombstone)),
        ("seconds", .number(seconds)),
        ("calls_per_second", .number(callsPerSecond)), ("answers", .int(answers)), ("answers_ok", .int(answeredOK)),
        ("finished_in_time", .bool(finishedInTime)), ("warm_up_calls", .int(warmUpCalls)),
        ("rss_kib", figures(\.residentKiB)), ("open_descriptors", figures(\.descriptors)),
        ("hung_up", .int(hungUp)), ("ringing", .int(ringing)), ("missed", .int(missed)),
        ("other_outcome", .int(otherOutcome)), ("aged_seeded", .int(agedSeeded)),
        ("aged_kept_missed", .int(agedKeptMissed)), ("aged_left", .int(agedLeft)),
        ("recent_seeded", .int(recentSeeded)), ("recent_left", .int(recentLeft)),
        ("status_lost", statusLost.map { .int($0) } ?? .string("no answer")), ("daemon_exited", .bool(daemonExited)),
        ("daemon_cpu_cores", .number(daemonCores)), ("machine", activity?.json ?? .string("")),
        (
          "samples",
          .array(
            samples.map {
              .array([.int($0.calls), .number($0.seconds), .int($0.residentKiB), .int($0.descriptors)])
            })
        ),
        ("notes", .array(notes.prefix(20).map { .string($0) })),
      ])
    }

    func report(into table: inout ResultTable) {
      let machine = activity.map {
        String(format: "load %.2f → %.2f, the daemon %.2f cores", $0.start.load, $0.end.load, daemonCores)
      }
      table.add(
        "long life: \(calls) calls after \(warmUpCalls) of warm-up, tombstone \(tombstone)",
        String(format: "%.0f s, %.0f calls/s; ", seconds, callsPerSecond) + (machine ?? ""))
      if let rss = drift(\.residentKiB), let fds = drift(\.descriptors) {
        table.add(
          "long life: RSS first / last / max (KiB)",
          "\(rss.first) / \(rss.last) / \(rss.max) (\(signed(rss.last - rss.first)), at most \(signed(rss.max - rss.first)))",
          target: "within 5 MiB")
        table.add(
          "long life: open descriptors first / last / max",
          "\(fds.first) / \(fds.last) / \(fds.max)", target: "within 2")
      }
      table.add(
        "long life: hung up / ringing / missed / other",
        "\(hungUp) / \(ringing) / \(missed) / \(otherOutcome)", target: "\(calls) / 0 / 0 / 0")
      table.add(
        "long life: calls older than \(keepDays) days left",
        "\(agedLeft) of \(agedSeeded) (\(agedKeptMissed) unacknowledged missed kept), \(recentLeft) of \(recentSeeded) recent",
        target: "only the missed ones; all recent")
      table.add(
        "long life: status lost, answers ok",
        "\(statusLost.map(String.init) ?? "no answer"), \(answeredOK) of \(2 * calls)", target: "0, all")
    }

    private func signed(_ value: Int) -> String { value >= 0 ? "+\(value)" : "\(value)" }
  }

  func run() async throws -> Outcome {
    guard FileManager.default.isExecutableFile(atPath: executable) else {
      throw BenchError("no executable at \(executable)")
    }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "callalert-long-life-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(
      at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    defer { try? FileManager.default.removeItem(at: directory) }
    let socket = directory.appendingPathComponent("control.sock").path
    let historyPath = directory.appendingPathComponent("state/history.sqlite").path
    let config = directory.appendingPathComponent("config.yaml").path
    try """
    boards:
      - name: desk
    \(tombstone.map { "tombstone: \($0)" } ?? "")
    missed_indicator: off
    socket:
      path: \(socket)
    history:
      path: \(historyPath)
      keep_days: \(keepDays)
    """.write(toFile: config, atomically: true, encoding: .utf8)

    var outcome = Outcome(calls: calls, keepDays: keepDays, warmUpCalls: calls / 10)
    outcome.tombstone = tombstone ?? "5m (default)"
    outcome.agedSeeded = agedCalls
    outcome.recentSeeded = recentCalls
    outcome.agedKeptMissed = try seed(historyPath)

    let daemon = Process()
    daemon.executableURL = URL(fileURLWithPath: executable)
    daemon.arguments = ["run", "--simulate", "--config", config, "--history", historyPath, "--no-stdin", "--no-http"]
    daemon.standardInput = FileHandle.nullDevice
    daemon.standardOutput = FileHandle.nullDevice  // two million event lines: nobody reads them here
    let logPath = directory.appendingPathComponent("daemon.log").path
    _ = FileManager.default.createFile(atPath: logPath, contents: nil)
    daemon.standardError = FileHandle(forWritingAtPath: logPath)
    let exited = ChaosClient.Run()
    daemon.terminationHandler = { _ in exited.stop() }
    try daemon.run()
    defer { if !exited.isStopped { kill(daemon.processIdentifier, SIGKILL) } }
    func logTail() -> String {
      let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
      return text.split(separator: "\n").suffix(5).joined(separator: " | ")
    }
    guard await ChaosClient.waitForDaemon(socket: socket, timeout: .seconds(30)) else {
      outcome.notes.append("the daemon never answered on its socket: " + logTail())
      return outcome
    }

    let pid = daemon.processIdentifier
    let before = MachineActivity.Sample.now()
    let daemonBefore = HistoryLoadSoak.cpuSeconds(of: pid)
    let started = ContinuousClock.now
    let readings = Readings()
    let sample: @Sendable (Int) -> Void = { calls in
      let reading = Sample(
        calls: calls, seconds: started.duration(to: .now).seconds, residentKiB: ProcessStats.residentKiB(of: pid),
        descriptors: ProcessStats.openDescriptors(of: pid))
      readings.list.withLock { $0.append(reading) }
    }
    sample(0)
    var pairs = PipelinedPairs(socket: socket, pairs: calls, idPrefix: "life", window: window, timeout: timeout)
    pairs.every = max(2, 2 * calls / max(1, samples))
    pairs.onAnswers = { answers in sample(answers / 2) }
    let sent = await pairs.send()
    outcome.seconds = started.duration(to: .now).seconds
    outcome.activity = MachineActivity(start: before, end: .now())
    outcome.daemonCores = (HistoryLoadSoak.cpuSeconds(of: pid) - daemonBefore) / max(outcome.seconds, 1e-9)
    outcome.answers = sent.answers
    outcome.answeredOK = sent.ok
    outcome.finishedInTime = sent.inTime
    outcome.notes += sent.notes
    // Once every write is on disk the daemon holds no queue: one more reading, after it settled.
    for _ in 0..<100 {
      if let pending = await HistoryLoadSoak.historyHealth(socket: socket)?["pending"] as? Int, pending == 0 { break }
      try? await Task.sleep(for: .milliseconds(100))  // polling the daemon's queue, bounded to 10 s
    }
    sample(calls)
    outcome.samples = readings.list.withLock { $0 }
    let history = await HistoryLoadSoak.historyHealth(socket: socket)
    outcome.statusLost = history?["lost"] as? Int
    if history == nil { outcome.notes.append("status did not answer: " + logTail()) }

    kill(pid, SIGTERM)
    let deadline = ContinuousClock.now.advanced(by: .seconds(60))
    while !exited.isStopped, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
    outcome.daemonExited = exited.isStopped
    if !outcome.daemonExited { outcome.notes.append("the daemon did not stop within 60 s: " + logTail()) }

    let stored = try CallHistory.reading(path: historyPath)
    let life = try stored.census(idPrefix: "life-")
    outcome.hungUp = life.byOutcome[.hungUp] ?? 0
    outcome.ringing = life.byOutcome[.ringing] ?? 0
    outcome.missed = life.missed
    outcome.otherOutcome = life.total - outcome.hungUp - outcome.ringing - (life.byOutcome[.missed] ?? 0)
    outcome.agedLeft = try stored.census(idPrefix: "aged-").total
    outcome.recentLeft = try stored.census(idPrefix: "recent-").total
    if outcome.violations > 0 { outcome.notes.append("daemon log: " + logTail()) }
    return outcome
  }

  /// The readings, taken on the reader's thread.
  private final class Readings: Sendable {
    let list = Mutex<[Sample]>([])
  }

  /// Writes the calls older than the retention (every hundredth missed, unacknowledged) and the recent ones,
  /// in a few large transactions; returns how many of the old ones are missed.
  private func seed(_ path: String) throws -> Int {
    let history = try CallHistory(path: path)
    let now = Date()
    var records: [HistoryRecord] = []
    var missed = 0
    for index in 0..<agedCalls {
      let call = IncomingCall(id: "aged-\(index)")
      let date = now.addingTimeInterval(-Double(keepDays + 1) * 86_400 - Double(index) * 60)
      if index % 100 == 0 {
        records.append(HistoryRecord(.missed(call, reason: .cap), at: date))
        missed += 1
      } else {
        records += HistoryCallMaker.hungUp(call, at: date)
      }
    }
    for index in 0..<recentCalls {
      let date = now.addingTimeInterval(-86_400 + Double(index))
      records += HistoryCallMaker.hungUp(IncomingCall(id: "recent-\(index)"), at: date)
    }
    for start in stride(from: 0, to: records.count, by: 20_000) {
      try history.record(Array(records[start..<min(records.count, start + 20_000)]))
    }
    return missed
  }
}

/// Calls as the history records them, for the runs that fill a history before they start.
enum HistoryCallMaker {
  /// A call that rang on `desk` with the DE cadence for two seconds and was hung up: its two records.
  static func hungUp(_ call: IncomingCall, at date: Date) -> [HistoryRecord] {
    [
      HistoryRecord(.ringing(call, boards: ["desk"], pattern: .named("DE"), capMs: 30_000, silent: false), at: date),
      HistoryRecord(.stopped(callID: call.id, reason: .hangup), at: date.addingTimeInterval(2)),
    ]
  }
}
