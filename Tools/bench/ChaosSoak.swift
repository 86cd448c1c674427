import CallAlertDaemon
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// `callalert run` as a child process, ringing a virtual board on a pseudo-terminal while everything around it
/// misbehaves at once, as it can:
/// - control clients that send requests with large answers and close before reading them (EPIPE, ECONNRESET);
/// - clients that send and never read (the daemon must drop them, not buffer without end);
/// - a burst of connections beyond the daemon's descriptor limit (it runs under `prlimit --nofile`);
/// - its standard output never read, then closed (a stalled, then broken `callalert run | ...`);
/// - its history on a full disk for the first half of the calls (a tmpfs filled up; as root only);
/// - a board that goes deaf and mute for longer than its lease mid-ring, then answers again.
///
/// Every call must ring, every capped call must end by its cap, every hangup must silence the board within the
/// lease, no call may be missing from the history once the disk has room again, and the daemon must be alive
/// at the end.
struct ChaosSoak {
  let calls: Int
  let executable: String
  /// The daemon's RLIMIT_NOFILE.
  var descriptorLimit = 64
  /// How long a deaf spell lasts: longer than the 3 s lease, so the board stops by itself and must be played
  /// again when it answers.
  static let deafMs = 4_000

  struct Outcome: Sendable {
    var calls = 0
    var neverRang = 0
    var overCap = 0
    var cappedCalls = 0
    var hangupsNotHonoured = 0
    var deafSpells = 0
    /// Deaf spells after which the board rang again for the call still ringing (the daemon re-sent its PLAY).
    var resumedAfterDeaf = 0
    var historyFound = 0
    var historyLost = 0
    var daemonAlive = false
    var fullDisk = false
    var closerConnections = 0
    var slowReaders = 0
    var slowReadersDropped = 0
    var burstConnections = 0
    var burstRefused = 0
    var callToRing: [Double] = []
    var hangupToSilence: [Double] = []
    var cappedRang: [Double] = []
    var seconds = 0.0
    var notes: [String] = []

    var violations: Int {
      neverRang + overCap + hangupsNotHonoured + historyLost + (deafSpells - resumedAfterDeaf) + (daemonAlive ? 0 : 1)
    }

    var json: JSONValue {
      .object([
        ("calls", .int(calls)), ("seconds", .number(seconds)), ("never_rang", .int(neverRang)),
        ("rings_over_cap", .int(overCap)), ("capped_calls", .int(cappedCalls)),
        ("hangups_not_honoured", .int(hangupsNotHonoured)), ("deaf_spells", .int(deafSpells)),
        ("resumed_after_deaf", .int(resumedAfterDeaf)), ("history_found", .int(historyFound)),
        ("calls_lost_from_history", .int(historyLost)), ("daemon_alive", .bool(daemonAlive)),
        ("full_disk_exercised", .bool(fullDisk)), ("closer_connections", .int(closerConnections)),
        ("slow_readers", .int(slowReaders)), ("slow_readers_dropped", .int(slowReadersDropped)),
        ("burst_connections", .int(burstConnections)), ("burst_refused", .int(burstRefused)),
        ("call_to_ring", Summary(callToRing).json(unit: "ms")),
        ("hangup_to_silence", Summary(hangupToSilence).json(unit: "ms")),
        ("capped_rang", Summary(cappedRang).json(unit: "ms")),
        ("notes", .array(notes.prefix(30).map { .string($0) })),
      ])
    }

    func report(into table: inout ResultTable) {
      table.add(
        "chaos soak: calls (capped, deaf spells)",
        "\(calls) (\(cappedCalls) capped, \(deafSpells) deaf) in \(Int(seconds)) s; full disk: "
          + (fullDisk ? "yes" : "no (not root)"))
      table.add(
        "chaos: clients (closing mid-answer / never reading, dropped / burst, refused)",
        "\(closerConnections) / \(slowReaders), \(slowReadersDropped) / \(burstConnections), \(burstRefused)")
      table.add("chaos: calls that never rang", "\(neverRang)", target: "0")
      table.add("chaos: rings over the cap", "\(overCap) of \(cappedCalls)", target: "0")
      table.add("chaos: hangups not honoured (> lease)", "\(hangupsNotHonoured)", target: "0")
      table.add("chaos: deaf board rang again", "\(resumedAfterDeaf) of \(deafSpells)", target: "all")
      table.add("chaos: calls lost from the history", "\(historyLost) (\(historyFound) found)", target: "0")
      table.add("chaos: daemon alive at the end", daemonAlive ? "yes" : "NO", target: "yes")
      table.add("chaos call → ring", BenchCommand.percentiles(Summary(callToRing)))
      table.add("chaos hangup → silence", BenchCommand.percentiles(Summary(hangupToSilence)))
    }
  }

