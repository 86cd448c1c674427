import CallAlertDaemon
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `callalert run` as a process of its own on one probed board (a virtual board in this process, behind a
/// pseudo-terminal), optionally under a tool that wraps it (valgrind): the figures per request count the
/// daemon's process alone, not the bench's client or the board.
final class DaemonProcess: Sendable {
  /// The daemon's process id (valgrind runs its tool in the process it was started as, so this is the daemon's).
  let pid: pid_t
  /// The control socket.
  let socket: String
  /// The board the daemon drives.
  let board: ProbedBoard
  private let exit: ChildExit
  private let files: BenchDaemonFiles

  /// Writes a config (the built-in "DE" cadence, no missed-call indicator, history in a temporary directory),
  /// starts `wrapper + [executable, "run", ...]` on a fresh board and waits up to `startLimit` until its control
  /// socket answers.
  init(executable: String, wrapper: [String] = [], label: String, startLimit: Duration) async throws(BenchError) {
    guard FileManager.default.isExecutableFile(atPath: executable) else {
      throw BenchError(
        "no callalert executable at \(executable) (swift build -c release --scratch-path .build-bench "
          + "--product callalert, or --callalert PATH)")
    }
    let files: BenchDaemonFiles
    let board: ProbedBoard
    do {
      files = try BenchDaemonFiles(prefix: "callalert-bench-\(label)")
      board = try ProbedBoard(serial: "VB-P0001")
    } catch {
      throw BenchError("\(label): \(error)")
    }
    let process = Process()
    let command = wrapper + [executable] + files.runArguments(port: board.slavePath)
    process.executableURL = URL(fileURLWithPath: command[0])
    process.arguments = Array(command.dropFirst())
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    let exit: ChildExit
    do { exit = try ChildExit(starting: process) } catch {
      await board.stop()
      files.remove()
      throw BenchError("\(label): cannot start \(command[0]): \(error)")
    }
    let socket = files.socket
    (self.pid, self.socket, self.board, self.exit, self.files) = (exit.pid, socket, board, exit, files)
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: startLimit)
    while (try? ControlSocketClient.requestBlocking(#"{"type":"status"}"#, path: socket)) == nil {
      guard clock.now < deadline, !exit.hasExited else {
        await stop()
        throw BenchError("\(label): the daemon's control socket did not answer within \(startLimit)")
      }
      try? await Task.sleep(for: .milliseconds(50))
    }
  }

  /// Sends SIGTERM (valgrind then writes its last output), waits up to `limit`, kills it if it is still there,
  /// and stops the board.
  func stop(limit: Duration = .seconds(60)) async {
    if !exit.hasExited { kill(pid, SIGTERM) }
    _ = await exit.waitOrKill(after: limit)
    await board.stop()
    files.remove()
  }

  /// Which kind of request a pair's step was.
  enum Request: Sendable {
    case call
    case hangup
  }

  /// Sends `pairs` call/hangup pairs, each on a fresh connection, blocking the calling thread (run it with
  /// ``onThread(_:)``): after each call it waits for the board's first alerting actuator change, after each hangup
  /// for silence and the host's acknowledgement of the board's PLAY_ENDED, then for the daemon to be idle again
  /// (``waitUntilIdle(limit:)``), so that one request's work is done before `after` runs and the next is sent.
  /// The number of pairs that did not complete within 5 s per step (the series goes on).
  func pairs(
    _ pairs: Int, label: String, after: (Request) -> Void = { _ in }
  ) -> Int {
    var failures = 0
    for index in 0..<pairs {
      if index % 100 == 0 { board.probe.clear() }
      let id = "\(label)-\(index)"
      let mark = board.probe.mark
      if (try? ControlSocketClient.requestBlocking(#"{"type":"call","id":"\#(id)"}"#, path: socket)) == nil
        || !BoardProbe.waitForAll([(board.probe, mark)], where: { $0.isAlerting })
      {
        failures += 1
      }
      waitUntilIdle()
      after(.call)
      let hangupMark = board.probe.mark
      if (try? ControlSocketClient.requestBlocking(#"{"type":"hangup","id":"\#(id)"}"#, path: socket)) == nil
        || !BoardProbe.waitForAll([(board.probe, hangupMark)], where: { $0.isSilent })
        || !BoardProbe.waitForAll([(board.probe, hangupMark)], where: { $0.isEventsAcknowledged })
      {
        failures += 1
      }
      waitUntilIdle()
      after(.hangup)
    }
    return failures
  }

  /// Blocks until no thread of the daemon is runnable in two readings in a row (its answers to the board and its
  /// bookkeeping after a request are done), or `limit` passed.
  func waitUntilIdle(limit: Duration = .seconds(2)) {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: limit)
    var quietReadings = 0
    while quietReadings < 2 && clock.now < deadline {
      quietReadings = Self.anyThreadRunnable(pid) ? 0 : quietReadings + 1
      usleep(200)
    }
  }

  /// Whether a thread of `pid` is running or runnable (state R in /proc/PID/task/TID/stat).
  static func anyThreadRunnable(_ pid: pid_t) -> Bool {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    for task in tasks {
      guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
      else { continue }
      // The state follows the command name, which is in parentheses and may hold spaces.
      let state = stat[stat.index(after: close)...].drop { $0 == " " }.first
      if state == "R" { return true }
    }
    return false
  }

  /// Context switches (voluntary and not) of every thread of the daemon so far, from /proc.
  var contextSwitches: Int {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    var total = 0
    for task in tasks {
      let status = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)) ?? ""
      for line in status.split(separator: "\n") where line.contains("ctxt_switches:") {
        total += Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
      }
    }
    return total
  }
}
