import CallAlertDaemon
import CallAlertEngine
import CallAlertTestSupport
import Clocks
import Synchronization
import Testing

/// The one entry every source's calls take: the source's identity stamped on the call, what the engine
/// ignored logged under the source's name (but not the budget's refusals, which the engine sums), and the
/// history's back-pressure waited for after the ring, not before it.
@Suite struct CallIntakeTests {
  @Test func aCallIsStampedWithItsSourceAndAnIgnoredInputIsLoggedUnderIt() async {
    let log = CapturedLog()
    let service = AlertService(
      configuration: EngineConfiguration(), connectors: [:], clock: TestClock(), logger: log.logger)
    let intake = CallIntake(service: service, logger: log.logger)

    let events = await intake.submit(.call(IncomingCall(id: "c1")), from: .sip("ring"))
    #expect(
      events.contains { if case .ringing(let call, _, _, _, _) = $0 { call.source == .sip("ring") } else { false } },
      "\(events)")
    let ignored = await intake.submit(.hangup(callID: "nobody"), from: .bridge("fritz"))
    #expect(ignored == [.ignored(callID: "nobody", reason: .unknownCall)])
    #expect(log.matching("source:fritz: the engine ignored nobody: unknown-call").count == 1, "\(log.all)")
    let again = await intake.submit(.call(IncomingCall(id: "c1")), from: .sip("ring"))
    #expect(again == [.ignored(callID: "c1", reason: .duplicateCall)])
    #expect(log.matching("sip:ring: the engine ignored c1: duplicate-call").count == 1, "\(log.all)")
  }

  @Test func refusalsForTheBudgetAreNotLoggedOneByOne() async {
    let log = CapturedLog()
    let service = AlertService(
      configuration: EngineConfiguration(), connectors: [:], clock: TestClock(), logger: log.logger)
    let intake = CallIntake(service: service, logger: log.logger)
    for index in 0..<(AlertEngine.maximumActiveCallsPerSource + 5) {
      await intake.submit(.call(IncomingCall(id: "m\(index)")), from: .mqtt)
    }
    #expect(log.matching("the engine ignored").isEmpty, "\(log.all)")
    // The engine's own summary: the first refusal at once (the rest when the minute ends).
    #expect(log.matching("mqtt: refused call m\(AlertEngine.maximumActiveCallsPerSource)").count == 1, "\(log.all)")
  }

  @Test func theAnswerWaitsForTheHistoryButTheCallRangBefore() async {
    let log = CapturedLog()
    let room = HeldRoom()
    let recorded = Mutex<[String]>([])
    let service = AlertService(
      configuration: EngineConfiguration(), connectors: [:], clock: TestClock(), logger: log.logger,
      recorder: { event, _ in
        if case .ringing(let call, _, _, _, _) = event { recorded.withLock { $0.append(call.id) } }
      },
      recorderRoom: { await room.wait() })
    let intake = CallIntake(service: service, logger: log.logger)
    let submitted = Task { await intake.submit(.call(IncomingCall(id: "held")), from: .controlSocket) }
    // The call rang (and was handed to the history) while its answer still waits for room.
    let rang = await answer(within: 30) {
      recorded.withLock { $0 } == ["held"] && room.waiting
    } until: {
      $0
    }
    #expect(rang, "recorded \(recorded.withLock { $0 }), waiting \(room.waiting)")
    room.open()
    let events = await submitted.value
    #expect(events.contains { if case .ringing = $0 { true } else { false } }, "\(events)")
  }
}

/// A history with no room until opened: what waits for it is held, and can be seen waiting.
private final class HeldRoom: Sendable {
  private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

  var waiting: Bool { state.withLock { !$0.waiters.isEmpty } }

  func wait() async {
    await withCheckedContinuation { continuation in
      let resume = state.withLock { state -> Bool in
        if state.open { return true }
        state.waiters.append(continuation)
        return false
      }
      if resume { continuation.resume() }
    }
  }

  func open() {
    let waiters = state.withLock { state in
      state.open = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }
}