  func run() async throws -> Outcome {
    guard FileManager.default.isExecutableFile(atPath: executable) else {
      throw BenchError("no executable at \(executable)")
    }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "callalert-chaos-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(
      at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    defer { try? FileManager.default.removeItem(at: directory) }
    let disk = SmallDisk(path: directory.appendingPathComponent("disk").path)
    defer { disk.unmount() }
    var outcome = Outcome()
    outcome.fullDisk = disk.mount(kilobytes: 16_384)

    let board = try ProbedBoard(serial: "VB-CHAOS", holdingSlave: true, deafenable: true)
    defer { Task { await board.stop() } }
    let socket = directory.appendingPathComponent("control.sock").path
    let config = directory.appendingPathComponent("config.yaml").path
    let historyPath = disk.path + "/history.sqlite"
    try """
    boards:
      - name: desk
        port: \(board.slavePath)
    patterns:
      default: DE
    missed_indicator: off
    socket:
      path: \(socket)
    history:
      path: \(historyPath)
    """.write(toFile: config, atomically: true, encoding: .utf8)

    let daemon = try ChildDaemon(
      arguments: [
        "--nofile=\(descriptorLimit)", "--", executable, "run", "--config", config, "--no-stdin",
      ],
      logPath: directory.appendingPathComponent("daemon.log").path)
    defer { daemon.stop() }
    guard await ChaosClient.waitForDaemon(socket: socket, timeout: .seconds(30)) else {
      outcome.notes.append("the daemon never answered on its socket: " + daemon.logTail())
      return outcome
    }
    if outcome.fullDisk { disk.fill() }

    let clock = ContinuousClock()
    let started = clock.now
    let chaos = ChaosClient.Run()
    let before = outcome
    outcome = await withTaskGroup(of: Outcome?.self) { group in
      for _ in 0..<2 {
        group.addTask {
          await ChaosClient.closeMidAnswer(socket: socket, run: chaos)
          return nil
        }
      }
      group.addTask {
        await ChaosClient.neverRead(socket: socket, run: chaos)
        return nil
      }
      group.addTask {
        await ChaosClient.burst(socket: socket, count: descriptorLimit + 16, run: chaos)
        return nil
      }
      group.addTask {
        defer { chaos.stop() }
        return await ringCalls(board: board, socket: socket, daemon: daemon, disk: disk, outcome: before)
      }
      var rung = before
      for await case let result? in group { rung = result }
      return rung
    }
    let totals = chaos.counters
    outcome.closerConnections = totals.closers
    outcome.slowReaders = totals.slowReaders
    outcome.slowReadersDropped = totals.slowReadersDropped
    outcome.burstConnections = totals.burst
    outcome.burstRefused = totals.burstRefused

    // The disk has room again: every call must reach the history.
    disk.free()
    let ids = Set((0..<calls).map { "chaos-\($0)" })
    let deadline = clock.now.advanced(by: .seconds(30))
    var lastRefusal: String?
    repeat {
      switch await ChaosClient.historyIDs(socket: socket, limit: calls + 50) {
      case .success(let found):
        outcome.historyFound = ids.intersection(found).count
        lastRefusal = nil
      case .failure(let refused):
        lastRefusal = refused.answer.map { String($0.prefix(300)) } ?? "no answer"
      }
      if outcome.historyFound == calls { break }
      try? await Task.sleep(for: .milliseconds(200))  // polling a disk-backed outcome, bounded by the deadline
    } while clock.now < deadline
    if let lastRefusal { outcome.notes.append("history: \(lastRefusal)") }
    outcome.historyLost = calls - outcome.historyFound
    let answers = await ChaosClient.status(socket: socket)
    outcome.daemonAlive = daemon.isRunning && answers
    if !outcome.daemonAlive { outcome.notes.append("daemon: " + daemon.logTail()) }
    outcome.seconds = started.duration(to: clock.now).milliseconds / 1_000
    return outcome
  }

