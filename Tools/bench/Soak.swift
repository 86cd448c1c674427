import ArgumentParser
import CallAlertBoardCore
import CallAlertDaemon
import CallAlertEngine
import CallAlertProtocol
import CallAlertSerial
import CallAlertVirtualBoard
import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The reliability soak (`make soak`), in two parts:
///
/// 1. **Faulty link.** The daemon's own ``AlertService`` (engine, board driver, ``BoardClient``, link) rings a
///    virtual board on a pseudo-terminal through a ``ShapedTransport`` that paces the line at 115 200 baud with
///    1 ms of latency each way and drops, corrupts and duplicates bytes; now and then the host's port is
///    closed under it (an unplug) and the client reconnects. Thousands of calls and hangups, in real time;
///    every ring is checked against its deadline and every hangup against the lease.
/// 2. **kill -9.** `callalert run` as a child process rings a board (in this process, on a pseudo-terminal)
///    and is killed with SIGKILL mid-ring; the board must fall silent within its lease.
/// 3. **Chaos.** `callalert run` rings a board while control clients close mid-answer or never read, a burst of
///    connections passes its descriptor limit, its standard output stalls and breaks, its history's disk is
///    full and the board goes deaf (``ChaosSoak``).
/// 4. **History under load.** `callalert run --simulate` takes call/hangup pairs as fast as its control socket
///    does, on the machine as it is, beside CPU-bound processes, and with its history file removed half-way;
///    every call must be in the history with its outcome (``HistoryLoadSoak``).
/// 5. **One source flooded while another rings.** `callalert run --simulate` takes an MQTT flood from a broker of
///    its own while local calls ring on its socket: they must ring within 50 ms of their quiet p99, and every
///    flood call must be rung or refused, the refusals summed in the history (``FairFloodSoak``).
/// 6. **Long life.** A million call/hangup pairs through `callalert run --simulate`: its RSS and descriptors stay
///    flat after the warm-up, its history within `keep_days` (``LongLifeSoak``); and `callalert history --limit
///    1000` on a history of a million calls (``HistoryQuerySoak``).
struct Soak {
  let calls: Int
  let cappedPerMille: UInt64
  let killRuns: Int
  let killParallel: Int
  let chaosCalls: Int
  /// Call/hangup pairs of each history-under-load run (0: none).
  var historyPairs = 0
  /// CPU-bound processes beside the daemon in the busy history run.
  var historyHogs = 2
  /// Call/hangup pairs of the long-life run (0: none).
  var longLifeCalls = 0
  /// The long-life daemon's `tombstone`; nil: the default (5 minutes).
  var longLifeTombstone: String? = nil
  /// Calls in the history `callalert history` reads (0: none).
  var historyQueryRows = 0
  /// Seconds of the MQTT flood of the fair-budget run (0: none).
  var fairFloodSeconds = 0
  /// MQTT calls a second in that flood.
  var fairFloodRate = 10_000
  let callalert: String?
  let jsonPath: String

  /// The board's lease (the client asks for 3 000 ms and renews every 1 000 ms while something plays).
  static let leaseMs = 3_000.0
  /// How late the virtual board's own timer may wake (it runs on a loaded host's scheduler, not a chip's).
  static let timerToleranceMs = 20.0
  /// The cap left to a capped call: it is sent 29.9 s late.
  static let cappedCallMs = 100.0
  /// How late a capped ring may end: one retransmission timeout, for a STOP that was lost once.
  static let capToleranceMs = 100.0

