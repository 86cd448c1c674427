import Foundation
import Testing

@testable import CallAlertEngine

/// Do-not-disturb switched for a while: it holds until its time, then the configured mode applies again.
@Suite struct AlertEngineDoNotDisturbUntilTests {
  @Test func aSwitchUntilATimeEndsThereAndTheConfiguredModeAppliesAgain() {
    var engine = makeEngine()
    #expect(engine.handle(.setDoNotDisturb(.on, until: wall(60_000)), at: t(0)).isEmpty)
    let during = engine.snapshot(at: t(1_000)).doNotDisturb
    #expect(during.override == .on && during.isActive && during.until == wall(60_000))
    // The engine asks to be woken at the end.
    #expect(engine.nextDeadlineMs == 60_000)
    #expect(
      engine.handle(.call(call("c1")), at: t(30_000)).events.first == .suppressed(call("c1"), reason: .doNotDisturb))
    #expect(engine.advance(to: t(59_999)).isEmpty)
    #expect(engine.advance(to: t(60_000)) == [.event(.doNotDisturbEnded(mode: .on, until: wall(60_000)))])
    let after = engine.snapshot(at: t(60_000)).doNotDisturb
    #expect(after.override == nil && !after.isActive && after.until == nil)
    #expect(engine.nextDeadlineMs != 60_000)
    #expect(engine.handle(.call(call("c2")), at: t(61_000)).plays.count == 1)
  }

  /// Quiet hours configured on: "off until" lets calls ring for a while, then they are held back again.
  @Test func offUntilATimeOverridesAConfiguredOnForAWhile() {
    var engine = makeEngine(configuration(doNotDisturb: DoNotDisturbConfiguration(mode: .on, timeZone: utc)))
    _ = engine.handle(.setDoNotDisturb(.off, until: wall(10_000)), at: t(0))
    #expect(engine.handle(.call(call("c1")), at: t(1_000)).plays.count == 1)
    #expect(engine.advance(to: t(10_000)).events == [.doNotDisturbEnded(mode: .off, until: wall(10_000))])
    #expect(
      engine.handle(.call(call("c2")), at: t(40_000)).events.contains(.suppressed(call("c2"), reason: .doNotDisturb)))
  }

  /// A wall clock set forward (a machine woken from sleep) ends the switch at its time, however little
  /// monotonic time passed; one set back ends it when its length has passed.
  @Test func eitherClockEndsIt() {
    var forward = makeEngine()
    _ = forward.handle(.setDoNotDisturb(.on, until: wall(3_600_000)), at: t(0))
    let jumped = EngineTime(monotonicMs: 5_000, wall: wall(3_600_000))
    #expect(forward.advance(to: jumped).events == [.doNotDisturbEnded(mode: .on, until: wall(3_600_000))])

    var back = makeEngine()
    _ = back.handle(.setDoNotDisturb(.on, until: wall(60_000)), at: t(0))
    #expect(back.advance(to: EngineTime(monotonicMs: 59_000, wall: wall(-3_600_000))).isEmpty)
    #expect(back.advance(to: EngineTime(monotonicMs: 60_000, wall: wall(-3_540_000))).events.count == 1)
  }

  /// An end that is not after the switch ends it at once; a later switch, with or without an end, replaces it.
  @Test func aPastEndEndsAtOnceAndALaterSwitchReplacesIt() {
    var engine = makeEngine()
    #expect(
      engine.handle(.setDoNotDisturb(.on, until: wall(0)), at: t(0)) == [
        .event(.doNotDisturbEnded(mode: .on, until: wall(0)))
      ])
    #expect(engine.snapshot(at: t(0)).doNotDisturb.override == nil)
    _ = engine.handle(.setDoNotDisturb(.on, until: wall(60_000)), at: t(1_000))
    _ = engine.handle(.setDoNotDisturb(.on), at: t(2_000))
    #expect(engine.snapshot(at: t(2_000)).doNotDisturb.until == nil)
    #expect(engine.advance(to: t(120_000)).isEmpty)
    #expect(engine.snapshot(at: t(120_000)).doNotDisturb.override == .on)
  }

  /// A reload keeps a switch made for a while, and its end.
  @Test func aReloadKeepsTheSwitchAndItsEnd() {
    var engine = makeEngine()
    _ = engine.handle(.setDoNotDisturb(.on, until: wall(60_000)), at: t(0))
    _ = engine.reconfigure(configuration(), at: t(1_000))
    #expect(engine.snapshot(at: t(1_000)).doNotDisturb.until == wall(60_000))
    #expect(engine.advance(to: t(60_000)).events.count == 1)
  }
}
