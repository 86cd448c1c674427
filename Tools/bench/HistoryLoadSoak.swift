import CallAlertHistory
import CallAlertValues
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The history under load: `callalert run --simulate` as a child process takes call/hangup pairs as
/// fast as its control socket does (one connection, 64 requests in flight), optionally beside CPU-bound
/// processes (`sh` spinning, as on a Raspberry Pi that serves other things too) or with its history file
/// removed half-way. Once every answer came, the daemon is stopped (SIGTERM) and its history file read: every
/// call must be there, hung up, none missed (a lost hangup would leave a call ringing, closed as "missed
/// (interrupted)" at the stop), and the daemon's `status` must have said `lost` 0.
struct HistoryLoadSoak {
  let pairs: Int
  let executable: String
  /// CPU-bound processes beside the daemon while the pairs go in.
  var hogs = 0
  /// Removes the history file (and its `-wal` and `-shm`) after this many pairs.
  var removeAfter: Int? = nil
  /// Requests in flight on the connection.
  var window = 64
  /// The whole run's bound: past it the run stops and counts as failed.
  var timeout: Duration = .seconds(600)

  struct Outcome: Sendable {
    var name = ""
    var pairs = 0
    var hogs = 0
    var removed = false
    var seconds = 0.0
    var answeredOK = 0
    var answers = 0
    var found = 0
    var wrongOutcome = 0
    var falseMissed = 0
    var statusLost: Int?
    var statusState = ""
    var recreated = false
    var finishedInTime = false
    var daemonExited = false
    var activity: MachineActivity?
    /// The daemon's own CPU while the pairs went in, in cores.
    var daemonCores = 0.0
    /// The most writes `status` showed waiting in memory, sampled every 200 ms.
    var longestQueue = 0
    var notes: [String] = []

    var pairsPerSecond: Double { seconds > 0 ? Double(pairs) / seconds : 0 }

    var violations: Int {
      (pairs - found) + wrongOutcome + falseMissed + (statusLost ?? 1) + (2 * pairs - answeredOK)
        + (finishedInTime ? 0 : 1) + (removed && !recreated ? 1 : 0)
    }

    var json: JSONValue {
      .object([
        ("pairs", .int(pairs)), ("cpu_bound_processes", .int(hogs)), ("file_removed_mid_run", .bool(removed)),
        ("seconds", .number(seconds)), ("pairs_per_second", .number(pairsPerSecond)),
        ("answers", .int(answers)), ("answers_ok", .int(answeredOK)), ("calls_in_history", .int(found)),
        ("calls_missing", .int(pairs - found)), ("wrong_outcome", .int(wrongOutcome)),
        ("false_missed", .int(falseMissed)), ("status_lost", statusLost.map { .int($0) } ?? .string("no answer")),
        ("status_state", .string(statusState)), ("recreated", .bool(recreated)),
        ("finished_in_time", .bool(finishedInTime)), ("daemon_exited", .bool(daemonExited)),
        ("daemon_cpu_cores", .number(daemonCores)), ("longest_queue_seen", .int(longestQueue)),
        ("machine", activity?.json ?? .string("")), ("notes", .array(notes.prefix(20).map { .string($0) })),
      ])
    }

    func report(into table: inout ResultTable) {
      let rate = String(format: "%.0f pairs/s", pairsPerSecond)
      let machine = activity.map {
        String(
          format: "load %.2f → %.2f; the daemon %.2f cores, the rest of the machine %.2f", $0.start.load, $0.end.load,
          daemonCores, max(0, $0.otherCores - daemonCores))
      }
      table.add(
        "history \(name): \(pairs) pairs, \(hogs) CPU-bound beside",
        "\(String(format: "%.1f", seconds)) s, \(rate), longest queue \(longestQueue); \(machine ?? "")")
      table.add(
        "history \(name): calls missing / wrong outcome / false missed",
        "\(pairs - found) / \(wrongOutcome) / \(falseMissed)", target: "0 / 0 / 0")
      table.add(
        "history \(name): status lost, answers ok",
        "\(statusLost.map(String.init) ?? "no answer"), \(answeredOK) of \(2 * pairs)", target: "0, all")
      if removed { table.add("history \(name): file made again", recreated ? "yes" : "NO", target: "yes") }
    }
  }