  /// The calls, one after the other, each checked on the board.
  private func ringCalls(
    board: ProbedBoard, socket: String, daemon: ChildDaemon, disk: SmallDisk, outcome start: Outcome
  ) async -> Outcome {
    var outcome = start
    let clock = ContinuousClock()
    for index in 0..<calls {
      guard daemon.isRunning else {
        outcome.neverRang += calls - index
        outcome.notes.append("the daemon died before call \(index): " + daemon.logTail())
        break
      }
      if index > 0, index % 50 == 0 { progress("chaos: \(index) of \(calls) calls") }
      if index == calls / 4 { daemon.closeStandardOutput() }
      if index == calls / 2 { disk.free() }
      outcome.calls += 1
      if index % 10 == 5 {
        outcome.cappedCalls += 1
        await cappedCall(index, board: board, socket: socket, into: &outcome)
        continue
      }
      let mark = board.probe.mark
      let sent = clock.now
      guard await ChaosClient.send(#"{"type":"call","id":"chaos-\#(index)"}"#, socket: socket) else {
        outcome.neverRang += 1
        outcome.notes.append("call \(index): the daemon refused or never answered")
        continue
      }
      guard let rang = await board.probe.first(from: mark, timeout: .seconds(5), where: { $0.isPlaying }) else {
        outcome.neverRang += 1
        outcome.notes.append("call \(index): never rang")
        continue
      }
      outcome.callToRing.append(sent.duration(to: rang.at).milliseconds)
      if index % 40 == 20 {
        await deafSpell(index, board: board, daemon: daemon, into: &outcome)
      } else {
        try? await Task.sleep(for: .milliseconds(Int.random(in: 20...200)))  // the call rings a while
      }
      let hangupMark = board.probe.mark
      let hungUp = clock.now
      _ = await ChaosClient.send(#"{"type":"hangup","id":"chaos-\#(index)"}"#, socket: socket)
      let silent: BoardProbe.Record?
      if board.probe.records(from: mark).last?.isSilent == true {
        silent = board.probe.records(from: mark).last
      } else {
        silent = await board.probe.first(from: hangupMark, timeout: .seconds(10), where: { $0.isSilent })
      }
      guard let silent else {
        outcome.hangupsNotHonoured += 1
        outcome.notes.append("call \(index): rang on 10 s after its hangup")
        continue
      }
      let delay = max(0, hungUp.duration(to: silent.at).milliseconds)
      outcome.hangupToSilence.append(delay)
      if delay > Soak.leaseMs + Soak.timerToleranceMs {
        outcome.hangupsNotHonoured += 1
        outcome.notes.append(String(format: "call %d: silent %.0f ms after its hangup", index, delay))
      }
    }
    return outcome
  }

  /// A call sent 29.9 s after it started: it may ring 100 ms at most.
  private func cappedCall(_ index: Int, board: ProbedBoard, socket: String, into outcome: inout Outcome) async {
    let sentAt = UInt64(Date().timeIntervalSince1970 * 1_000) - 29_900
    let mark = board.probe.mark
    guard
      await ChaosClient.send(#"{"type":"call","id":"chaos-\#(index)","sent_at":\#(sentAt)}"#, socket: socket)
    else {
      outcome.neverRang += 1
      outcome.notes.append("capped call \(index): the daemon refused or never answered")
      return
    }
    guard let rang = await board.probe.first(from: mark, timeout: .seconds(5), where: { $0.isPlaying }) else {
      // 100 ms may be gone before the PLAY leaves on a loaded machine; the engine then records it missed.
      return
    }
    guard let silent = await board.probe.first(from: mark, timeout: .seconds(5), where: { $0.isSilent }) else {
      outcome.overCap += 1
      outcome.notes.append("capped call \(index): rang on 5 s after its cap")
      return
    }
    let rangMs = rang.at.duration(to: silent.at).milliseconds
    outcome.cappedRang.append(rangMs)
    if rangMs > Soak.cappedCallMs + Soak.capToleranceMs {
      outcome.overCap += 1
      outcome.notes.append(String(format: "capped call %d: rang %.0f ms", index, rangMs))
    }
  }

  /// The board goes deaf and mute for longer than its lease while the call rings: it stops by itself, and once
  /// it answers again the daemon must play the call again (it still has time left).
  private func deafSpell(_ index: Int, board: ProbedBoard, daemon: ChildDaemon, into outcome: inout Outcome) async {
    outcome.deafSpells += 1
    board.line?.deaf = true
    let mark = board.probe.mark
    let selfStopped = await board.probe.first(
      from: mark, timeout: .milliseconds(Self.deafMs), where: { $0.isSilent })
    try? await Task.sleep(for: .milliseconds(selfStopped == nil ? 0 : 200))
    board.line?.deaf = false
    if selfStopped == nil { outcome.notes.append("call \(index): the board's lease did not end the ring when deaf") }
    let back = board.probe.mark
    if await board.probe.first(from: back, timeout: .seconds(8), where: { $0.isPlaying }) != nil {
      outcome.resumedAfterDeaf += 1
    } else {
      outcome.notes.append("call \(index): not played again after the board answered again: " + daemon.logTail())
    }
  }
}

/// A small tmpfs for the history, so that it can be filled (root only; elsewhere a plain directory).
final class SmallDisk: Sendable {
  let path: String
  private let mounted = Mutex(false)

  init(path: String) {
    self.path = path
    try? FileManager.default.createDirectory(
      atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
  }

  /// Mounts a tmpfs of `kilobytes` at the path; false when that is not allowed here.
  func mount(kilobytes: Int) -> Bool {
    guard getuid() == 0 else { return false }
    let ok = ChildDaemon.runQuietly("/bin/mount", ["-t", "tmpfs", "-o", "size=\(kilobytes)k,mode=0700", "tmpfs", path])
    mounted.withLock { $0 = ok }
    return ok
  }

  /// Fills the disk to the last byte.
  func fill() {
    let fd = open(path + "/filler", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return }
    let block = [UInt8](repeating: 0, count: 4_096)
    while block.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
    close(fd)
  }

  /// Makes room again.
  func free() { unlink(path + "/filler") }

  func unmount() {
    if mounted.withLock({ $0 }) { _ = ChildDaemon.runQuietly("/bin/umount", ["-l", path]) }
  }
}

/// `prlimit ... callalert run ...` as a child: its standard output a pipe that nobody reads (and that can be
/// closed), its standard error a log file.
final class ChildDaemon: Sendable {
  private let process: Process
  private let output: Pipe
  private let logPath: String
  private let exited = ChaosClient.Run()

  init(arguments: [String], logPath: String) throws {
    process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
    process.arguments = arguments
    output = Pipe()
    process.standardOutput = output
    FileManager.default.createFile(atPath: logPath, contents: nil)
    self.logPath = logPath
    process.standardError = FileHandle(forWritingAtPath: logPath)
    process.standardInput = FileHandle.nullDevice
    let exited = self.exited
    process.terminationHandler = { _ in exited.stop() }
    try process.run()
  }

  var isRunning: Bool { !exited.isStopped }

  /// Closes the read end of the daemon's standard output: its next event line meets EPIPE.
  func closeStandardOutput() { try? output.fileHandleForReading.close() }

  /// The last lines the daemon logged.
  func logTail() -> String {
    let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").suffix(5).joined(separator: " | ")
  }

  /// SIGTERM, then SIGKILL after 10 s.
  func stop() {
    guard isRunning else { return }
    kill(process.processIdentifier, SIGTERM)
    for _ in 0..<100 where isRunning { usleep(100_000) }
    if isRunning { kill(process.processIdentifier, SIGKILL) }
  }

  /// Runs a short command to its end; whether it exited 0.
  static func runQuietly(_ path: String, _ arguments: [String]) -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    let done = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in done.signal() }
    guard (try? process.run()) != nil else { return false }
    guard done.wait(timeout: .now() + 10) == .success else {
      process.terminate()
      return false
    }
    return process.terminationStatus == 0
  }
}
