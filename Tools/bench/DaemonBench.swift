import CallAlertDaemon
import Foundation

/// The daemon at work, in this process, on virtual boards behind pseudo-terminals: latency from a request
/// on the control socket to the board's actuators, cap accuracy, idle cost, and fan-out to many boards.
enum DaemonBench {
  /// Call and hangup latency.
  struct LatencyFigures: Sendable {
    /// From sending `call` to the board's first actuator change, ms, by series.
    let callSeries: [[Double]]
    /// From sending `hangup` to every actuator off, ms, by series.
    let hangupSeries: [[Double]]
    /// Every series' calls.
    var call: Summary { Summary(callSeries.flatMap { $0 }) }
    /// Every series' hangups.
    var hangup: Summary { Summary(hangupSeries.flatMap { $0 }) }
    /// Calls that did not ring, or did not stop, within 5 s.
    let failures: Int
    /// CPU time (user + system) of the whole process (daemon, board, bench client) per request (a call or a
    /// hangup), over the timed calls, ms.
    let cpuMsPerRequest: Double
    /// The same trip in plain C, measured before the first series and after each in the same run.
    var floors: FloorSeries?

    /// Calls against the floor series beside each.
    var callAgainstFloor: AgainstFloor? { floors.flatMap { AgainstFloor(daemon: callSeries, floors: $0.figures) } }
    /// Hangups against the floor series beside each.
    var hangupAgainstFloor: AgainstFloor? {
      floors.flatMap { AgainstFloor(daemon: hangupSeries, floors: $0.figures) }
    }

    var json: JSONValue {
      var members: [(String, JSONValue)] = [
        ("call_to_first_actuator", call.json(unit: "ms")), ("hangup_to_all_off", hangup.json(unit: "ms")),
        ("failures", .int(failures)), ("cpu_ms_per_request", .number(cpuMsPerRequest)),
        ("series", .int(callSeries.count)),
      ]
      if let floors, let floor = floors.pooled, let calls = callAgainstFloor, let hangups = hangupAgainstFloor {
        // call_over_floor and hangup_over_floor keep their shape: now the medians of the ratios to the adjacent
        // floor series, the single floor series they were taken against before having proved unstable.
        members += [
          ("floor", floor.json), ("call_over_floor", calls.medianRatiosJSON),
          ("hangup_over_floor", hangups.medianRatiosJSON),
          ("cpu_per_request_over_floor", .number(cpuMsPerRequest / floor.cpuMsPerCall)),
          ("call_against_floor", calls.json), ("hangup_against_floor", hangups.json), ("floor_series", floors.json),
        ]
      }
      return .object(members)
    }
  }

  /// How exactly a call stops at its cap.
  struct CapFigures: Sendable {
    /// The cap each call was left (30 s minus its lateness), ms.
    let capMs: Int
    /// |actual silence - expected silence|, ms.
    let absoluteError: Summary
    /// Mean of actual - expected (positive: late), ms.
    let meanSignedErrorMs: Double
    /// Earliest (most negative) actual - expected, ms.
    let earliestMs: Double
    /// How long the board rang, ms.
    let rang: Summary
    /// Calls that did not ring or stop within 5 s.
    let failures: Int

    var json: JSONValue {
      .object([
        ("cap_ms", .int(capMs)), ("absolute_error", absoluteError.json(unit: "ms")),
        ("mean_signed_error_ms", .number(meanSignedErrorMs)), ("earliest_signed_error_ms", .number(earliestMs)),
        ("rang", rang.json(unit: "ms")), ("failures", .int(failures)),
      ])
    }
  }

  /// The daemon idle with a board connected.
  struct IdleFigures: Sendable {
    /// How long it was watched.
    let seconds: Double
    /// CPU time the whole process used meanwhile (daemon, board, bench), s.
    let cpuSeconds: Double
    /// RSS at the end, KiB.
    let residentKiB: Int
    /// RSS before the daemon started, KiB (the bench's own share).
    let residentBeforeKiB: Int
    /// Threads in the process.
    let threads: Int
    /// Context switches of every thread of the process per second while it was watched: each is a thread
    /// put to sleep and woken again (the bench's own sleeping task wakes once, at the end).
    let wakeUpsPerSecond: Double
    /// The threads that woke, by name, with their context switches over the whole watch.
    let wakeUpsByThread: [(name: String, count: Int)]

