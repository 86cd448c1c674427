import ArgumentParser
import CallAlertBenchMalloc
import CallAlertProtocol
import CallAlertVirtualBoard
import Dispatch
import Foundation

/// `callalert-bench`: measures the codec, flashing, and the daemon at work, prints a table and writes the
/// figures as one JSON file (docs/BENCH.md describes every key). Never fails on timing: figures are printed
/// and written, and targets are shown beside them. `--soak` runs the reliability soak instead.
@main
struct BenchCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "callalert-bench",
    abstract: "Measure CallAlert's codec, flashing and daemon; or, with --soak, run the reliability soak.",
    discussion: """
      Sections (all by default): codec, flash, idle, latency, http, sip, cap, fanout, nio, perrequest. Figures are printed as a table and
      written to --json. Build it in release: swift build -c release --product callalert-bench.
      """)

  @Option(help: ArgumentHelp("Write the figures here.", valueName: "path"))
  var json = "bench-results.json"

  @Option(help: ArgumentHelp("Run only these sections (comma-separated).", valueName: "list"))
  var only: String?

  @Option(help: "Calls for the latency measurement.")
  var calls = 1_000

  @Option(
    help: ArgumentHelp(
      "Daemon series in latency, fanout, sip and http, each between two series of the C floor (floor, daemon, "
        + "..., daemon, floor); each gets calls / series calls."))
  var series = 5

  @Option(help: "Calls for the cap accuracy measurement.")
  var capCalls = 200

  @Option(help: "Seconds to watch the idle daemon.")
  var idleSeconds = 30.0

  @Option(help: "Boards for the fan-out measurement.")
  var fanOutBoards = 32

  @Option(help: "Calls for the fan-out measurement (each series: settled, then back to back).")
  var fanOutCalls = 1_000

  @Option(help: "perrequest: call/hangup pairs counted (perf, and each callgrind series).")
  var perRequestPairs = 200

  @Option(
    help: ArgumentHelp(
      "perrequest: leave the callgrind dumps in this directory (for callgrind_annotate).", valueName: "dir"))
  var keepCallgrind: String?

  @Flag(help: "Small counts and short runs: a smoke test of the bench itself (figures are not meaningful).")
  var quick = false

  @Flag(help: "Run the reliability soak (faulty link, then kill -9 of the daemon) instead of the bench.")
  var soak = false

  @Option(help: "Soak: calls through the faulty link.")
  var soakCalls = 10_000

  @Option(help: "Soak: calls per thousand sent 29.9 s late, so that their cap ends them (0-985).")
  var soakCappedPerMille: UInt64 = 30

  @Option(help: "Soak: kill -9 runs of the daemon mid-ring.")
  var killRuns = 100

  @Option(help: "Soak: kill -9 runs at once (each with its own board and daemon).")
  var killParallel = 4

  @Option(
    help: "Soak: calls rung while clients misbehave, the disk is full and the board goes deaf (the chaos run).")
  var chaosCalls = 300

  @Option(
    help: "Soak: call/hangup pairs as fast as the control socket takes them, for each history-under-load run.")
  var historyPairs = 100_000

  @Option(help: "Soak: CPU-bound processes beside the daemon in the busy history-under-load run.")
  var historyHogs = 2

  @Option(help: "Soak: call/hangup pairs of the long-life run (RSS, descriptors and the history's retention).")
  var longLifeCalls = 1_000_000

  @Option(
    help: ArgumentHelp(
      "Soak: the long-life daemon's `tombstone` (how long it remembers an ended call's id; default 5m).",
      valueName: "duration"))
  var longLifeTombstone: String?

  @Option(help: "Soak: calls in the history that `callalert history --limit 1000` reads.")
  var historyQueryRows = 1_000_000

  @Option(help: "Soak: seconds of the MQTT flood while local calls ring (the fair-budget run; 0: none).")
  var fairFloodSeconds = 5

  @Option(help: "Soak: MQTT calls a second in the fair-budget run's flood.")
  var fairFloodRate = 10_000

  @Option(
    help: ArgumentHelp("Soak: the callalert executable for the kill -9, chaos and history runs.", valueName: "path"))
  var callalert: String?

  @Flag(help: .hidden)
  var child = false

  /// `OPERATION:COUNT`: runs one codec operation COUNT times and exits (for callgrind; see ``CodecPaths``).
  @Option(help: .hidden)
  var codecCount: String?

  static let sections = ["codec", "flash", "idle", "latency", "http", "sip", "cap", "fanout", "nio", "perrequest"]

  func validate() throws {
    if let only {
      for name in only.split(separator: ",") where !Self.sections.contains(String(name)) {
        throw ValidationError("unknown section \(name); sections are \(Self.sections.joined(separator: ", "))")
      }
    }
    if soakCalls < 0 || killRuns < 0 || chaosCalls < 0 || killParallel < 1 || historyPairs < 0 || historyHogs < 0
      || longLifeCalls < 0 || historyQueryRows < 0 || fairFloodSeconds < 0 || fairFloodRate < 1
    {
      throw ValidationError("soak counts must not be negative")
    }
    if soakCappedPerMille > 985 { throw ValidationError("--soak-capped-per-mille must be 0 to 985") }
    if calls < 1 || capCalls < 1 || fanOutCalls < 1 || fanOutBoards < 1 || perRequestPairs < 1 || series < 1 {
      throw ValidationError("counts must be at least 1")
    }
    if idleSeconds <= 0 { throw ValidationError("--idle-seconds must be positive") }
  }

  func run() async throws {
    if let codecCount {
      let parts = codecCount.split(separator: ":")
      guard parts.count == 2, let count = Int(parts[1]), CodecPaths.countedOperations.contains(String(parts[0])) else {
        throw ValidationError("--codec-count OPERATION:COUNT")
      }
      CodecPaths.runCounted(String(parts[0]), count: count)
      return
    }
    if soak {
      try await Soak(
        calls: quick ? min(200, soakCalls) : soakCalls, cappedPerMille: soakCappedPerMille,
        killRuns: quick ? min(4, killRuns) : killRuns,
        killParallel: killParallel, chaosCalls: quick ? min(40, chaosCalls) : chaosCalls,
        historyPairs: quick ? min(2_000, historyPairs) : historyPairs, historyHogs: historyHogs,
        longLifeCalls: quick ? min(20_000, longLifeCalls) : longLifeCalls, longLifeTombstone: longLifeTombstone,
        historyQueryRows: quick ? min(20_000, historyQueryRows) : historyQueryRows,
        fairFloodSeconds: quick ? min(2, fairFloodSeconds) : fairFloodSeconds, fairFloodRate: fairFloodRate,
        callalert: callalert,
        jsonPath: json == "bench-results.json" ? "soak-results.json" : json
      ).run()
      return
    }
    let wanted = (only ?? Self.sections.joined(separator: ",")).split(separator: ",").map(String.init)
    if child {
      // One daemon section for a parent bench: its figures and table rows go to files the parent reads.
      guard wanted.count == 1, let name = wanted.first else { throw ValidationError("--child runs one section") }
      var table = ResultTable()
      let figures = try await section(name, into: &table)
      try (figures.text() + "\n").write(toFile: json, atomically: true, encoding: .utf8)
      try table.tsv.write(toFile: json + ".rows", atomically: true, encoding: .utf8)
      return
    }
    let machine = Machine.current()
    var table = ResultTable()
    var results: [(String, JSONValue)] = [("machine", machine.json)]
    results.append(
      ("allocation_counter", .string(callalert_bench_counts_allocations() != 0 ? "glibc-interposer" : "none")))
    let load = String(format: "%.2f", machine.loadAverage)
    progress("callalert-bench on \(machine.processors) × \(machine.cpuModel), load \(load)")
    var activity: [(String, JSONValue)] = []
    for name in Self.sections where wanted.contains(name) {
      let start = MachineActivity.Sample.now()
      if Self.daemonSections.contains(name) {
        // Each daemon section runs in a fresh process of its own, so its RSS, threads and CPU are the daemon's
        // and its boards', not what earlier sections left behind.
        results.append((name, try await inChild(name, into: &table)))
      } else {
        results.append((name, try await section(name, into: &table)))
      }
      // Beside every figure, what else the machine did meanwhile: other work makes timing figures pessimistic.
      let during = MachineActivity(start: start, end: .now())
      table.add("  machine during \(name)", during.text)
      activity.append((name, during.json))
    }
    results.append(("activity", .object(activity)))
    results.append(("load_average_1m_at_end", .number(Machine.current().loadAverage)))
    print(table.text)
    try (JSONValue.object(results).text() + "\n").write(toFile: json, atomically: true, encoding: .utf8)
    print("figures written to \(json)")
  }

  /// Sections measured in a child process each.
  static let daemonSections: Set<String> = ["idle", "latency", "http", "sip", "cap", "fanout", "nio"]

  /// Runs `name` in a child process of this executable and collects its figures and table rows.
  private func inChild(_ name: String, into table: inout ResultTable) async throws -> JSONValue {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent(
      "callalert-bench-\(name)-\(getpid()).json"
    ).path
    defer {
      try? FileManager.default.removeItem(atPath: output)
      try? FileManager.default.removeItem(atPath: output + ".rows")
    }
    var arguments = [
      "--child", "--only", name, "--json", output, "--calls", "\(calls)", "--cap-calls", "\(capCalls)",
      "--idle-seconds", "\(idleSeconds)", "--fan-out-boards", "\(fanOutBoards)", "--fan-out-calls", "\(fanOutCalls)",
      "--series", "\(series)",
    ]
    if quick { arguments.append("--quick") }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
    process.arguments = arguments
    // Bounded: the longest section (1 000 calls, or 30 s of idle) takes a few minutes even on a loaded machine.
    let status = await try ChildExit(starting: process).waitOrKill(after: .seconds(1_800))
    guard status == 0, let text = try? String(contentsOfFile: output, encoding: .utf8),
      let rows = try? String(contentsOfFile: output + ".rows", encoding: .utf8)
    else {
      table.add(name, "FAILED (child \(status.map { "exited with \($0)" } ?? "did not exit in 30 min; killed"))")
      return .string("failed")
    }
    table.append(tsv: rows)
    return .raw(text.trimmingCharacters(in: .whitespacesAndNewlines))
  }

  /// Measures one section, adding its rows to `table`; returns its figures.
  private func section(_ name: String, into table: inout ResultTable) async throws -> JSONValue {
    switch name {
    case "codec":
      progress("codec ...")
      let figures = CodecBench.run(runs: quick ? 2 : 5, secondsPerRun: quick ? 0.05 : 0.2)
      for f in figures {
        let label = "\(f.payloadBytes) B payload"
        for (name, rate) in [
          ("encode", f.encode), ("encode, payload without a zero", f.encodeWithoutZeros),
          ("encode (reused buffer)", f.encodeReusing), ("decode (push per byte)", f.decodePush),
          ("decode (FrameDecoder.feed)", f.decode), ("decode (LinkEndpoint.receive)", f.decodeEndpoint),
          ("CRC-32C (checksum call)", f.crc), ("CRC-32C (inlined update)", f.crcInlined),
          ("COBS decode (call)", f.cobsDecode), ("memcpy ceiling", f.memcpy),
        ] + f.crcByImplementation.map({ ("CRC-32C by \($0.0.replacingOccurrences(of: "_", with: " "))", $0.1) }) {
          let targeted = f.payloadBytes == Frame.maxPayload && ["encode", "decode (FrameDecoder.feed)"].contains(name)
          table.add(
            "codec \(name), \(label)",
            "\(Self.count(rate.framesPerSecond)) frames/s, \(String(format: "%.1f", rate.payloadMBPerSecond)) MB/s"
              + (rate.allocationsPerFrame.map { String(format: ", %.2f allocs/frame", $0) } ?? ""),
            target: targeted ? "≥ 1.5 M" : "")
        }
      }
      progress("codec peer: Python's cobs + crc32c, 1 024 B payload ...")
      let peer = await PeerCodecBench.run(
        payloadBytes: Frame.maxPayload, runs: quick ? 2 : 5, secondsPerRun: quick ? 0.05 : 0.2)
      switch peer {
      case .measured(let encode, let decode):
        let ours = figures.first { $0.payloadBytes == Frame.maxPayload }
        table.add(
          "codec peer (Python cobs + crc32c), 1024 B payload",
          "encode \(Self.count(encode)) frames/s, decode \(Self.count(decode)) frames/s"
            + (ours.map {
              String(
                format: "; ours %.1f× / %.1f×", $0.encode.framesPerSecond / encode, $0.decode.framesPerSecond / decode)
            } ?? ""))
      case .skipped(let why):
        table.add("codec peer (Python cobs + crc32c)", "skipped: \(why)")
      }
      let crcPath = CodecPaths.crc()
      table.add("codec CRC-32C path", "\(crcPath.implementation): \(crcPath.reason)")
      if let large = figures.first(where: { $0.payloadBytes == Frame.maxPayload }) {
        table.add("codec COBS paths, 1024 B sample frames", large.paths.text)
        table.add("codec COBS paths, 1024 B without a zero", large.pathsWithoutZeros.text)
      }
      progress("codec: instructions per 1 KiB frame under callgrind ...")
      let counted = CodecPaths.instructionsPerFrame()
      var countedJSON: JSONValue
      switch counted {
      case .success(let perFrame):
        table.add(
          "codec instructions per 1024 B frame (callgrind)",
          perFrame.map { "\($0.0) " + String(format: "%.0f", $0.1) }.joined(separator: ", "))
        countedJSON = .object(perFrame.map { ($0.0.replacingOccurrences(of: "-", with: "_"), .number($0.1)) })
      case .failure(let why):
        table.add("codec instructions per 1024 B frame (callgrind)", "not measured: \(why)")
        countedJSON = .string("not measured: \(why)")
      }
      return .object([
        ("sizes", .array(figures.map(\.json))), ("python_cobs_crc32c_peer", peer.json), ("crc32c_path", crcPath.json),
        ("callgrind_ir_per_1024_b_frame", countedJSON),
      ])

    case "flash":
      progress("flash (virtual time) ...")
      let table28k = FlashBench.largeTable()
      var flash: [(String, JSONValue)] = [
        ("table_bytes", .int(table28k.count)), ("ceiling_bytes_per_s", .number(FlashBench.ceilingBytesPerSecond)),
      ]
      for window in [8, 1] {
        guard let f = FlashBench.virtualTime(table: table28k, window: window) else {
          table.add("flash window \(window)", "FAILED")
          continue
        }
        table.add(
          "flash goodput, window \(window) (virtual time)",
          String(
            format: "%.3f of 11 520 B/s (%.0f B/s, %.3f s for %d B)", f.fractionOfCeiling, f.goodputBytesPerSecond,
            f.seconds,
            f.tableBytes),
          target: window == 8 ? "≥ 0.92" : "")
        flash.append((window == 1 ? "virtual_time_stop_and_wait" : "virtual_time_windowed", f.json))
      }
      for window in [8, 1] {
        guard let r = FlashBench.virtualReadBack(table: table28k, window: window) else { continue }
        table.add(
          "table read-back, window \(window) (virtual time)",
          String(
            format: "%d of %d answered, %d failed, %d stranded, %d retransmissions, %.3f s", r.answered, r.requests,
            r.failed,
            r.stranded, r.retransmissions, r.seconds))
        flash.append((window == 1 ? "read_back_stop_and_wait" : "read_back_windowed", r.json))
      }
      if !quick {
        progress("flash (real time, ShapedTransport) ...")
        if let seconds = await FlashBench.realTime(table: table28k, window: 8) {
          let fraction = Double(table28k.count) / seconds / FlashBench.ceilingBytesPerSecond
          table.add(
            "flash goodput, window 8 (real time, shaped)",
            String(format: "%.3f of 11 520 B/s (%.3f s)", fraction, seconds))
          flash.append(
            (
              "real_time_windowed",
              .object([("seconds", .number(seconds)), ("fraction_of_ceiling", .number(fraction))])
            ))
        } else {
          table.add("flash goodput, window 8 (real time, shaped)", "FAILED")
        }
        progress("TableFlasher (real time, ShapedTransport) ...")
        var attempts: [JSONValue] = []
        for attempt in 1...3 {
          let (ok, outcome) = await FlashBench.tableFlasher(table: table28k, window: 8)
          table.add("TableFlasher.flash, window 8 (real time), try \(attempt)", outcome)
          attempts.append(.object([("ok", .bool(ok)), ("outcome", .string(outcome))]))
        }
        flash.append(("table_flasher_real_time", .array(attempts)))
        progress("TableFlasher over a lossy line (real time, ShapedTransport) ...")
        var lossy: [JSONValue] = []
        let faults = FaultProfile(dropRate: 0.000_1, corruptRate: 0.000_1, duplicateRate: 0.000_1)
        for seed in UInt64(1)...3 {
          let (ok, outcome) = await FlashBench.tableFlasher(
            table: table28k, window: 8, faults: faults, seed: seed, limit: .seconds(60))
          table.add("TableFlasher.flash, 0.03 % bytes damaged, seed \(seed)", outcome)
          lossy.append(.object([("seed", .int(Int(seed))), ("ok", .bool(ok)), ("outcome", .string(outcome))]))
        }
        flash.append(("table_flasher_lossy_real_time", .array(lossy)))
      }
      return .object(flash)

    case "idle":
      let seconds = quick ? 3 : idleSeconds
      progress("idle daemon for \(seconds) s ...")
      let idle = try await DaemonBench.idle(seconds: seconds)
      table.add(
        "idle CPU, daemon + board, \(Int(idle.seconds.rounded())) s",
        String(format: "%.4f %% of one core (%.1f ms CPU)", idle.cpuPercent, idle.cpuSeconds * 1_000), target: "< 0.1 %"
      )
      table.add(
        "idle wake-ups (context switches of every thread)",
        String(format: "%.2f per second; ", idle.wakeUpsPerSecond)
          + idle.wakeUpsByThread.prefix(4).map { "\($0.name) \($0.count)" }.joined(separator: ", "))
      table.add(
        "idle RSS (process / before daemon)", "\(idle.residentKiB / 1_024) MiB / \(idle.residentBeforeKiB / 1_024) MiB")
      return idle.json

    case "latency":
      let count = quick ? 50 : calls
      progress("latency over \(count) calls in \(series) series, each between two floor series ...")
      var floors = FloorSeries(boards: 1, callsPerSeries: max(1, count / series))
      var latency = try await DaemonBench.latency(calls: count, series: series) { await floors.measure() }
      latency.floors = floors
      let floor = floors.pooled
      if let floor {
        table.add(
          "floor (C): connect + 30 B into a pty + read (\(floor.trip.count), \(floors.figures.count) series)",
          Self.percentiles(floor.trip) + String(format: "; %.3f ms CPU", floor.cpuMsPerCall))
      } else {
        table.add("floor (C)", "not measured (see standard error)")
      }
      table.add(
        "call → first actuator change (\(latency.call.count), \(series) series)", Self.percentiles(latency.call),
        target: "p99 < 2 ms")
      latency.callAgainstFloor?.addRows(to: &table, target: "≤ 3× / 5×")
      table.add(
        "hangup → all actuators off (\(latency.hangup.count))", Self.percentiles(latency.hangup), target: "p99 < 2 ms")
      latency.hangupAgainstFloor?.addRows(to: &table, target: "≤ 3× / 5×")
      table.add(
        "CPU per request (daemon + board + client)",
        String(format: "%.3f ms", latency.cpuMsPerRequest)
          + (floor.map {
            String(format: " (%.1f× the floor's %.3f ms)", latency.cpuMsPerRequest / $0.cpuMsPerCall, $0.cpuMsPerCall)
          } ?? ""),
        target: "≤ 0.05 ms")
      if latency.failures > 0 { table.add("latency failures", "\(latency.failures)") }
      return latency.json

    case "http":
      let count = quick ? 50 : calls / 2
      progress(
        "HTTP API beside the control socket over \(count) calls in \(series) series, each between two floor "
          + "series, then wrk on GET /v1/status ...")
      var floors = FloorSeries(boards: 1, callsPerSeries: max(1, count / series))
      var figures = try await HTTPBench.measure(calls: count, series: series, wrkSeconds: quick ? 2 : 10) {
        await floors.measure()
      }
      figures.floors = floors
      table.add(
        "HTTP call → first actuator change (\(figures.call.count))", Self.percentiles(figures.call),
        target: "p99 ≤ 2 ms")
      table.add("  control socket, same daemon", Self.percentiles(figures.socketCall))
      if let floor = floors.pooled {
        table.add(
          "  floor (C): connect + 30 B into a pty + read (\(floor.trip.count), \(floors.figures.count) series)",
          Self.percentiles(floor.trip))
        figures.callAgainstFloor?.addRows(to: &table, target: "")
      }
      table.add("HTTP hangup → all actuators off (\(figures.hangup.count))", Self.percentiles(figures.hangup))
      table.add("  control socket, same daemon", Self.percentiles(figures.socketHangup))
      table.add(
        "GET /v1/status under wrk (2 threads, 16 connections)",
        figures.statusRequestsPerSecond.map { String(format: "%.0f requests/s; ", $0) + (figures.statusLatency ?? "") }
          ?? "not measured (wrk is not installed: apt-get install wrk)")
      if figures.failures > 0 { table.add("HTTP latency failures", "\(figures.failures)") }
      table.add(
        "1 000 idle HTTP connections: closed at once", "\(figures.floodClosed)",
        target: "all beyond the API's 256")
      table.add(
        "  control-socket call meanwhile (\(figures.floodSocketCall.count))", Self.percentiles(figures.floodSocketCall))
      table.add(
        "  resident before / during",
        "\(figures.floodResidentBeforeKiB / 1_024) / \(figures.floodResidentDuringKiB / 1_024) MiB")
      return figures.json

    case "sip":
      let count = quick ? 20 : min(calls, 100)
      guard SIPBench.isInstalled else {
        table.add(
          "SIP INVITE → first actuator change", "not measured (SIPp is not installed: apt-get install sip-tester)")
        return .string("skipped: SIPp is not installed")
      }
      let sipSeries = min(series, count)
      progress(
        "SIP: \(count) INVITEs one at a time from SIPp in \(sipSeries) series, each between two floor series, then 100 overlapping calls ..."
      )
      var floors = FloorSeries(boards: 1, callsPerSeries: max(1, count / sipSeries))
      var figures = try await SIPBench.measure(calls: count, series: sipSeries) { await floors.measure() }
      figures.floors = floors
      table.add(
        "SIP INVITE → first actuator change (\(figures.invite.count))", Self.percentiles(figures.invite),
        target: "p99 ≤ 2 ms")
      table.add("  control socket, same daemon", Self.percentiles(figures.socketCall))
      if let floor = floors.pooled {
        table.add(
          "floor (C): connect + 30 B into a pty + read (\(floor.trip.count), \(floors.figures.count) series)",
          Self.percentiles(floor.trip))
        figures.inviteAgainstFloor?.addRows(to: &table, target: "")
      }
      if figures.failures > 0 { table.add("SIP INVITEs that did not ring before their CANCEL", "\(figures.failures)") }
      table.add(
        "SIP calls placed and cancelled by SIPp (10 at once)",
        "\(figures.placed) placed, \(figures.rang) rang, \(figures.stopped) stopped, \(figures.lost) lost; "
          + "\(figures.recorded) in the history")
      guard !quick else { return figures.json }
      progress("SIP: 10 000 INVITEs from a stranger on 127.0.0.2, listening 55 s for what comes back ...")
      let flood = try await SIPFloodBench.measure()
      table.add(
        "SIP stranger flood: resident before / after / 55 s on",
        "\(flood.residentBeforeKiB / 1_024) / \(flood.residentAfterFloodKiB / 1_024) / "
          + "\(flood.residentSettledKiB / 1_024) MiB", target: "settled within 5 MB of before")
      table.add(
        "  datagrams back to the stranger",
        "\(flood.repliesPerSecond.reduce(0, +)); the last \(flood.lastReplyAfter.map { String(format: "%.1f s", $0) } ?? "never") after the first INVITE",
        target: "none after 32 s past the last")
      table.add("  control-socket call, quiet (\(flood.quiet.count))", Self.percentiles(flood.quiet))
      table.add(
        "  control-socket call, during the flood (\(flood.duringFlood.count))", Self.percentiles(flood.duringFlood))
      figures.strangerFlood = flood
      return figures.json

    case "cap":
      let count = quick ? 10 : capCalls
      progress("cap accuracy over \(count) calls ...")
      let cap = try await DaemonBench.capAccuracy(calls: count)
      table.add(
        "cap error, |silence − deadline| (\(cap.absoluteError.count))",
        Self.percentiles(cap.absoluteError) + String(format: "; mean signed %+.2f ms", cap.meanSignedErrorMs),
        target: "p99 < 5 ms")
      if cap.failures > 0 { table.add("cap failures", "\(cap.failures)") }
      return cap.json

    case "fanout":
      let count = quick ? 10 : fanOutCalls
      let boards = quick ? min(4, fanOutBoards) : fanOutBoards
      progress("fan-out to \(boards) boards over \(count) calls in \(series) series, each between two floor series ...")
      var floors = FloorSeries(boards: boards, callsPerSeries: max(1, count / series))
      var fan = try await DaemonBench.fanOut(boardCount: boards, calls: count, series: series) {
        await floors.measure()
      }
      fan.floors = floors
      if let floor = floors.pooled {
        table.add(
          "floor (C): 30 B into \(boards) pty, last read (\(floor.trip.count), \(floors.figures.count) series)",
          Self.percentiles(floor.trip))
      }
      table.add(
        "call → last of \(boards) boards' first change, daemon settled (\(fan.last.count))", Self.percentiles(fan.last),
        target: "p99 ≤ 1 ms")
      fan.lastAgainstFloor?.addRows(to: &table, target: "")
      table.add("hangup → last of \(boards) boards off", Self.percentiles(fan.hangupLast))
      table.add(
        "call → last board, sent as the last call went silent (\(fan.lastBackToBack.count))",
        Self.percentiles(fan.lastBackToBack))
      table.add(
        "RSS with \(boards) boards (process / before)",
        "\(fan.residentKiB / 1_024) MiB / \(fan.residentBeforeKiB / 1_024) MiB")
      if fan.failures > 0 { table.add("fan-out failures", "\(fan.failures)") }
      return fan.json

    case "nio":
      let (requests, count) = quick ? (100, 2) : (calls, 5)
      progress("control socket, our epoll loop beside SwiftNIO: \(count) series of \(requests) requests each ...")
      guard let series = await ControlSocketNIOBench.run(requests: requests, series: count) else {
        table.add("control socket beside SwiftNIO", "FAILED")
        return .string("failed")
      }
      var summary: [(String, JSONValue)] = []
      for name in ["epoll", "nio"] {
        let mine = series.filter { $0.implementation == name }
        let p50 = Summary(mine.map(\.latency.p50)).p50
        let p99 = Summary(mine.map(\.latency.p99)).p50
        let cpu = Summary(mine.map(\.serverCPUMsPerRequest)).p50
        table.add(
          "control socket request, \(name == "epoll" ? "ours (epoll loop)" : "SwiftNIO ServerBootstrap") (median of \(mine.count) series)",
          String(format: "p50 %.3f ms, p99 %.3f ms, server CPU %.3f ms/request", p50, p99, cpu))
        for one in mine {
          table.add(
            "  series",
            Self.percentiles(one.latency) + String(format: ", CPU %.3f ms", one.serverCPUMsPerRequest)
              + (one.failures > 0 ? ", \(one.failures) failed" : ""))
        }
        summary.append(
          (
            name,
            .object([
              ("p50_ms", .number(p50)), ("p99_ms", .number(p99)), ("server_cpu_ms_per_request", .number(cpu)),
            ])
          ))
      }
      return .object([
        ("requests_per_series", .int(requests)), ("medians", .object(summary)),
        ("series", .array(series.map(\.json))),
      ])

    case "perrequest":
      return try await perRequest(into: &table)

    default:
      throw ValidationError("unknown section \(name)")
    }
  }

  /// The `perrequest` section: the daemon as its own process, counted per request by perf and callgrind.
  private func perRequest(into table: inout ResultTable) async throws -> JSONValue {
    let pairs = quick ? min(20, perRequestPairs) : perRequestPairs
    let executable = callalert ?? FloorBench.sibling("callalert")
    let figures: PerRequestBench.Figures
    do {
      figures = try await PerRequestBench.measure(
        executable: executable, pairs: pairs, warmUpPairs: 20, keepCallgrind: keepCallgrind)
    } catch {
      // Not a timing failure: without the daemon's executable there is nothing to count, and the bench says so.
      table.add("per request", "not measured: \(error)")
      return .string("not measured: \(error)")
    }
    let requests = "\(2 * pairs) requests, each on a fresh connection"
    switch figures.perf {
    case .measured(let syscalls, let switches, let count, _):
      table.add(
        "per request: daemon system calls (perf, \(requests))", String(format: "%.2f", Double(syscalls) / Double(count))
      )
      table.add(
        "per request: daemon context switches (perf)", String(format: "%.2f", Double(switches) / Double(count)))
    case .skipped(let why):
      table.add("per request: daemon system calls, context switches (perf)", "not measured: \(why)")
    }
    if let switches = figures.procContextSwitchesPerRequest {
      table.add("per request: daemon context switches (/proc)", String(format: "%.2f", switches))
    }
    if let cpu = figures.daemonCPUMsPerRequest {
      table.add(
        "per request: daemon CPU (/proc, clock ticks)", String(format: "%.3f ms", cpu), target: "≤ 0.05 ms")
    }
    switch figures.callgrind {
    case .success(let counted):
      table.add(
        "per request: daemon instructions (callgrind, mean)",
        Self.count(counted.perRequest)
          + String(
            format: " (two series: %.0f, %.0f; %+.2f %%)", counted.seriesOnePerRequest,
            counted.seriesTwoPerRequest, counted.repeatDifference * 100),
        target: "≤ 150 k")
      table.add(
        "  call, a dump after each (\(counted.call.count))",
        String(format: "p50 %.0f, min %.0f, max %.0f", counted.call.p50, counted.call.min, counted.call.max))
      table.add(
        "  hangup, a dump after each (\(counted.hangup.count))",
        String(format: "p50 %.0f, min %.0f, max %.0f", counted.hangup.p50, counted.hangup.min, counted.hangup.max))
      if let idle = counted.idlePerSecond, let ringing = counted.ringingPerSecond {
        table.add(
          "  the daemon on its own under callgrind, per second",
          String(format: "idle %.0f, while a call rings %.0f", idle, ringing))
      }
      if let server = counted.floorServerPerCall, let process = counted.floorProcessPerCall {
        table.add(
          "  floor (C) server thread per call / whole floor",
          String(
            format: "%.0f / %.0f; the daemon %.0f× the server thread", server, process, counted.perRequest / server))
      }
      for (function, perRequest) in counted.topSelfCost.prefix(8) {
        table.add(
          "    own instructions per request", String(format: "%.0f  ", perRequest) + String(function.prefix(90)))
      }
      if let kept = counted.kept, let dump = counted.seriesOneDump {
        table.add("  callgrind dumps kept in", kept)
        progress("per request: callgrind_annotate --inclusive=yes \(dump) | swift demangle --simplified | head -60")
      }
    case .failure(let why):
      table.add("per request: daemon instructions (callgrind)", "not measured: \(why)")
    }
    if figures.failures > 0 { table.add("per request: pairs that did not complete", "\(figures.failures)") }
    return figures.json
  }

  static func percentiles(_ summary: Summary) -> String {
    String(format: "p50 %.3f ms, p99 %.3f ms, max %.3f ms", summary.p50, summary.p99, summary.max)
  }

  static func count(_ value: Double) -> String {
    value >= 1e6
      ? String(format: "%.2f M", value / 1e6)
      : value >= 1e3 ? String(format: "%.1f k", value / 1e3) : String(format: "%.0f", value)
  }
}