  func run() async throws {
    if killRuns > 0 || chaosCalls > 0 || historyPairs > 0 || longLifeCalls > 0 || historyQueryRows > 0
      || fairFloodSeconds > 0, callalert == nil
    {
      throw BenchError(
        "--callalert PATH is needed for the kill -9, chaos, history, fair-budget and long-life runs (or "
          + "--kill-runs 0 --chaos-calls 0 --history-pairs 0 --fair-flood-seconds 0 --long-life-calls 0 "
          + "--history-query-rows 0)")
    }
    var table = ResultTable()
    var results: [(String, JSONValue)] = [("machine", Machine.current().json)]
    var violations = 0
    if calls > 0 {
      let faulty = try await FaultyLinkSoak(calls: calls, cappedPerMille: cappedPerMille).run()
      faulty.report(into: &table)
      results.append(("faulty_link", faulty.json))
      violations += faulty.longerThanBoardCap + faulty.neverStopped + faulty.hangupsNotHonoured + faulty.commandsLost
    }
    if killRuns > 0, let callalert {
      let killed = try await KillSoak(runs: killRuns, parallel: killParallel, executable: callalert).run()
      killed.report(into: &table)
      results.append(("kill_9", killed.json))
      violations += killed.runs - killed.silentWithinLease  // a run that could not ring proves nothing: it counts
    }
    if chaosCalls > 0, let callalert {
      let chaos = try await ChaosSoak(calls: chaosCalls, executable: callalert).run()
      chaos.report(into: &table)
      results.append(("chaos", chaos.json))
      violations += chaos.violations
    }
    if historyPairs > 0, let callalert {
      let runs: [(String, HistoryLoadSoak)] = [
        ("as is", HistoryLoadSoak(pairs: historyPairs, executable: callalert)),
        ("busy", HistoryLoadSoak(pairs: historyPairs, executable: callalert, hogs: historyHogs)),
        (
          "file removed",
          HistoryLoadSoak(pairs: max(2, historyPairs / 5), executable: callalert, removeAfter: historyPairs / 10)
        ),
      ]
      var outcomes: [(String, JSONValue)] = []
      for (name, run) in runs {
        progress("history under load: \(name), \(run.pairs) pairs")
        let outcome = try await run.run(name: name)
        outcome.report(into: &table)
        outcomes.append((name, outcome.json))
        violations += outcome.violations
      }
      results.append(("history_under_load", .object(outcomes)))
    }
    if fairFloodSeconds > 0, let callalert {
      progress("fair budget: \(fairFloodRate) MQTT calls a second for \(fairFloodSeconds) s while local calls ring")
      let fair = try await FairFloodSoak(executable: callalert, rate: fairFloodRate, seconds: fairFloodSeconds).run()
      fair.report(into: &table)
      results.append(("fair_budget", fair.json))
      violations += fair.violations
    }
    if historyQueryRows > 0, let callalert {
      progress("history query: writing \(historyQueryRows) calls, then `callalert history --limit 1000`")
      let query = try await HistoryQuerySoak(rows: historyQueryRows, executable: callalert).run()
      query.report(into: &table)
      results.append(("history_query", query.json))
      violations += query.violations
    }
    if longLifeCalls > 0, let callalert {
      progress("long life: \(longLifeCalls) call/hangup pairs")
      let life = try await LongLifeSoak(
        calls: longLifeCalls, executable: callalert,
        tombstone: longLifeTombstone
      ).run()
      life.report(into: &table)
      results.append(("long_life", life.json))
      violations += life.violations
    }
    results.append(("violations", .int(violations)))
    print(table.text)
    try (JSONValue.object(results).text() + "\n").write(toFile: jsonPath, atomically: true, encoding: .utf8)
    print("results written to \(jsonPath)")
    if violations > 0 {
      print("soak: \(violations) violation(s)")
      throw ExitCode(1)
    }
  }
}

// MARK: - Faulty link

/// Calls and hangups through a faulty, paced, sometimes unplugged line, with the daemon's own service.
struct FaultyLinkSoak {
  let calls: Int
  /// Calls per thousand sent 29.9 s late.
  var cappedPerMille: UInt64 = 30
  /// Per byte, each direction.
  let faults = FaultProfile(dropRate: 0.000_5, corruptRate: 0.000_3, duplicateRate: 0.000_3)