  func run(name: String) async throws -> Outcome {
    guard FileManager.default.isExecutableFile(atPath: executable) else {
      throw BenchError("no executable at \(executable)")
    }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "callalert-history-load-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(
      at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    defer { try? FileManager.default.removeItem(at: directory) }
    let socket = directory.appendingPathComponent("control.sock").path
    let historyPath = directory.appendingPathComponent("state/history.sqlite").path
    let config = directory.appendingPathComponent("config.yaml").path
    try """
    boards:
      - name: desk
    missed_indicator: off
    socket:
      path: \(socket)
    history:
      path: \(historyPath)
    """.write(toFile: config, atomically: true, encoding: .utf8)

    var outcome = Outcome(name: name, pairs: pairs, hogs: hogs, removed: removeAfter != nil)
    let daemon = Process()
    daemon.executableURL = URL(fileURLWithPath: executable)
    daemon.arguments = ["run", "--simulate", "--config", config, "--history", historyPath, "--no-stdin", "--no-http"]
    daemon.standardInput = FileHandle.nullDevice
    daemon.standardOutput = FileHandle.nullDevice  // 200 000 event lines: nobody reads them here
    let logPath = directory.appendingPathComponent("daemon.log").path
    FileManager.default.createFile(atPath: logPath, contents: nil)
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

    let spinners = (0..<hogs).compactMap { _ in Self.spinner() }
    let before = MachineActivity.Sample.now()
    let daemonBefore = Self.cpuSeconds(of: daemon.processIdentifier)
    let started = ContinuousClock.now
    let sampling = ChaosClient.Run()
    let sampler = Task {
      var longest = 0
      while !sampling.isStopped {
        if let pending = await Self.historyHealth(socket: socket)?["pending"] as? Int {
          longest = max(longest, pending)
        }
        try? await Task.sleep(for: .milliseconds(200))  // a sample, not a wait for anything
      }
      return longest
    }
    var pairsOut = PipelinedPairs(socket: socket, pairs: pairs, window: window, timeout: timeout)
    if let removeAfter {
      pairsOut.beforePair = { pair in
        guard pair == removeAfter else { return }
        for file in [historyPath, historyPath + "-wal", historyPath + "-shm"] { unlink(file) }
      }
    }
    let sent = await pairsOut.send()
    sampling.stop()
    outcome.longestQueue = await sampler.value
    outcome.answers = sent.answers
    outcome.answeredOK = sent.ok
    outcome.finishedInTime = sent.inTime
    outcome.notes += sent.notes
    outcome.seconds = started.duration(to: .now).seconds
    for spinner in spinners { kill(spinner, SIGKILL) }
    for spinner in spinners { waitpid(spinner, nil, 0) }
    outcome.activity = MachineActivity(start: before, end: .now())
    outcome.daemonCores = (Self.cpuSeconds(of: daemon.processIdentifier) - daemonBefore) / max(outcome.seconds, 1e-9)

    // The file removed: noticed before the busy thread's next commit or within the daemon's 2 s check.
    let settled = ContinuousClock.now.advanced(by: .seconds(removeAfter == nil ? 0 : 10))
    repeat {
      guard let history = await Self.historyHealth(socket: socket) else {
        outcome.notes.append("status did not answer: " + logTail())
        break
      }
      outcome.statusLost = history["lost"] as? Int
      outcome.statusState = history["state"] as? String ?? ""
      outcome.recreated = history["recreated"] != nil
      if removeAfter == nil || outcome.recreated { break }
      try? await Task.sleep(for: .milliseconds(100))  // polling the daemon's own check, bounded by `settled`
    } while ContinuousClock.now < settled
    kill(daemon.processIdentifier, SIGTERM)
    let deadline = ContinuousClock.now.advanced(by: .seconds(60))
    while !exited.isStopped, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
    outcome.daemonExited = exited.isStopped
    if !outcome.daemonExited { outcome.notes.append("the daemon did not stop within 60 s: " + logTail()) }

    let rows = try CallHistory.reading(path: historyPath).calls(limit: 2 * pairs + 10)
    var seen = Set<String>()
    for row in rows where row.id.hasPrefix("load-") {
      seen.insert(row.id)
      if row.outcome != .hungUp { outcome.wrongOutcome += 1 }
      if row.missed { outcome.falseMissed += 1 }
    }
    outcome.found = seen.count
    if outcome.violations > 0 { outcome.notes.append("daemon log: " + logTail()) }
    return outcome
  }

  /// The `history` object of the daemon's `status`, or nil when it did not answer.
  static func historyHealth(socket: String) async -> [String: Any]? {
    guard let answer = await ChaosClient.request(#"{"type":"status"}"#, socket: socket),
      let object = try? JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any],
      let status = object["status"] as? [String: Any]
    else { return nil }
    return status["history"] as? [String: Any]
  }

  /// The CPU time (user and system) a running process used so far, from /proc; 0 when it cannot be read.
  static func cpuSeconds(of pid: pid_t) -> Double {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = text.lastIndex(of: ")")
    else { return 0 }
    // After "pid (comm) ": state is field 3, utime and stime are fields 14 and 15.
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
  }

  /// A CPU-bound child process (`sh` spinning); its PID, or nil when it cannot start.
  static func spinner() -> pid_t? {
    var pid: pid_t = 0
    let arguments = ["/bin/sh", "-c", "while :; do :; done"]
    var pointers: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { for pointer in pointers { free(pointer) } }
    guard posix_spawn(&pid, "/bin/sh", nil, nil, &pointers, environ) == 0 else { return nil }
    return pid
  }
}
