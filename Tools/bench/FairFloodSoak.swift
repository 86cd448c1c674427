import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// One source flooded while another rings: `callalert run --simulate` as a child process, subscribed to a
/// mosquitto broker of its own, takes `rate` MQTT calls a second for `seconds` (each on its own topic, at QoS
/// 0, from ``MQTTPublisher``) while a local caller on the control socket rings and hangs up a call every
/// `spacing`. The same local calls were first timed on the quiet daemon. Every flood call must be accounted
/// for, either rung (MQTT's share of the budget) or refused, every local call must ring, and the flooded
/// local calls' p99 must stay within 50 ms of the quiet p99 (the issue's "within 50 ms of the quiet
/// baseline").
struct FairFloodSoak {
  let executable: String
  /// MQTT calls a second during the flood.
  var rate = 10_000
  /// How long the flood lasts.
  var seconds = 5
  /// The time between two local calls, quiet and flooded.
  var spacing: Duration = .milliseconds(50)
  /// MQTT's share of the call budget (AlertEngine.maximumActiveCallsPerSource).
  var share = 32
  /// How much slower the flooded local calls' p99 may be than the quiet one's.
  static let allowedSlowdownMs = 50.0

  struct Outcome: Sendable {
    var rate = 0
    var seconds = 0
    var published = 0
    var publishSeconds = 0.0
    var rang = 0
    var refused = 0
    var quiet: [Double] = []
    var flooded: [Double] = []
    var localNotRinging = 0
    var refusedInHistory = 0
    var historyRefusedRows = 0
    var daemonCores = 0.0
    var activity: MachineActivity?
    var notes: [String] = []

    var unaccounted: Int { max(0, published - rang - refused) }
    var slowdownMs: Double { Summary(flooded).p99 - Summary(quiet).p99 }

    var violations: Int {
      localNotRinging + unaccounted + (slowdownMs > FairFloodSoak.allowedSlowdownMs ? 1 : 0)
        + (flooded.isEmpty || quiet.isEmpty ? 1 : 0) + (refused > 0 && refusedInHistory != refused ? 1 : 0)
    }

    var json: JSONValue {
      .object([
        ("mqtt_rate_asked", .int(rate)), ("mqtt_seconds", .int(seconds)), ("mqtt_published", .int(published)),
        ("mqtt_rate_reached", .number(publishSeconds > 0 ? Double(published) / publishSeconds : 0)),
        ("mqtt_rang", .int(rang)), ("mqtt_refused", .int(refused)), ("mqtt_unaccounted", .int(unaccounted)),
        ("history_refused_rows", .int(historyRefusedRows)), ("history_refused_count", .int(refusedInHistory)),
        ("local_quiet", Summary(quiet).json(unit: "ms")), ("local_flooded", Summary(flooded).json(unit: "ms")),
        ("local_not_ringing", .int(localNotRinging)), ("p99_slowdown_ms", .number(slowdownMs)),
        ("daemon_cpu_cores", .number(daemonCores)), ("machine", activity?.json ?? .string("")),
        ("notes", .array(notes.prefix(20).map { .string($0) })),
      ])
    }

    func report(into table: inout ResultTable) {
      func figure(_ summary: Summary) -> String {
        String(
          format: "p50 %.2f / p99 %.2f / max %.2f ms (%d calls)", summary.p50, summary.p99, summary.max, summary.count)
      }
      let machine = activity.map {
        String(format: "load %.2f → %.2f, the daemon %.2f cores", $0.start.load, $0.end.load, daemonCores)
      }
      table.add(
        "fair budget: MQTT flood",
        String(
          format: "%d calls in %.1f s (%.0f/s asked); %@", published, publishSeconds, Double(rate), machine ?? ""))
      table.add(
        "fair budget: MQTT calls rang / refused / unaccounted", "\(rang) / \(refused) / \(unaccounted)",
        target: "share / rest / 0")
      table.add(
        "fair budget: refusals in the history", "\(refusedInHistory) in \(historyRefusedRows) rows",
        target: "\(refused)")
      table.add("fair budget: local call -> ringing, quiet", figure(Summary(quiet)))
      table.add("fair budget: local call -> ringing, MQTT flooded", figure(Summary(flooded)))
      table.add(
        "fair budget: flooded p99 - quiet p99, local calls not ringing",
        String(format: "%.2f ms, %d", slowdownMs, localNotRinging), target: "≤ 50 ms, 0")
    }
  }

