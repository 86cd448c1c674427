import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// System calls and context switches of a running process, counted by the kernel's tracepoints through
/// `perf stat` (raw_syscalls:sys_enter, sched:sched_switch): exact counts, whatever the machine's speed. perf
/// attaches to the process started but disabled and is enabled and disabled through its control FIFOs, so the
/// counts hold exactly the series between the two.
final class PerfCounters {
  /// The events counted.
  static let events = ["raw_syscalls:sys_enter", "sched:sched_switch"]

  private let pid: pid_t
  private let directory: String
  private let control: CInt
  private let acknowledgement: CInt
  private let output: String

  /// Attaches `perf stat` to every thread of `pid`, counting nothing until ``enable()``; why not, when perf, its
  /// `--control` option or the tracepoints are missing (kernel.perf_event_paranoid, no tracefs).
  init(pid: pid_t) throws(BenchError) {
    guard let perf = which("perf") else {
      throw BenchError("perf is not installed (apt-get install linux-perf)")
    }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "callalert-perf-\(UUID().uuidString.prefix(8))"
    ).path
    let control = directory + "/control"
    let acknowledgement = directory + "/ack"
    output = directory + "/counts"
    guard (try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)) != nil,
      mkfifo(control, 0o600) == 0, mkfifo(acknowledgement, 0o600) == 0
    else {
      throw BenchError("perf: cannot make its control FIFOs in \(directory)")
    }
    // Read and write, so that opening does not wait for perf to open the other end.
    self.control = open(control, O_RDWR | O_CLOEXEC)
    self.acknowledgement = open(acknowledgement, O_RDWR | O_CLOEXEC)
    (self.pid, self.directory) = (pid, directory)
    let status = runInBackground(
      [
        perf, "stat", "--per-thread", "-x", ",", "-o", output, "-e", Self.events.joined(separator: ","), "-D", "-1",
        "--control", "fifo:\(control),\(acknowledgement)", "-p", "\(pid)",
      ], errorsTo: directory + "/errors")
    guard let status else { throw BenchError("perf: could not start") }
    perfPID = status
    // perf answers its first command once it is attached: a bounded check that it came up at all.
    guard command("disable") else {
      kill(perfPID, SIGKILL)
      waitpid(perfPID, nil, 0)
      throw BenchError("perf stat did not attach (\(Self.failure(directory + "/errors")))")
    }
  }

  private var perfPID: pid_t = 0

  /// Starts counting.
  func enable() -> Bool { command("enable") }

  /// Stops counting.
  func disable() -> Bool { command("disable") }

  /// Ends perf and reads its counts: each event's total over the daemon's threads, and per thread (named
  /// `comm-tid`).
  func finish() -> (totals: [String: Int], byThread: [String: [String: Int]])? {
    kill(perfPID, SIGINT)
    // perf writes its counts as it exits; bounded, then killed (and the counts are missing).
    var status: Int32 = 0
    var waited = 0
    while waitpid(perfPID, &status, WNOHANG) == 0 {
      if waited == 10_000 { kill(perfPID, SIGKILL) }
      usleep(1_000)
      waited += 1
    }
    close(control)
    close(acknowledgement)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    guard let text = try? String(contentsOfFile: output, encoding: .utf8) else { return nil }
    var totals: [String: Int] = [:]
    var byThread: [String: [String: Int]] = [:]
    // --per-thread -x ,: "comm-tid,count,unit,event,..." (a count may read "<not counted>").
    for line in text.split(separator: "\n") where !line.hasPrefix("#") {
      let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      guard fields.count >= 4, let count = Int(fields[1]), Self.events.contains(fields[3]) else { continue }
      totals[fields[3], default: 0] += count
      byThread[fields[0], default: [:]][fields[3], default: 0] += count
    }
    return totals.isEmpty ? nil : (totals, byThread)
  }

  /// Writes a command to perf's control FIFO and waits up to 10 s for its "ack".
  private func command(_ line: String) -> Bool {
    let bytes = Array((line + "\n").utf8)
    guard write(control, bytes, bytes.count) == bytes.count else { return false }
    var poller = pollfd(fd: acknowledgement, events: Int16(POLLIN), revents: 0)
    guard poll(&poller, 1, 10_000) == 1 else { return false }
    var answer = [UInt8](repeating: 0, count: 16)
    return read(acknowledgement, &answer, answer.count) > 0
  }

  /// The first lines of perf's output, which say why it failed.
  private static func failure(_ output: String) -> String {
    let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    let said = text.split(separator: "\n").prefix(3).joined(separator: " ")
    return said.isEmpty ? "no output; kernel.perf_event_paranoid or tracefs may forbid the tracepoints" : said
  }
}
