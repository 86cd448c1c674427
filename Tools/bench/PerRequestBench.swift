import CallAlertDaemon
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Figures per request that hold on any machine: `callalert run` as a process of its own on one board, a client
/// sending call and hangup on a fresh connection each and waiting until each request's work is done; counted over
/// a fixed series, the daemon's system calls and context switches (perf tracepoints) and its user-space
/// instructions (callgrind), beside the C floor's server thread.
enum PerRequestBench {
  /// The daemon's instructions per request the issue aims at.
  static let targetInstructionsPerRequest = 150_000

  /// What perf counted over the series, or why it could not.
  enum PerfFigures: Sendable {
    case measured(syscalls: Int, contextSwitches: Int, requests: Int, byThread: [String: [String: Int]])
    case skipped(String)

    var json: JSONValue {
      switch self {
      case .measured(let syscalls, let switches, let requests, let byThread):
        return .object([
          ("syscalls", .int(syscalls)), ("context_switches", .int(switches)),
          ("syscalls_per_request", .number(Double(syscalls) / Double(requests))),
          ("context_switches_per_request", .number(Double(switches) / Double(requests))),
          (
            "by_thread",
            .object(
              byThread.sorted { $0.key < $1.key }.map { thread, counts in
                (thread, .object(counts.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) }))
              })
          ),
        ])
      case .skipped(let why): return .string("not measured: \(why)")
      }
    }
  }

  /// What callgrind counted, or why it could not.
  struct CallgrindFigures: Sendable {
    /// valgrind's version.
    let valgrind: String
    /// Instructions per request over the first series (one dump for the whole series).
    let seriesOnePerRequest: Double
    /// Instructions per request over the second series, the same as the first (one dump for the whole series).
    let seriesTwoPerRequest: Double
    /// Instructions of each call of the third series (up to 50 pairs, a dump after each request).
    let call: Summary
    /// Instructions of each hangup of the third series.
    let hangup: Summary
    /// The daemon's own instructions per second, idle and while a call rings (its timers), under callgrind.
    let idlePerSecond: Double?
    let ringingPerSecond: Double?
    /// The C floor's server thread (accept, read, write into the pty, close) per call; nil when it did not run.
    let floorServerPerCall: Double?
    /// The whole C floor process (client, board and server threads) per call.
    let floorProcessPerCall: Double?
    /// Where the dumps were left for `callgrind_annotate`; nil when they were removed.
    let kept: String?
    /// The first series' dump (in ``kept``).
    let seriesOneDump: String?
    /// The functions with the most instructions of their own in the first series, per request, demangled.
    let topSelfCost: [(function: String, perRequest: Double)]

    /// A call and a hangup's mean, over the first series.
    var perRequest: Double { seriesOnePerRequest }

    /// How far the two series' means differ, relative to the first.
    var repeatDifference: Double { (seriesTwoPerRequest - seriesOnePerRequest) / seriesOnePerRequest }

    var json: JSONValue {
      var members: [(String, JSONValue)] = [
        ("valgrind", .string(valgrind)), ("ir_per_request", .number(perRequest)),
        ("series_1_ir_per_request", .number(seriesOnePerRequest)),
        ("series_2_ir_per_request", .number(seriesTwoPerRequest)),
        ("series_difference", .number(repeatDifference)),
        ("call", call.json(unit: "ir")), ("hangup", hangup.json(unit: "ir")),
        ("split_ir_per_request", .number((call.mean + hangup.mean) / 2)),
        ("idle_ir_per_s", idlePerSecond.map { .number($0) } ?? .null),
        ("ringing_ir_per_s", ringingPerSecond.map { .number($0) } ?? .null),
        ("target_ir_per_request", .int(PerRequestBench.targetInstructionsPerRequest)),
      ]
      if let floorServerPerCall, let floorProcessPerCall {
        members += [
          ("floor_server_thread_ir_per_call", .number(floorServerPerCall)),
          ("floor_process_ir_per_call", .number(floorProcessPerCall)),
          ("daemon_over_floor_server", .number(perRequest / floorServerPerCall)),
        ]
      }
      members.append(
        (
          "top_self_ir_per_request",
          .array(
            topSelfCost.map {
              .object([("function", .string($0.function)), ("ir_per_request", .number($0.perRequest))])
            })
        ))
      if let kept { members.append(("kept_in", .string(kept))) }
      if let seriesOneDump { members.append(("series_1_dump", .string(seriesOneDump))) }
      return .object(members)
    }
  }

  /// Everything the section measured.
  struct Figures: Sendable {
    let pairs: Int
    let warmUpPairs: Int
    let perf: PerfFigures
    /// Context switches of the daemon's threads per request, from /proc (always there).
    let procContextSwitchesPerRequest: Double?
    /// The daemon process's CPU time per request from /proc (clock ticks: coarse, machine-dependent).
    let daemonCPUMsPerRequest: Double?
    /// Pairs that did not complete in the native run.
    let failures: Int
    let callgrind: Result<CallgrindFigures, BenchError>

    var json: JSONValue {
      var members: [(String, JSONValue)] = [
        ("pairs", .int(pairs)), ("requests", .int(2 * pairs)), ("warm_up_pairs", .int(warmUpPairs)),
        ("perf", perf.json), ("failures", .int(failures)),
      ]
      if let procContextSwitchesPerRequest {
        members.append(("proc_context_switches_per_request", .number(procContextSwitchesPerRequest)))
      }
      if let daemonCPUMsPerRequest { members.append(("daemon_cpu_ms_per_request", .number(daemonCPUMsPerRequest))) }
      switch callgrind {
      case .success(let figures): members.append(("callgrind", figures.json))
      case .failure(let why): members.append(("callgrind", .string("not measured: \(why)")))
      }
      return .object(members)
    }
  }

  /// Runs both parts: the daemon natively under perf, then under callgrind beside the floor.
  static func measure(
    executable: String, pairs: Int, warmUpPairs: Int, keepCallgrind: String?
  ) async throws -> Figures {
    progress("per request: `callalert run` on one board, \(pairs) call/hangup pairs under perf ...")
    let daemon = try await DaemonProcess(executable: executable, label: "perrequest", startLimit: .seconds(60))
    let native = await onThread { () -> (PerfFigures, Double?, Double?, Int) in
      _ = daemon.pairs(warmUpPairs, label: "warm")
      let perf: PerfCounters?
      var skipped = ""
      do { perf = try PerfCounters(pid: daemon.pid) } catch {
        perf = nil
        skipped = "\(error)"
      }
      let switches = daemon.contextSwitches
      let cpu = HistoryLoadSoak.cpuSeconds(of: daemon.pid)
      let enabled = perf?.enable() ?? false
      let failures = daemon.pairs(pairs, label: "perf")
      let disabled = perf?.disable() ?? false
      let requests = 2 * pairs
      let procSwitches = Double(daemon.contextSwitches - switches) / Double(requests)
      let cpuMs = (HistoryLoadSoak.cpuSeconds(of: daemon.pid) - cpu) * 1_000 / Double(requests)
      let counted = perf?.finish()
      let figures: PerfFigures
      if perf != nil && (!enabled || !disabled) {
        figures = .skipped("perf did not acknowledge enable/disable")
      } else if let counted {
        figures = .measured(
          syscalls: counted.totals["raw_syscalls:sys_enter"] ?? 0,
          contextSwitches: counted.totals["sched:sched_switch"] ?? 0, requests: requests, byThread: counted.byThread)
      } else {
        figures = .skipped(skipped.isEmpty ? "perf gave no counts" : skipped)
      }
      return (figures, procSwitches, cpuMs, failures)
    }
    await daemon.stop()
    let callgrind = await underCallgrind(
      executable: executable, pairs: pairs, warmUpPairs: min(warmUpPairs, 10), keep: keepCallgrind)
    return Figures(
      pairs: pairs, warmUpPairs: warmUpPairs, perf: native.0, procContextSwitchesPerRequest: native.1,
      daemonCPUMsPerRequest: native.2, failures: native.3, callgrind: callgrind)
  }

  /// The daemon under callgrind: warm-up, then a series dumped as one (kept for `callgrind_annotate`), then a
  /// series dumped after every request; then the C floor's `latency` under callgrind, its threads counted apart.
  static func underCallgrind(
    executable: String, pairs: Int, warmUpPairs: Int, keep: String?
  ) async -> Result<CallgrindFigures, BenchError> {
    let directory =
      keep
      ?? FileManager.default.temporaryDirectory.appendingPathComponent(
        "callalert-callgrind-\(UUID().uuidString.prefix(8))"
      ).path
    do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
      return .failure(BenchError("callgrind: cannot make \(directory): \(error)"))
    }
    defer { if keep == nil { try? FileManager.default.removeItem(atPath: directory) } }
    let setup: Callgrind.Setup
    switch Callgrind.setUp(directory: directory) {
    case .success(let found): setup = found
    case .failure(let why): return .failure(why)
    }
    progress("per request: the same under callgrind (slow: about 50× the daemon's CPU) ...")
    let prefix = "callgrind.daemon"
    let daemon: DaemonProcess
    do {
      daemon = try await DaemonProcess(
        executable: setup.withoutDebugInfo(executable), wrapper: setup.wrapper(prefix: prefix),
        label: "callgrind", startLimit: .seconds(600))
    } catch {
      return .failure(error)
    }
    let vgdb = setup.vgdb
    let splitPairs = min(pairs, 50)
    let counted = await onThread { () -> Result<DaemonCounts, BenchError> in
      _ = daemon.pairs(warmUpPairs, label: "warm")
      var seriesOneDump = ""
      var topSelf: [(function: String, instructions: Int)] = []
      func dump(_ hint: String, keeping: Bool = false) -> Int? {
        guard let path = Callgrind.dump(vgdb: vgdb, pid: daemon.pid, hint: hint, directory: directory, prefix: prefix)
        else { return nil }
        defer { if keep == nil || !keeping { try? FileManager.default.removeItem(atPath: path) } }
        if keeping {
          seriesOneDump = path
          topSelf = Array(Callgrind.selfCost(ofDumpAt: path).prefix(15))
        }
        return Callgrind.totals(ofDumpAt: path)
      }
      guard dump("warm-up") != nil else { return .failure(BenchError("callgrind: vgdb could not dump")) }
      var counts = DaemonCounts()
      counts.failures += daemon.pairs(pairs, label: "series-1")
      guard let one = dump("series-1", keeping: true) else {
        return .failure(BenchError("callgrind: the first series' dump is missing"))
      }
      counts.failures += daemon.pairs(pairs, label: "series-2")
      guard let two = dump("series-2") else {
        return .failure(BenchError("callgrind: the second series' dump is missing"))
      }
      (counts.seriesOne, counts.seriesTwo, counts.seriesOneDump) = (one, two, seriesOneDump)
      counts.topSelf = zip(Callgrind.demangled(topSelf.map(\.function)), topSelf).map {
        ($0.0, Double($0.1.instructions) / Double(2 * pairs))
      }
      var missing = 0
      counts.failures += daemon.pairs(splitPairs, label: "split") { request in
        guard let total = dump(request == .call ? "call" : "hangup") else {
          missing += 1
          return
        }
        if request == .call { counts.calls.append(total) } else { counts.hangups.append(total) }
      }
      if missing > 0 { return .failure(BenchError("callgrind: \(missing) per-request dumps are missing")) }
      // What the daemon does on its own meanwhile, per second: idle, and while a call rings (its timers). The
      // series run about 50 times slower under callgrind, so this background work weighs more there.
      let clock = ContinuousClock()
      _ = dump("before-idle")
      var start = clock.now
      usleep(1_000_000)
      counts.idlePerSecond = dump("idle").map { Double($0) / start.duration(to: clock.now).seconds }
      let mark = daemon.board.probe.mark
      _ = try? ControlSocketClient.requestBlocking(#"{"type":"call","id":"background"}"#, path: daemon.socket)
      _ = BoardProbe.waitForAll([(daemon.board.probe, mark)], where: { $0.isAlerting })
      daemon.waitUntilIdle()
      _ = dump("before-ringing")
      start = clock.now
      usleep(1_000_000)
      counts.ringingPerSecond = dump("ringing").map { Double($0) / start.duration(to: clock.now).seconds }
      _ = try? ControlSocketClient.requestBlocking(#"{"type":"hangup","id":"background"}"#, path: daemon.socket)
      return .success(counts)
    }
    await daemon.stop()
    let counts: DaemonCounts
    switch counted {
    case .success(let found): counts = found
    case .failure(let why): return .failure(why)
    }
    if counts.failures > 0 { progress("callgrind: \(counts.failures) requests did not complete in time") }
    let floor = await onThread { floorUnderCallgrind(setup, calls: pairs) }
    let requests = Double(2 * pairs)
    return .success(
      CallgrindFigures(
        valgrind: Callgrind.version(valgrind: setup.valgrind), seriesOnePerRequest: Double(counts.seriesOne) / requests,
        seriesTwoPerRequest: Double(counts.seriesTwo) / requests, call: Summary(counts.calls.map(Double.init)),
        hangup: Summary(counts.hangups.map(Double.init)), idlePerSecond: counts.idlePerSecond,
        ringingPerSecond: counts.ringingPerSecond, floorServerPerCall: floor?.server,
        floorProcessPerCall: floor?.process, kept: keep, seriesOneDump: keep == nil ? nil : counts.seriesOneDump,
        topSelfCost: counts.topSelf))
  }

  /// The daemon's counts under callgrind, as the client thread gathers them.
  private struct DaemonCounts: Sendable {
    var seriesOne = 0
    var seriesTwo = 0
    var seriesOneDump = ""
    var calls: [Int] = []
    var hangups: [Int] = []
    var idlePerSecond: Double?
    var ringingPerSecond: Double?
    var failures = 0
    var topSelf: [(function: String, perRequest: Double)] = []
  }

  /// `callalert-bench-floor latency CALLS` under callgrind, one dump per thread: the server thread's instructions
  /// (the one that ran `daemon_thread`) and the whole process's, per call (its 20 warm-up calls included).
  static func floorUnderCallgrind(_ setup: Callgrind.Setup, calls: Int) -> (server: Double, process: Double)? {
    let prefix = "callgrind.floor"
    let command =
      setup.wrapper(prefix: prefix, separateThreads: true) + [FloorBench.executable, "latency", "\(calls)"]
    guard runToEnd(command) == 0 else {
      progress("callgrind: the floor did not run under valgrind")
      return nil
    }
    let files = Callgrind.dumpFiles(directory: setup.directory, prefix: prefix + ".")
    let total = files.compactMap(Callgrind.totals(ofDumpAt:)).reduce(0, +)
    guard let server = files.first(where: { Callgrind.dump(at: $0, names: "daemon_thread") }),
      let serverTotal = Callgrind.totals(ofDumpAt: server)
    else { return nil }
    let perCall = Double(calls + 20)  // the floor's 20 warm-up calls went through the server thread too
    return (Double(serverTotal) / perCall, Double(total) / perCall)
  }
}