/// Progress on standard error, so that standard output carries only the table.
func progress(_ line: String) {
  FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// The printed table: figure, value, target.
struct ResultTable {
  private var rows: [(String, String, String)] = []

  mutating func add(_ figure: String, _ value: String, target: String = "") { rows.append((figure, value, target)) }

  /// The rows as tab-separated lines (for a parent bench to read back with ``append(tsv:)``).
  var tsv: String { rows.map { "\($0.0)\t\($0.1)\t\($0.2)" }.joined(separator: "\n") }

  /// Appends rows written by ``tsv``.
  mutating func append(tsv: String) {
    for line in tsv.split(separator: "\n") {
      let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
      if fields.count == 3 { rows.append((fields[0], fields[1], fields[2])) }
    }
  }

  var text: String {
    let header = ("figure", "value", "target")
    let all = [header] + rows
    let first = all.map(\.0.count).max() ?? 0
    let second = all.map(\.1.count).max() ?? 0
    func line(_ row: (String, String, String)) -> String {
      row.0.padding(toLength: first, withPad: " ", startingAt: 0) + "  "
        + row.1.padding(toLength: second, withPad: " ", startingAt: 0)
        + "  " + row.2
    }
    let rule = String(repeating: "-", count: first) + "  " + String(repeating: "-", count: second) + "  ------"
    // Trailing spaces only: an indented figure (a ratio below its measurement) keeps its indent.
    return ([line(header), rule] + rows.map(line)).map { String($0.reversed().drop { $0 == " " }.reversed()) }.joined(
      separator: "\n")
  }
}