  func run() async throws -> Outcome {
    guard FileManager.default.isExecutableFile(atPath: executable) else {
      throw BenchError("no executable at \(executable)")
    }
    guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/mosquitto") else {
      throw BenchError("the fair-budget run needs mosquitto (apt-get install mosquitto; make test installs it)")
    }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "callalert-fair-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(
      at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    defer { try? FileManager.default.removeItem(at: directory) }
    var outcome = Outcome(rate: rate, seconds: seconds)

    // The broker keeps everything it is sent for the daemon (no queue limit), so that what the daemon never
    // saw is the daemon's loss, not the broker's.
    let port = try Self.freePort()
    let brokerConfig = directory.appendingPathComponent("mosquitto.conf").path
    try """
    listener \(port) 127.0.0.1
    allow_anonymous true
    max_queued_messages 0
    \(getuid() == 0 ? "user root" : "")
    """.write(toFile: brokerConfig, atomically: true, encoding: .utf8)
    let broker = try Self.spawn(
      "/usr/sbin/mosquitto", ["-c", brokerConfig], output: directory.appendingPathComponent("broker.log").path)
    defer { broker.stop() }

    let socket = directory.appendingPathComponent("control.sock").path
    let config = directory.appendingPathComponent("config.yaml").path
    try """
    boards:
      - name: desk
    missed_indicator: off
    socket:
      path: \(socket)
    history:
      path: \(directory.appendingPathComponent("history.sqlite").path)
    mqtt:
      broker: mqtt://127.0.0.1:\(port)
      node_id: fair
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let eventsPath = directory.appendingPathComponent("events.jsonl").path
    let daemon = try Self.spawn(
      executable, ["run", "--simulate", "--config", config, "--no-stdin"], output: eventsPath,
      error: directory.appendingPathComponent("daemon.log").path)
    defer { daemon.stop() }
    guard await ChaosClient.waitForDaemon(socket: socket, timeout: .seconds(30)) else {
      outcome.notes.append("the daemon never answered on its socket")
      return outcome
    }
    let publisher = try MQTTPublisher(port: port, clientID: "callalert-fair-flood")
    // The daemon subscribed once a call published now rings (it may still be connecting to the broker).
    var subscribed = false
    for attempt in 0..<150 where !subscribed {
      publisher.send(
        MQTTPublisher.publish(
          topic: "callalert/calls/probe-\(attempt)", payload: #"{"type":"call","id":"probe-\#(attempt)"}"#))
      try? await Task.sleep(for: .milliseconds(200))  // polling the daemon's events, bounded by the attempts
      subscribed = Self.events(eventsPath).contains { $0.contains(#""event":"ringing""#) }
    }
    guard subscribed else {
      outcome.notes.append("no MQTT call rang within 30 s: the daemon never subscribed")
      return outcome
    }
    // The probes hang up, so that the flood meets MQTT's whole share free.
    for attempt in 0..<150 {
      publisher.send(
        MQTTPublisher.publish(
          topic: "callalert/calls/probe-\(attempt)", payload: #"{"type":"hangup","id":"probe-\#(attempt)"}"#))
    }

    // The quiet baseline: the same local calls, the same spacing, with nothing else coming.
    let local = LocalCaller(socket: socket, spacing: spacing)
    let quietCount = max(20, Int(Double(seconds) * 1_000 / spacing.milliseconds))
    let quiet = await local.calls(prefix: "quiet", count: quietCount)
    outcome.quiet = quiet.latencies
    outcome.localNotRinging += quiet.notRinging

    let before = MachineActivity.Sample.now()
    let daemonBefore = HistoryLoadSoak.cpuSeconds(of: daemon.pid)
    let flooding = ChaosClient.Run()
    let rate = self.rate
    let seconds = self.seconds
    let flood = Task { [publisher] in
      await onThread { () -> (Int, Double) in
        defer { flooding.stop() }
        return Self.flood(publisher, rate: rate, seconds: seconds)
      }
    }
    let flooded = await local.calls(prefix: "local", while: flooding)
    (outcome.published, outcome.publishSeconds) = await flood.value
    publisher.disconnect()
    outcome.flooded = flooded.latencies
    outcome.localNotRinging += flooded.notRinging
    outcome.activity = MachineActivity(start: before, end: .now())
    outcome.daemonCores =
      (HistoryLoadSoak.cpuSeconds(of: daemon.pid) - daemonBefore) / max(outcome.publishSeconds, 1e-9)

    // Every flood call rings or is refused; the broker may still be handing the last ones over.
    let settled = ContinuousClock.now.advanced(by: .seconds(60))
    repeat {
      (outcome.rang, outcome.refused) = Self.floodOutcomes(eventsPath)
      if outcome.rang + outcome.refused >= outcome.published { break }
      try? await Task.sleep(for: .milliseconds(200))  // polling the events file, bounded by `settled`
    } while ContinuousClock.now < settled
    // The refusals after the first are summed and recorded when their minute ends.
    let summed = ContinuousClock.now.advanced(by: .seconds(75))
    repeat {
      (outcome.refusedInHistory, outcome.historyRefusedRows) = await Self.refusedInHistory(socket: socket)
      if outcome.refusedInHistory >= outcome.refused { break }
      try? await Task.sleep(for: .milliseconds(500))  // polling the history, bounded by `summed`
    } while ContinuousClock.now < summed
    if outcome.violations > 0 { outcome.notes.append("daemon log: " + daemon.logTail()) }
    return outcome
  }

  /// Publishes `rate` calls a second for `seconds`, in 1 ms batches; how many went out and in how long.
  private static func flood(_ publisher: MQTTPublisher, rate: Int, seconds: Int) -> (Int, Double) {
    let clock = ContinuousClock()
    let start = clock.now
    let total = rate * seconds
    var published = 0
    while published < total {
      // As many as are due by now, so that a slow write is caught up rather than lowering the rate.
      let due = min(total, Int(Double(rate) * (clock.now - start).milliseconds / 1_000) + 1)
      var batch: [UInt8] = []
      while published < due {
        batch += MQTTPublisher.publish(
          topic: "callalert/calls/flood-\(published)",
          payload: #"{"type":"call","id":"flood-\#(published)","caller":"+4930123456"}"#)
        published += 1
      }
      if !batch.isEmpty, !publisher.send(batch) { break }
      usleep(1_000)  // pacing the publisher, not waiting for anything
    }
    return (published, (clock.now - start).milliseconds / 1_000)
  }

  /// The daemon's event lines so far.
  private static func events(_ path: String) -> [Substring] {
    ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n")
  }

  /// Flood calls that rang (each id once) and that were refused.
  private static func floodOutcomes(_ path: String) -> (rang: Int, refused: Int) {
    var rang = Set<Substring>()
    var refused = Set<Substring>()
    for line in events(path) {
      guard let idStart = line.range(of: #""id":"flood-"#) else { continue }
      let rest = line[idStart.upperBound...]
      let id = rest.prefix { $0 != "\"" }
      if line.contains(#""event":"ringing""#) {
        rang.insert(id)
      } else if line.contains(#""event":"ignored""#), line.contains("too-many-calls") {
        refused.insert(id)
      }
    }
    return (rang.count, refused.count)
  }

  /// The refusals the history holds for MQTT: their sum and the rows they are summed in.
  private static func refusedInHistory(socket: String) async -> (count: Int, rows: Int) {
    guard let answer = await ChaosClient.request(#"{"type":"history","limit":1000}"#, socket: socket),
      let object = try? JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any],
      let calls = object["calls"] as? [[String: Any]]
    else { return (0, 0) }
    var count = 0
    var rows = 0
    for call in calls where (call["id"] as? String)?.hasPrefix("refused:mqtt:") == true {
      rows += 1
      // The reason reads "too-many-calls: 523 calls from mqtt".
      let reason = call["reason"] as? String ?? ""
      let number = reason.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
      count += number
    }
    return (count, rows)
  }

  /// A TCP port on 127.0.0.1 that was free a moment ago (the broker is the only other user here).
  private static func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
      }
    }
    guard bound else { throw BenchError("no free port: \(String(cString: strerror(errno)))") }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  /// A child process whose standard output (and error, unless given) go to files.
  private static func spawn(
    _ path: String, _ arguments: [String], output: String, error: String? = nil
  ) throws
    -> SoakChild
  {
    try SoakChild(path: path, arguments: arguments, output: output, error: error ?? output)
  }
}

/// A local caller on the control socket: a call, its time to the "ringing" answer, then its hangup.
private struct LocalCaller {
  let socket: String
  let spacing: Duration

  struct Series {
    var latencies: [Double] = []
    var notRinging = 0
  }

  func calls(prefix: String, count: Int) async -> Series {
    var series = Series()
    for index in 0..<count { await call("\(prefix)-\(index)", into: &series) }
    return series
  }

  func calls(prefix: String, while running: ChaosClient.Run) async -> Series {
    var series = Series()
    var index = 0
    while !running.isStopped {
      await call("\(prefix)-\(index)", into: &series)
      index += 1
    }
    return series
  }

  private func call(_ id: String, into series: inout Series) async {
    let clock = ContinuousClock()
    let start = clock.now
    let answer = await ChaosClient.request(#"{"type":"call","id":"\#(id)","caller":"+4940111"}"#, socket: socket)
    let latency = (clock.now - start).milliseconds
    if answer?.contains(#""outcome":"ringing""#) == true {
      series.latencies.append(latency)
    } else {
      series.notRinging += 1
    }
    _ = await ChaosClient.request(#"{"type":"hangup","id":"\#(id)"}"#, socket: socket)
    try? await Task.sleep(for: spacing)  // the caller's cadence, not a wait for anything
  }
}

/// A child process of the soak with its output in files; stopped with SIGTERM, then SIGKILL.
final class SoakChild: Sendable {
  private let process: Process
  private let errorPath: String
  private let exited = ChaosClient.Run()

  init(path: String, arguments: [String], output: String, error: String) throws {
    process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.standardInput = FileHandle.nullDevice
    _ = FileManager.default.createFile(atPath: output, contents: nil)
    process.standardOutput = FileHandle(forWritingAtPath: output)
    if error != output { _ = FileManager.default.createFile(atPath: error, contents: nil) }
    process.standardError = error == output ? process.standardOutput : FileHandle(forWritingAtPath: error)
    errorPath = error
    let exited = self.exited
    process.terminationHandler = { _ in exited.stop() }
    try process.run()
  }

  var pid: pid_t { process.processIdentifier }

  /// The last lines of its standard error.
  func logTail() -> String {
    let text = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").suffix(5).joined(separator: " | ")
  }

  /// SIGTERM, then SIGKILL after 10 s.
  func stop() {
    guard !exited.isStopped else { return }
    kill(process.processIdentifier, SIGTERM)
    for _ in 0..<100 where !exited.isStopped { usleep(100_000) }
    if !exited.isStopped { kill(process.processIdentifier, SIGKILL) }
  }
}
