import CallAlertDaemon
import CallAlertEngine
import CallAlertTestSupport
import Clocks
import Foundation
import Synchronization
import Testing

/// A do-not-disturb switch made for a while ends on the daemon's own clock: the service wakes for it with no
/// input, records `dnd_ended`, and the configured mode applies again.
@Suite struct DoNotDisturbUntilServiceTests {
  @Test func theServiceWakesWhenTheSwitchEnds() async throws {
    let clock = TestClock()
    let wall = Date(timeIntervalSince1970: 1_795_845_600)
    let recorded = Mutex<[EngineEvent]>([])
    let service = AlertService(
      configuration: EngineConfiguration(), connectors: [:], clock: clock, wallClock: { wall },
      logger: CapturedLog().logger, recorder: { event, _ in recorded.withLock { $0.append(event) } })
    let running = Task { await service.run() }
    defer { running.cancel() }
    _ = await service.submit(.setDoNotDisturb(.on, until: wall.addingTimeInterval(60)))
    #expect(await service.snapshot().doNotDisturb.until == wall.addingTimeInterval(60))
    let ended: @Sendable () -> Bool = {
      recorded.withLock { $0.contains(.doNotDisturbEnded(mode: .on, until: wall.addingTimeInterval(60))) }
    }
    let took = await advance(clock, by: .seconds(1), within: .seconds(120)) { ended() }
    // Not before its time (the wall clock stands still here: the monotonic one ends it).
    #expect(took.map { $0 >= .seconds(60) && $0 <= .seconds(61) } == true, "\(String(describing: took))")
    #expect(await service.snapshot().doNotDisturb.override == nil)
  }
}
