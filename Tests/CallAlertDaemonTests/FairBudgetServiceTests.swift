import CallAlertDaemon
import CallAlertEngine
import CallAlertTestSupport
import Clocks
import Foundation
import Testing

/// The call budget in the alert service: where a call came from is stamped on it, and a
/// flood of refusals is one log line at once and one a minute, with the count, not one line each.
@Suite struct FairBudgetServiceTests {
  @Test func refusalsAreLoggedOnceAMinuteWithTheirCount() async {
    let clock = TestClock()
    let log = CapturedLog()
    let service = AlertService(configuration: EngineConfiguration(), connectors: [:], clock: clock, logger: log.logger)
    let running = Task { await service.run() }
    for index in 0..<AlertEngine.maximumActiveCallsPerSource {
      let events = await service.submit(.call(IncomingCall(id: "m\(index)")), from: .mqtt)
      #expect(events.contains { if case .ringing = $0 { true } else { false } })
    }
    for index in 0..<100 {
      let events = await service.submit(.call(IncomingCall(id: "x\(index)")), from: .mqtt)
      #expect(events.first == .ignored(callID: "x\(index)", reason: .tooManyCalls))
    }
    #expect(log.matching("refused").count == 1, "\(log.matching("refused"))")
    #expect(log.matching("mqtt: refused call x0").count == 1, "\(log.all)")
    // The local socket still rings, whatever MQTT does; its call is stamped as the socket's.
    let local = await service.submit(.call(IncomingCall(id: "local")), from: .controlSocket)
    #expect(
      local.contains { if case .ringing(let call, _, _, _, _) = $0 { call.source == .controlSocket } else { false } })
    // The rest of the minute's refusals, in one line when it ends.
    let summed = await advance(clock, by: .seconds(1), within: .seconds(70)) {
      !log.matching("refused 99 calls").isEmpty
    }
    #expect(summed != nil, "\(log.matching("refused"))")
    #expect(log.matching("refused").count == 2, "\(log.matching("refused"))")
    running.cancel()
    _ = await running.value
  }
}