    /// CPU as a percentage of one core.
    var cpuPercent: Double { cpuSeconds / seconds * 100 }

    var json: JSONValue {
      .object([
        ("seconds", .number(seconds)), ("cpu_seconds", .number(cpuSeconds)), ("cpu_percent", .number(cpuPercent)),
        ("rss_kib", .int(residentKiB)), ("rss_before_daemon_kib", .int(residentBeforeKiB)),
        ("rss_daemon_kib", .int(residentKiB - residentBeforeKiB)), ("threads", .int(threads)),
        ("wake_ups_per_s", .number(wakeUpsPerSecond)),
        ("wake_ups_by_thread", .object(wakeUpsByThread.map { ($0.name, .int($0.count)) })),
      ])
    }
  }

  /// One daemon, many boards, every call fanned out to all.
  struct FanOutFigures: Sendable {
    /// Boards.
    let boards: Int
    /// From sending `call` to the last board's first actuator change, ms, each call sent to a settled daemon, by
    /// series.
    let lastSeries: [[Double]]
    /// Every series' calls.
    var last: Summary { Summary(lastSeries.flatMap { $0 }) }
    /// From sending `call` to each board's first actuator change, ms (boards × calls values).
    let each: Summary
    /// From sending `hangup` to the last board's actuators all off, ms.
    let hangupLast: Summary
    /// As ``last``, each call sent as soon as the previous call's boards went silent, while the daemon still
    /// handled that hangup's acknowledgements and events.
    let lastBackToBack: Summary
    /// RSS at the end, KiB.
    let residentKiB: Int
    /// RSS before the boards and the daemon started, KiB.
    let residentBeforeKiB: Int
    /// Calls where some board did not ring or stop within 5 s.
    let failures: Int
    /// The same fan-out in plain C, measured before the first series and after each in the same run.
    var floors: FloorSeries?

    /// The settled calls against the floor series beside each.
    var lastAgainstFloor: AgainstFloor? { floors.flatMap { AgainstFloor(daemon: lastSeries, floors: $0.figures) } }

    var json: JSONValue {
      var members: [(String, JSONValue)] = [
        ("boards", .int(boards)), ("call_to_last_board", last.json(unit: "ms")),
        ("call_to_each_board", each.json(unit: "ms")), ("hangup_to_last_board_off", hangupLast.json(unit: "ms")),
        ("call_to_last_board_back_to_back", lastBackToBack.json(unit: "ms")),
        ("rss_kib", .int(residentKiB)), ("rss_before_kib", .int(residentBeforeKiB)),
        ("rss_added_kib", .int(residentKiB - residentBeforeKiB)), ("failures", .int(failures)),
      ]
      members.append(("series", .int(lastSeries.count)))
      if let floors, let floor = floors.pooled, let against = lastAgainstFloor {
        // call_to_last_board_over_floor keeps its shape: the medians of the ratios to the adjacent floor series.
        members += [
          ("floor", floor.json), ("call_to_last_board_over_floor", against.medianRatiosJSON),
          ("hangup_to_last_board_over_floor", FloorBench.ratiosJSON(hangupLast, floor.trip)),
          ("call_to_last_board_against_floor", against.json), ("floor_series", floors.json),
        ]
      }
      return .object(members)
    }
  }

  // MARK: - Scenarios

