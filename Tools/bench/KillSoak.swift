import CallAlertDaemon
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `callalert run` killed with SIGKILL mid-ring, `runs` times: each run starts a fresh virtual board (in this
/// process, on a pseudo-terminal) and a daemon child process on it, sends a call over the control socket,
/// waits until it rings, waits a random 0-1.5 s (so the kill lands anywhere in the lease's renewal period),
/// kills the daemon and measures how long the board rings on. It must fall silent within its lease, 3 s.
struct KillSoak {
  let runs: Int
  let parallel: Int
  let executable: String

  struct Outcome: Sendable {
    var runs = 0
    /// Runs where the board was silent within the lease.
    var silentWithinLease = 0
    /// Runs that could not ring (the daemon did not start or connect).
    var didNotRing = 0
    /// From SIGKILL to silence, ms.
    var silenceDelays: [Double] = []
    var notes: [String] = []

    var json: JSONValue {
      .object([
        ("runs", .int(runs)), ("silent_within_lease", .int(silentWithinLease)), ("did_not_ring", .int(didNotRing)),
        ("lease_ms", .number(Soak.leaseMs)), ("kill_to_silence", Summary(silenceDelays).json(unit: "ms")),
        ("notes", .array(notes.prefix(20).map { .string($0) })),
      ])
    }

    func report(into table: inout ResultTable) {
      let summary = Summary(silenceDelays)
      table.add(
        "kill -9 mid-ring: silent within the 3 s lease", "\(silentWithinLease) of \(runs) (\(didNotRing) did not ring)",
        target: "all")
      table.add(
        "kill -9 → board silent", BenchCommand.percentiles(summary) + String(format: ", min %.1f ms", summary.min),
        target: "max ≤ 3000 ms")
    }
  }

  /// What one run gave: the delay from SIGKILL to silence, or why there was none.
  enum RunResult: Sendable {
    case silent(afterMs: Double)
    case rangOn(String)
    case didNotRing(String)
  }

  func run() async throws -> Outcome {
    guard FileManager.default.isExecutableFile(atPath: executable) else {
      throw BenchError("no executable at \(executable)")
    }
    var outcome = Outcome()
    var next = 0
    await withTaskGroup(of: (Int, RunResult).self) { group in
      func start(_ index: Int) {
        group.addTask { (index, await Self.once(index: index, executable: executable)) }
      }
      while next < min(parallel, runs) {
        start(next)
        next += 1
      }
      for await (index, result) in group {
        outcome.runs += 1
        switch result {
        case .silent(let delay):
          outcome.silenceDelays.append(delay)
          if delay <= Soak.leaseMs + Soak.timerToleranceMs {
            outcome.silentWithinLease += 1
          } else {
            outcome.notes.append(String(format: "run %d: silent after %.1f ms", index, delay))
          }
        case .rangOn(let why):
          outcome.notes.append("run \(index): \(why)")
        case .didNotRing(let why):
          outcome.didNotRing += 1
          outcome.notes.append("run \(index): \(why)")
        }
        if outcome.runs % 10 == 0 { progress("kill -9: \(outcome.runs) of \(runs) runs") }
        if next < runs {
          start(next)
          next += 1
        }
      }
    }
    return outcome
  }

  private static func once(index: Int, executable: String) async -> RunResult {
    let board: ProbedBoard
    do { board = try ProbedBoard(serial: "VB-K\(index)", holdingSlave: true) } catch {
      return .didNotRing("board: \(error)")
    }
    let result = await once(index: index, executable: executable, board: board)
    await board.stop()
    return result
  }

  private static func once(index: Int, executable: String, board: ProbedBoard) async -> RunResult {
    let files: BenchDaemonFiles
    do { files = try BenchDaemonFiles(prefix: "callalert-kill-\(index)") } catch {
      return .didNotRing("config: \(error)")
    }
    defer { files.remove() }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = files.runArguments(port: board.slavePath)
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    let exit: ChildExit
    do { exit = try ChildExit(starting: process) } catch { return .didNotRing("spawn: \(error)") }
    let result = await ringAndKill(index: index, pid: exit.pid, socket: files.socket, board: board)
    if !exit.hasExited { kill(exit.pid, SIGKILL) }
    if await exit.wait(upTo: .seconds(10)) == nil {
      return .rangOn("the daemon (pid \(exit.pid)) did not exit within 10 s of SIGKILL")
    }
    return result
  }

  /// Rings the board through the daemon `pid`, kills it mid-ring and measures until the board is silent.
  private static func ringAndKill(index: Int, pid: pid_t, socket: String, board: ProbedBoard) async -> RunResult {
    // The socket appears when the daemon is up; the call rings once it has connected to the board.
    let clock = ContinuousClock()
    let startDeadline = clock.now.advanced(by: .seconds(20))
    let mark = board.probe.mark
    var sent = false
    while !sent && clock.now < startDeadline {
      if (try? await ControlSocketClient.request(#"{"type":"call","id":"kill-\#(index)"}"#, path: socket)) != nil {
        sent = true
      } else {
        try? await Task.sleep(for: .milliseconds(20))
      }
    }
    guard sent else { return .didNotRing("the daemon's control socket never answered") }
    guard await board.probe.first(from: mark, timeout: .seconds(20), where: { $0.isPlaying }) != nil else {
      return .didNotRing("the call never rang")
    }
    try? await Task.sleep(for: .milliseconds(Int.random(in: 0...1_500)))
    let killMark = board.probe.mark
    let killed = clock.now
    kill(pid, SIGKILL)
    guard let silence = await board.probe.first(from: killMark, timeout: .seconds(10), where: { $0.isSilent }) else {
      return .rangOn("still ringing 10 s after kill -9")
    }
    return .silent(afterMs: killed.duration(to: silence.at).milliseconds)
  }
}
