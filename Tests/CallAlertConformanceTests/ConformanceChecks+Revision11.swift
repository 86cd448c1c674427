import CallAlertBoardCore
import CallAlertClient
import CallAlertProtocol
import Testing

/// The checks of what PROTOCOL.md v1.1 settled (§20): the link behaviours of Protocol/vectors/link.json, played
/// frame by frame, and the rest through the host client.
extension ConformanceChecks {
  /// Plays the link.json scenario `name` on a fresh board of `kind` that nothing else is connected to.
  ///
  /// A run that failed after the board reported that its tick fell behind its clock, in a scenario where every
  /// event counts, shows nothing (``LinkScenarios/Outcome/boardFellBehind(_:)``): it is played again on a
  /// fresh board, at most ``linkScenarioRuns`` times in all. Every failure of a board that did not report falling
  /// behind is recorded; if the board fell behind in every run, a warning says so. A run whose timing was not
  /// what the scenario needs (``LinkScenarios/Outcome/premiseFailed(_:)``: the host read or sent late) is
  /// played again in the same way.
  static func linkScenario(_ name: String, _ kind: BoardKind) async throws {
    guard let scenario = LinkScenarios.scenario(name) else {
      Issue.record("no scenario \(name) in Protocol/vectors/link.json")
      return
    }
    for run in 1...linkScenarioRuns {
      var outcome = LinkScenarios.Outcome.held
      try await BoardUnderTest.withUnconnectedBoard(kind) { slavePath in
        outcome = try await LinkScenarios.run(scenario, kind: kind, slavePath: slavePath)
      }
      switch outcome {
      case .held: return
      case .failed(let failure):
        Issue.record(Comment(rawValue: failure))
        return
      case .boardFellBehind(let why), .premiseFailed(let why):
        guard run == linkScenarioRuns else { continue }
        let reason =
          if case .boardFellBehind = outcome { "the board fell behind its clock (FAULT tick_overrun)" } else {
            "the run's timing was not what the scenario needs"
          }
        Issue.record(
          Comment(rawValue: "\(reason) in all \(run) runs, so none shows the scenario; the last: \(why)"),
          severity: .warning)
      }
    }
  }

  /// How many times ``linkScenario(_:_:)`` plays a scenario whose runs the board's falling behind spoilt.
  static let linkScenarioRuns = 3

  /// §13.8: held up for 250 ms while LED 0 blinks (a change due every 100 ms), the board reports FAULT
  /// tick_overrun with about the time it lost; then nothing more while it keeps up.
  static func tickOverrun(_ kind: BoardKind) async throws {
    try await withBoard(kind) { (board: BoardUnderTest) async throws in
      _ = try await board.client.send(.setIndicator(IndicatorSetting(led: 0, mode: .blink, onMs: 100, offMs: 100)))
      let mark = await board.log.count
      let heldUp = ContinuousClock.now
      await board.holdUp(ms: 250)
      let isOverrun: @Sendable (BoardClientEvent) -> Bool = { entry in
        if case .event(.fault(let fault)) = entry { fault.code == .tickOverrun } else { false }
      }
      var found = await board.log.first(from: mark, within: 5, where: isOverrun)
      if found == nil {
        // An event whose five tries went unanswered (a host slowed down as much as the board was) waits for the
        // next command the board acts on (§5.5): one is sent, and the FAULT must come then.
        _ = try await board.client.status()
        found = await board.log.first(from: mark, within: 5, where: isOverrun)
      }
      guard case .event(.fault(let fault))? = found?.event else {
        Issue.record("\(kind): no FAULT tick_overrun after a 250 ms hold-up")
        return
      }
      // Late by the hold-up less the time to the change that was due (at most 100 ms), plus whatever a loaded
      // machine added: never more than the time from the hold-up to the FAULT's arrival (a load of 10 made it
      // over a second once, truthfully).
      let sinceHoldUp = heldUp.duration(to: .now)
      let bound = UInt32(
        clamping: Int(
          sinceHoldUp.components.seconds * 1_000 + sinceHoldUp.components.attoseconds / 1_000_000_000_000_000) + 1)
      #expect(
        fault.detail > TickOverrun.thresholdMs && fault.detail <= bound, "\(kind): \(fault.detail) ms of \(bound)")
      let status = try await board.client.status()
      #expect(status.counters.faults >= 1)
    }
  }

  /// §10.5: STATUS's indicator_mode is LED 0's; LED 1's indicator shows only in the lit LEDs.
  static func statusIndicator(_ kind: BoardKind) async throws {
    try await withBoard(kind) { (board: BoardUnderTest) async throws in
      #expect(try await board.client.send(.setIndicator(IndicatorSetting(led: 1, mode: .on))) == .ok)
      let status = try await board.client.status()
      #expect(status.indicatorMode == IndicatorMode.off.rawValue)
      #expect(status.actuators.leds == 0b10)
    }
  }
}