  struct Outcome: Sendable {
    var calls = 0
    var cappedCalls = 0
    var disconnects = 0
    var connections = 0
    /// Calls that never rang.
    var neverRang = 0
    /// Of those, calls for which the daemon logged a failed command (reported, not silent).
    var neverRangReported = 0
    /// Capped calls that fell silent more than the tolerance after their deadline (sent-at + 30 s).
    var overCap = 0
    /// Capped calls that never fell silent.
    var neverStopped = 0
    /// Hangups after which the board rang on past the lease, or never stopped.
    var hangupsNotHonoured = 0
    /// Hangups on a connected line that only the lease could have ended (STOP lost without a report).
    var stopsLost = 0
    /// Commands the daemon logged as failed (after every retransmission).
    var failuresLogged = 0
    var callToRing: [Double] = []
    var hangupToSilence: [Double] = []
    var hangupToSilenceUnplugged: [Double] = []
    var capOvershoot: [Double] = []
    /// How long each capped call rang on the board, from its PLAY's arrival.
    var cappedRang: [Double] = []
    /// Capped calls that rang on the board longer than the 100 ms they had (the board's own cap).
    var longerThanBoardCap = 0
    var injected = InjectedFaults()
    var boardCounters = LinkCounters()
    var seconds = 0.0
    var sampleFailures: [String] = []

    var commandsLost: Int { (neverRang - neverRangReported) + stopsLost }

    var json: JSONValue {
      .object([
        ("calls", .int(calls)), ("capped_calls", .int(cappedCalls)), ("unplugs", .int(disconnects)),
        ("connections", .int(connections)), ("seconds", .number(seconds)),
        (
          "faults_per_byte",
          .object([("drop", .number(0.000_5)), ("corrupt", .number(0.000_3)), ("duplicate", .number(0.000_3))])
        ),
        (
          "faults_injected",
          .object([
            ("drops", .int(injected.drops)), ("corruptions", .int(injected.corruptions)),
            ("duplicates", .int(injected.duplicates)),
          ])
        ),
        (
          "board_link_counters",
          .object([
            ("frames_ok", .int(Int(boardCounters.framesOK))), ("crc_errors", .int(Int(boardCounters.crcErrors))),
            ("framing_errors", .int(Int(boardCounters.framingErrors))),
            ("duplicates", .int(Int(boardCounters.duplicates))),
          ])
        ),
        ("rings_over_cap", .int(longerThanBoardCap + neverStopped)), ("late_silences", .int(overCap)),
        ("hangups_not_honoured", .int(hangupsNotHonoured)),
        ("commands_lost", .int(commandsLost)), ("never_rang", .int(neverRang)),
        ("never_rang_with_reported_failure", .int(neverRangReported)), ("stops_lost", .int(stopsLost)),
        ("failures_logged", .int(failuresLogged)), ("call_to_ring", Summary(callToRing).json(unit: "ms")),
        ("hangup_to_silence", Summary(hangupToSilence).json(unit: "ms")),
        ("hangup_to_silence_unplugged", Summary(hangupToSilenceUnplugged).json(unit: "ms")),
        ("cap_overshoot", Summary(capOvershoot).json(unit: "ms")),
        ("capped_rang", Summary(cappedRang).json(unit: "ms")),
        ("sample_failures", .array(sampleFailures.map { .string($0) })),
      ])
    }

    func report(into table: inout ResultTable) {
      table.add(
        "faulty-link soak: calls (capped, unplugs)",
        "\(calls) (\(cappedCalls) capped, \(disconnects) unplugs, \(connections) connections) in \(Int(seconds)) s")
      table.add(
        "faults injected (drop/corrupt/duplicate)",
        "\(injected.drops) / \(injected.corruptions) / \(injected.duplicates)")
      table.add(
        "rings over the cap (rang longer than its cap + 20 ms)",
        "\(longerThanBoardCap + neverStopped) of \(cappedRang.count + neverStopped) capped; "
          + BenchCommand.percentiles(Summary(cappedRang)),
        target: "0")
      table.add(
        "capped calls silent > 100 ms after the deadline",
        "\(overCap); silence − deadline " + BenchCommand.percentiles(Summary(capOvershoot)))
      table.add("hangups not honoured (> lease)", "\(hangupsNotHonoured)", target: "0")
      table.add(
        "commands lost (silently)",
        "\(commandsLost) (never rang \(neverRang), \(neverRangReported) reported; STOPs lost \(stopsLost))", target: "0"
      )
      table.add("commands failed and logged", "\(failuresLogged)")
      table.add("soak call → ring", BenchCommand.percentiles(Summary(callToRing)))
      table.add("soak hangup → silence (connected)", BenchCommand.percentiles(Summary(hangupToSilence)))
      table.add("soak hangup → silence (unplugged)", BenchCommand.percentiles(Summary(hangupToSilenceUnplugged)))
    }
  }