  /// Starts a daemon on one board, waits for the board, then runs `body`; stops everything afterwards.
  static func withOneBoard<T>(label: String, _ body: (DaemonUnderTest, ProbedBoard) async throws -> T) async throws -> T
  {
    let board = try ProbedBoard()
    let daemon = try await DaemonUnderTest.start(boardPaths: [board.slavePath], label: label)
    do {
      try await warmUp(daemon, [board])
      let result = try await body(daemon, board)
      await daemon.stop()
      await board.stop()
      return result
    } catch {
      await daemon.stop()
      await board.stop()
      throw error
    }
  }

  /// Rings every board once (waiting until each daemon-board session is up) and answers the call.
  static func warmUp(_ daemon: DaemonUnderTest, _ boards: [ProbedBoard]) async throws {
    let marks = boards.map { $0.probe.mark }
    _ = try await daemon.request(#"{"type":"call","id":"warm-up"}"#)
    for (board, mark) in zip(boards, marks) {
      guard await board.probe.first(from: mark, timeout: .seconds(20), where: { $0.isPlaying }) != nil else {
        throw BenchError("board \(board.slavePath) never rang: the daemon did not connect to it")
      }
    }
    _ = try await daemon.request(#"{"type":"answered","id":"warm-up"}"#)
    for (board, mark) in zip(boards, marks) {
      _ = await board.probe.first(from: mark, where: { $0.isSilent })
    }
  }

  /// Watches the idle daemon for `seconds`.
  static func idle(seconds: Double) async throws -> IdleFigures {
    let before = ProcessStats.residentKiB
    return try await withOneBoard(label: "idle") { _, _ in
      try await Task.sleep(for: .seconds(1))  // let the warm-up's last answers settle
      let cpu = ProcessStats.cpuTime
      let switches = ProcessStats.contextSwitchesByThread()
      let clock = ContinuousClock()
      let start = clock.now
      try await Task.sleep(for: .seconds(seconds))
      let elapsed = start.duration(to: clock.now).seconds
      let wakeUps = ProcessStats.wakeUps(since: switches)
      return IdleFigures(
        seconds: elapsed, cpuSeconds: (ProcessStats.cpuTime - cpu).seconds, residentKiB: ProcessStats.residentKiB,
        residentBeforeKiB: before, threads: ProcessStats.threads,
        wakeUpsPerSecond: Double(wakeUps.map(\.count).reduce(0, +)) / elapsed,
        wakeUpsByThread: wakeUps.filter { $0.count > 0 }.sorted { $0.count > $1.count })
    }
  }

  /// `calls` calls, each hung up as soon as it rings, in `series` series of `calls / series` on one daemon (after
  /// `warmUpCalls` not counted); `between` runs before the first series and after each (the floor's series).
  static func latency(
    calls: Int, series: Int = 1, warmUpCalls: Int = 20, between: () async -> Void = {}
  ) async throws -> LatencyFigures {
    try await withOneBoard(label: "latency") { daemon, board in
      let socket = daemon.socket
      let perSeries = max(1, calls / max(1, series))
      var callSeries: [[Double]] = []
      var hangupSeries: [[Double]] = []
      var cpuMs = 0.0
      var failures = 0
      for index in 0..<(series + 1) {
        await between()
        guard index < series else { break }
        let count = index == 0 ? warmUpCalls + perSeries : perSeries
        let skip = index == 0 ? warmUpCalls : 0
        let one = try await onThread { () -> Result<([Double], [Double], Int, Double), BenchError> in
          var callMs: [Double] = []
          var hangupMs: [Double] = []
          var failures = 0
          var cpuAtStart = ProcessStats.cpuTime
          for call in 0..<count {
            if call == skip { cpuAtStart = ProcessStats.cpuTime }
            let trip: ([Double], [Double])?
            do { trip = try ringAndHangUp(socket, [board], id: "lat-\(index)-\(call)") } catch {
              return .failure(BenchError("latency: \(error)"))
            }
            guard let (ring, silence) = trip else {
              failures += 1
              continue
            }
            if call >= skip {
              callMs.append(ring[0])
              hangupMs.append(silence[0])
            }
            if call % 200 == 0 { board.probe.clear() }
          }
          return .success((callMs, hangupMs, failures, (ProcessStats.cpuTime - cpuAtStart).milliseconds))
        }.get()
        callSeries.append(one.0)
        hangupSeries.append(one.1)
        failures += one.2
        cpuMs += one.3
      }
      return LatencyFigures(
        callSeries: callSeries, hangupSeries: hangupSeries, failures: failures,
        cpuMsPerRequest: cpuMs / Double(2 * max(1, perSeries * series)))
    }
  }

  /// Sends a call, waits for every board's first alerting actuator change, sends the hangup and waits for
  /// every board's actuators all off. Returns the per-board latencies in ms, or nil on a 5 s timeout.
  ///
  /// It blocks its thread throughout, as the C floor's client does (run it on a thread of its own,
  /// ``onThread(_:)``): each trip is timed from just before connect(2) on the client's thread to the board's
  /// callback, with no task hop of the bench's own in between.
  ///
  /// With `settle`, it returns only once the daemon has finished with the hangup: every board's PLAY_ENDED
  /// acknowledged, then a `status` answered. The daemon's loop serves requests in the order its work arrived,
  /// so that answer comes after the events' handling. The next call then meets a quiet daemon, as a real call
  /// does; without it, the next call queues behind the last one's 32 acknowledgements and events.
  static func ringAndHangUp(
    _ socket: String, _ boards: [ProbedBoard], id: String, settle: Bool = false
  ) throws(ControlSocketError) -> ([Double], [Double])? {
    let clock = ContinuousClock()
    let marks = boards.map { $0.probe.mark }
    let sent = clock.now
    _ = try ControlSocketClient.requestBlocking(#"{"type":"call","id":"\#(id)"}"#, path: socket)
    guard BoardProbe.waitForAll(zip(boards, marks).map { ($0.probe, $1) }, where: { $0.isAlerting }) else {
      return nil
    }
    var rings: [Double] = []
    for (board, mark) in zip(boards, marks) {
      guard let ring = board.probe.records(from: mark).first(where: { $0.isAlerting }) else { return nil }
      rings.append(sent.duration(to: ring.at).milliseconds)
    }
    let hangupMarks = boards.map { $0.probe.mark }
    let hungUp = clock.now
    _ = try ControlSocketClient.requestBlocking(#"{"type":"hangup","id":"\#(id)"}"#, path: socket)
    guard BoardProbe.waitForAll(zip(boards, hangupMarks).map { ($0.probe, $1) }, where: { $0.isSilent }) else {
      return nil
    }
    var silences: [Double] = []
    for (board, mark) in zip(boards, hangupMarks) {
      guard let stopped = board.probe.records(from: mark).first(where: { $0.isSilent }) else { return nil }
      // The actuators go off in the same step that ends the play, just before it is reported.
      let off = board.probe.records(from: mark).last { $0.isAllOff && $0.at <= stopped.at }
      silences.append(hungUp.duration(to: (off ?? stopped).at).milliseconds)
    }
    if settle {
      let heard = BoardProbe.waitForAll(zip(boards, hangupMarks).map { ($0.probe, $1) }) { $0.isEventsAcknowledged }
      guard heard else { return nil }
      _ = try ControlSocketClient.requestBlocking(#"{"type":"status"}"#, path: socket)
    }
    return (rings, silences)
  }

  /// `calls` calls each sent `lateness` late, so that only `30 s - lateness` of their cap is left.
  static func capAccuracy(calls: Int, capMs: Int = 100) async throws -> CapFigures {
    try await withOneBoard(label: "cap") { daemon, board in
      let clock = ContinuousClock()
      var errors: [Double] = []
      var rang: [Double] = []
      var failures = 0
      for index in 0..<calls {
        let mark = board.probe.mark
        let wallNow = Date().timeIntervalSince1970
        let sent = clock.now
        // Unix milliseconds, so the lateness is exact to the millisecond.
        let sentAtMs = Int64(((wallNow - 30 + Double(capMs) / 1_000) * 1_000).rounded(.down))
        let expected = sent.advanced(by: .milliseconds(sentAtMs + 30_000) - .seconds(wallNow))
        _ = try await daemon.request(#"{"type":"call","id":"cap-\#(index)","sent_at":\#(sentAtMs)}"#)
        guard let ring = await board.probe.first(from: mark, where: { $0.isAlerting }),
          let stopped = await board.probe.first(from: mark, where: { $0.isSilent })
        else {
          failures += 1
          continue
        }
        let off = board.probe.records(from: mark).last { $0.isAllOff && $0.at <= stopped.at } ?? stopped
        errors.append(expected.duration(to: off.at).milliseconds)
        rang.append(ring.at.duration(to: off.at).milliseconds)
        try await Task.sleep(for: .milliseconds(5))
      }
      return CapFigures(
        capMs: capMs, absoluteError: Summary(errors.map(abs)),
        meanSignedErrorMs: errors.isEmpty ? 0 : errors.reduce(0, +) / Double(errors.count),
        earliestMs: errors.min() ?? 0, rang: Summary(rang), failures: failures)
    }
  }

  /// One daemon driving `boardCount` boards; `calls` calls, each to every board, each sent once the daemon
  /// has settled after the one before, in `series` series with `between` before the first and after each (the
  /// floor's series); then `calls` more, each sent as soon as the one before went silent.
  static func fanOut(
    boardCount: Int, calls: Int, series: Int = 1, warmUpCalls: Int = 5, between: () async -> Void = {}
  ) async throws -> FanOutFigures {
    let before = ProcessStats.residentKiB
    var boards: [ProbedBoard] = []
    for index in 0..<boardCount { boards.append(try ProbedBoard(serial: "VB-\(index)")) }
    let daemon = try await DaemonUnderTest.start(boardPaths: boards.map(\.slavePath), label: "fanout")
    var lastSeries: [[Double]] = []
    var each: [Double] = []
    var hangupLast: [Double] = []
    var lastBackToBack: [Double] = []
    var failures = 0
    let perSeries = max(1, calls / max(1, series))
    do {
      try await warmUp(daemon, boards)
      let socket = daemon.socket
      let boards = boards
      for index in 0..<(series + 1) {
        await between()
        guard index < series else { break }
        let skip = index == 0 ? warmUpCalls : 0
        let settled = await onThread { () -> [([Double], [Double])?] in
          // The probes forget what they saw every 100 calls, so that the RSS measured is the daemon's.
          (0..<(skip + perSeries)).map { call in
            if call % 100 == 0 { for board in boards { board.probe.clear() } }
            return (try? ringAndHangUp(socket, boards, id: "fan-\(index)-\(call)", settle: true)) ?? nil
          }
        }
        var last: [Double] = []
        for (call, trip) in settled.enumerated() {
          guard let (rings, silences) = trip else {
            failures += 1
            continue
          }
          if call >= skip {
            last.append(rings.max() ?? 0)
            each += rings
            hangupLast.append(silences.max() ?? 0)
          }
        }
        lastSeries.append(last)
      }
      let backToBack = await onThread { () -> [([Double], [Double])?] in
        (0..<(perSeries * series)).map { index in
          if index % 100 == 0 { for board in boards { board.probe.clear() } }
          return (try? ringAndHangUp(socket, boards, id: "fan-b2b-\(index)")) ?? nil
        }
      }
      for trip in backToBack {
        guard let (rings, _) = trip else {
          failures += 1
          continue
        }
        lastBackToBack.append(rings.max() ?? 0)
      }
    } catch {
      failures += 1
    }
    let resident = ProcessStats.residentKiB
    await daemon.stop()
    for board in boards { await board.stop() }
    return FanOutFigures(
      boards: boardCount, lastSeries: lastSeries, each: Summary(each), hangupLast: Summary(hangupLast),
      lastBackToBack: Summary(lastBackToBack), residentKiB: resident, residentBeforeKiB: before, failures: failures)
  }
}

/// A bench step that could not run, with why.
struct BenchError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