  /// Holds the host's current port so the soak can pull it, and totals the faults of every connection.
  final class Line: Sendable {
    private struct State {
      var current: ShapedTransport<ContinuousClock>?
      var earlier = InjectedFaults()
      var connections = 0
    }
    private let state = Mutex(State())

    func opened(_ transport: ShapedTransport<ContinuousClock>) {
      state.withLock { state in
        if let old = state.current { state.earlier = state.earlier + old.injected }
        state.current = transport
        state.connections += 1
      }
    }

    func connectionCount() -> Int { state.withLock { $0.connections } }

    /// Pulls the cable on the host's side: the client sees its port close and reconnects.
    func unplug() { state.withLock { $0.current }?.close() }

    var injected: InjectedFaults {
      state.withLock { state in state.earlier + (state.current?.injected ?? InjectedFaults()) }
    }
  }

  func run() async throws -> Outcome {
    let board = try ProbedBoard(holdingSlave: true)
    let line = Line()
    let faults = self.faults
    let path = board.slavePath
    let connector: AlertService<ContinuousClock>.Connector = {
      let channel = try SerialPort.open(path)
      let shaped = ShapedTransport(
        wrapping: channel, pacing: .usbSerial115200, faults: faults, seed: UInt64(line.connectionCount() + 1),
        clock: ContinuousClock())
      line.opened(shaped)
      return shaped
    }
    let failures = FailureLog()
    var logger = Logger(label: "soak", factory: { _ in CountingLogHandler(log: failures) })
    logger.logLevel = .warning
    let configuration = EngineConfiguration(
      boards: [AlertBoard(name: "soak")], defaultPattern: .named("DE"),
      missedIndicator: IndicatorSetting(led: 0, mode: .off))
    let service = AlertService(
      configuration: configuration, connectors: ["soak": connector], clock: ContinuousClock(), logger: logger)
    let running = Task { await service.run() }
    defer { running.cancel() }

    // Wait for the board: a first call must ring.
    var mark = board.probe.mark
    await service.submit(.call(IncomingCall(id: "soak-warm-up")))
    guard await board.probe.first(from: mark, timeout: .seconds(30), where: { $0.isPlaying }) != nil else {
      throw BenchError("the soak's board never rang")
    }
    await service.submit(.answered(callID: nil))
    _ = await board.probe.first(from: mark, where: { $0.isSilent })

    var outcome = Outcome()
    var random = SplitMix64(seed: 42)
    let clock = ContinuousClock()
    let started = clock.now
    for index in 0..<calls {
      if index % 500 == 0 {
        let problems =
          "\(outcome.hangupsNotHonoured) hangups not honoured, \(outcome.longerThanBoardCap) over the cap, "
          + "\(outcome.overCap) late silences"
        progress("soak: call \(index) of \(calls), \(problems)")
        board.probe.clear()
      }
      outcome.calls += 1
      let roll = random.next() % 1_000
      let capped = roll < cappedPerMille  // 3 % by default: sent 29.9 s ago, 100 ms of cap left
      let unplugBefore = roll >= cappedPerMille && roll < cappedPerMille + 5  // 0.5 %: arrives while unplugged
      let unplugDuring = roll >= cappedPerMille + 5 && roll < cappedPerMille + 15  // 1 %: unplugged while it rings
      let failuresBefore = failures.count
      mark = board.probe.mark
      if unplugBefore {
        line.unplug()
        outcome.disconnects += 1
      }
      let id = "soak-\(index)"
      let sent = clock.now
      var call = IncomingCall(id: id)
      var deadline = sent.advanced(by: .seconds(30))
      if capped {
        outcome.cappedCalls += 1
        let now = Date()
        let sentAt = now.addingTimeInterval(-29.9)
        call.sentAt = sentAt
        deadline = sent.advanced(by: .seconds(sentAt.addingTimeInterval(30).timeIntervalSince(now)))
      }
      await service.submit(.call(call))
      guard let ring = await board.probe.first(from: mark, timeout: .seconds(10), where: { $0.isPlaying }) else {
        outcome.neverRang += 1
        if failures.count > failuresBefore { outcome.neverRangReported += 1 }
        outcome.note("call \(id) never rang (\(failures.count - failuresBefore) failures logged)")
        await service.submit(.hangup(callID: id))
        try await Task.sleep(for: .milliseconds(Int.random(in: 0...3_500)))
        continue
      }
      outcome.callToRing.append(sent.duration(to: ring.at).milliseconds)
      if capped {
        guard let silence = await board.probe.first(from: mark, timeout: .seconds(10), where: { $0.isSilent }) else {
          outcome.neverStopped += 1
          outcome.note("capped call \(id) never stopped")
          continue
        }
        let overshoot = deadline.duration(to: silence.at).milliseconds
        let rang = ring.at.duration(to: silence.at).milliseconds
        let start = sent.duration(to: ring.at).milliseconds
        outcome.capOvershoot.append(overshoot)
        outcome.cappedRang.append(rang)
        if rang > Soak.cappedCallMs + Soak.timerToleranceMs {
          outcome.longerThanBoardCap += 1
          outcome.note(String(format: "capped call %@ rang %.1f ms, longer than its cap", id, rang))
        }
        if overshoot > Soak.capToleranceMs {
          outcome.overCap += 1
          outcome.note(
            String(
              format:
                "capped call %@ fell silent %.1f ms past its deadline (rang %.1f ms, from %.1f ms after the call)", id,
              overshoot, rang, start))
        }
        continue
      }
      try await Task.sleep(for: .milliseconds(Int(random.next() % 20)))
      if unplugDuring {
        line.unplug()
        outcome.disconnects += 1
        try await Task.sleep(for: .milliseconds(Int(random.next() % 300)))
      }
      let hangupMark = board.probe.mark
      let hungUp = clock.now
      await service.submit(.hangup(callID: id))
      // The play may already have ended (a reconnect re-plays it under the same token, so no change shows).
      let silence = await board.probe.first(from: hangupMark, timeout: .seconds(8), where: { $0.isSilent })
      guard let silence else {
        outcome.hangupsNotHonoured += 1
        outcome.note("hangup of \(id) not honoured within 8 s")
        continue
      }
      let delay = hungUp.duration(to: silence.at).milliseconds
      let unplugged = unplugBefore || unplugDuring
      if unplugged { outcome.hangupToSilenceUnplugged.append(delay) } else { outcome.hangupToSilence.append(delay) }
      if delay > Soak.leaseMs + Soak.capToleranceMs {
        outcome.hangupsNotHonoured += 1
        outcome.note(String(format: "hangup of %@ took %.1f ms", id, delay))
      } else if !unplugged && delay > 1_500 && failures.count == failuresBefore {
        outcome.stopsLost += 1
        outcome.note(String(format: "hangup of %@ (connected) took %.1f ms with no failure logged", id, delay))
      }
    }
    outcome.seconds = started.duration(to: clock.now).seconds
    outcome.failuresLogged = failures.count
    outcome.sampleFailures += failures.samples
    outcome.injected = line.injected
    outcome.connections = line.connectionCount()
    outcome.boardCounters = await board.runner.withBoard { $0.core.status(nowMs: 0).counters }
    running.cancel()
    _ = await running.value
    await board.stop()
    return outcome
  }
}

extension FaultyLinkSoak.Outcome {
  mutating func note(_ line: String) {
    progress("soak: " + line)
    if sampleFailures.count < 20 { sampleFailures.append(line) }
  }
}

/// Warnings the daemon's board driver logs when a command fails after every retransmission.
final class FailureLog: Sendable {
  private let state = Mutex((count: 0, samples: [String]()))

  func add(_ message: String) {
    state.withLock { state in
      state.count += 1
      if state.samples.count < 10 { state.samples.append(message) }
    }
  }

  var count: Int { state.withLock { $0.count } }
  var samples: [String] { state.withLock { $0.samples } }
}

/// A log handler that counts "failed" warnings into a ``FailureLog`` and prints nothing.
struct CountingLogHandler: LogHandler {
  let log: FailureLog
  var metadata: Logger.Metadata = [:]
  var logLevel: Logger.Level = .warning

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    let text = "\(event.message)"
    if event.level >= .warning, text.contains("failed") { log.add(text) }
  }
}
