import CallAlertProtocol
import Foundation
import Testing

@testable import CallAlertEngine

/// Do-not-disturb: what is held back, what breaks through, silent mode, and switching at run time.
@Suite struct AlertEngineDoNotDisturbTests {
  /// Do-not-disturb on, with `changes` applied to the configuration.
  func quiet(_ changes: (inout DoNotDisturbConfiguration) -> Void = { _ in }) -> EngineConfiguration {
    var doNotDisturb = DoNotDisturbConfiguration(mode: .on, timeZone: utc)
    changes(&doNotDisturb)
    return configuration(doNotDisturb: doNotDisturb, region: "DE")
  }

  @Test func doNotDisturbHoldsAnActiveCallBack() {
    var engine = makeEngine(quiet())
    let incoming = call("c1", from: "+4930111")
    #expect(
      engine.handle(.call(incoming), at: t(0)) == [
        .event(.suppressed(incoming, reason: .doNotDisturb)), .event(.missed(incoming, reason: .suppressed)),
        .indicator(board: "board", blink),
      ])
  }

  /// (level, allowTimeSensitive, whether it rings under do-not-disturb).
  static let levels: [(InterruptionLevel, Bool, Bool)] = [
    (.passive, true, false),
    (.active, true, false),
    (.timeSensitive, true, true),
    (.timeSensitive, false, false),
    (.critical, true, true),
    (.critical, false, true),
  ]

  @Test(arguments: levels)
  func levelsBreakThroughAsConfigured(level: InterruptionLevel, allowTimeSensitive: Bool, rings: Bool) {
    var engine = makeEngine(quiet { $0.allowTimeSensitive = allowTimeSensitive })
    #expect(engine.handle(.call(call("c1", level: level)), at: t(0)).plays.count == (rings ? 1 : 0))
  }

  /// (mode, whether an active call rings at the base time, Monday 12:00 UTC).
  static let modes: [(DoNotDisturbMode, [QuietHoursWindow], Bool)] = [
    (.off, [QuietHoursWindow(startMinute: 0, endMinute: 0)], true),
    (.on, [], false),
    (.scheduled, [], true),
    (.scheduled, [QuietHoursWindow(weekdays: [2], startMinute: 11 * 60, endMinute: 13 * 60)], false),
    (.scheduled, [QuietHoursWindow(weekdays: [2], startMinute: 12 * 60, endMinute: 12 * 60 + 1)], false),
    (.scheduled, [QuietHoursWindow(weekdays: [2], startMinute: 9 * 60, endMinute: 12 * 60)], true),
    (.scheduled, [QuietHoursWindow(weekdays: [3], startMinute: 11 * 60, endMinute: 13 * 60)], true),
    // Overnight windows belong to the day they start on: Sunday's covers Monday noon, Monday's does not.
    (.scheduled, [QuietHoursWindow(weekdays: [1], startMinute: 22 * 60, endMinute: 13 * 60)], false),
    (.scheduled, [QuietHoursWindow(weekdays: [2], startMinute: 22 * 60, endMinute: 13 * 60)], true),
    (.scheduled, [QuietHoursWindow(weekdays: [1], startMinute: 13 * 60, endMinute: 13 * 60)], false),
  ]

  @Test(arguments: modes)
  func modesAndSchedules(mode: DoNotDisturbMode, schedule: [QuietHoursWindow], rings: Bool) {
    var engine = makeEngine(
      configuration(doNotDisturb: DoNotDisturbConfiguration(mode: mode, schedule: schedule, timeZone: utc)))
    #expect(engine.handle(.call(call("c1")), at: t(0)).plays.count == (rings ? 1 : 0))
    #expect(engine.snapshot(at: t(0)).doNotDisturb.isActive == !rings)
  }

  /// (repeated-caller window, when the second call comes, whether it breaks through).
  static let repeatedCallers: [(UInt64?, UInt64, Bool)] = [
    (180_000, 60_000, true),
    (180_000, 180_000, true),
    (180_000, 180_001, false),
    (900_000, 600_000, true),
    (900_000, 900_000, true),
    (900_000, 900_001, false),
    (nil, 1_000, false),
  ]

  @Test(arguments: repeatedCallers)
  func aRepeatedCallerBreaksThrough(windowMs: UInt64?, secondMs: UInt64, rings: Bool) {
    var engine = makeEngine(quiet { $0.repeatedCallerWindowMs = windowMs })
    // The first call is held back; it still counts, whatever became of it.
    #expect(engine.handle(.call(call("c1", from: "030 1234567")), at: t(0)).plays.isEmpty)
    let second = engine.handle(.call(call("c2", from: "+49 30 1234567")), at: t(secondMs))
    #expect(second.plays.count == (rings ? 1 : 0))
  }

  @Test func repeatedCallerMemoryAgesOutAfterTheWindow() {
    var engine = makeEngine(quiet())
    _ = engine.handle(.call(call("c1", from: "+4930111")), at: t(0))
    // The id's memory (tombstoneMs) outlasts the number's (window + 1 ms).
    #expect(engine.nextDeadlineMs == 180_001)
    #expect(engine.advance(to: t(180_001)).isEmpty)
    #expect(engine.nextDeadlineMs == 300_000)
  }

  @Test func anotherNumberIsNotARepeatedCaller() {
    var engine = makeEngine(quiet())
    _ = engine.handle(.call(call("c1", from: "+4930111")), at: t(0))
    #expect(engine.handle(.call(call("c2", from: "+4930112")), at: t(1_000)).plays.isEmpty)
  }

  @Test(arguments: [nil, "anonymous", "unknown", ""])
  func aWithheldCallerIsNeverARepeatedCaller(number: String?) {
    var engine = makeEngine(quiet())
    _ = engine.handle(.call(call("c1", from: number)), at: t(0))
    #expect(engine.handle(.call(call("c2", from: number)), at: t(1_000)).plays.isEmpty)
  }

  @Test func aDuplicateDeliveryIsNotARepeatedCall() {
    var engine = makeEngine(quiet { $0.repeatedCallerWindowMs = 180_000 })
    _ = engine.handle(.call(call("c1", from: "+4930111")), at: t(0))
    _ = engine.handle(.call(call("c1", from: "+4930111")), at: t(170_000))
    // Measured from the first arrival, not from the duplicate.
    #expect(engine.handle(.call(call("c2", from: "+4930111")), at: t(180_001)).plays.isEmpty)
  }

  /// (caller as the notification writes it, whether the allowed "+49 30 1234567" matches; region DE).
  static let allowed: [(String?, Bool)] = [
    ("030-1234567", true),
    ("030 123 45 67", true),
    ("0049 30 1234567", true),
    ("+49301234567", true),
    ("+49 (0)30 1234567", true),
    ("+49301234568", false),
    ("+1301234567", false),
    (nil, false),
    ("anonymous", false),
    ("", false),
  ]

  @Test(arguments: allowed)
  func allowedCallersAreComparedInE164(caller: String?, rings: Bool) {
    var engine = makeEngine(quiet { $0.allowedCallers = ["+49 30 1234567"] })
    #expect(engine.handle(.call(call("c1", from: caller)), at: t(0)).plays.count == (rings ? 1 : 0))
  }

  @Test func switchingDoNotDisturbDoesNotTouchRingingCalls() {
    var engine = makeEngine()
    _ = engine.handle(.call(call("c1")), at: t(0))
    #expect(engine.handle(.setDoNotDisturb(.on), at: t(1_000)).isEmpty)
    #expect(engine.snapshot(at: t(1_000)).activeCalls.map(\.call.id) == ["c1"])
    // The next call is held back.
    #expect(
      engine.handle(.call(call("c2")), at: t(2_000)).events.first == .suppressed(call("c2"), reason: .doNotDisturb))
    // Switched off (overriding a configured "on" too) the next one rings.
    _ = engine.handle(.setDoNotDisturb(.off), at: t(3_000))
    #expect(engine.handle(.call(call("c3")), at: t(4_000)).plays.count == 1)
  }

  @Test func theOverrideWinsOverTheConfiguredMode() {
    var engine = makeEngine(quiet())
    _ = engine.handle(.setDoNotDisturb(.off), at: t(0))
    let status = engine.snapshot(at: t(0)).doNotDisturb
    #expect(status == .init(configuredMode: .on, override: .off, isActive: false, silent: false, silentOverride: nil))
    #expect(engine.handle(.call(call("c1")), at: t(0)).plays.count == 1)
  }

  /// (silent, level, board vibrates only, options of the PLAY).
  static let silence: [(Bool, InterruptionLevel, Bool, PlayOptions)] = [
    (false, .active, false, []),
    (true, .active, false, [.muteBuzzer]),
    (true, .timeSensitive, false, [.muteBuzzer]),
    (true, .critical, false, []),
    (false, .active, true, [.muteBuzzer]),
    (true, .critical, true, [.muteBuzzer]),
  ]

  @Test(arguments: silence)
  func silentModeRingsWithTheMotorOnly(silent: Bool, level: InterruptionLevel, vibrateOnly: Bool, options: PlayOptions)
  {
    var engine = makeEngine(
      configuration(
        doNotDisturb: DoNotDisturbConfiguration(timeZone: utc, silent: silent),
        vibrateOnly: vibrateOnly ? ["board"] : []))
    let effects = engine.handle(.call(call("c1", level: level)), at: t(0))
    #expect(effects.plays.map(\.options) == [options])
    if case .ringing(_, _, _, _, let flagged) = effects.events.first {
      #expect(flagged == (silent && level != .critical))
    } else {
      Issue.record("no ringing event")
    }
  }

  @Test func switchingSilentAppliesToTheNextCall() {
    var engine = makeEngine()
    _ = engine.handle(.call(call("c1")), at: t(0))
    #expect(engine.handle(.setSilent(true), at: t(1_000)).isEmpty)
    #expect(engine.snapshot(at: t(1_000)).activeCalls.first?.silent == false)
    #expect(engine.snapshot(at: t(1_000)).doNotDisturb.silent)
    #expect(engine.handle(.call(call("c2")), at: t(2_000)).plays.map(\.options) == [[.muteBuzzer]])
    _ = engine.handle(.setSilent(false), at: t(3_000))
    #expect(engine.handle(.call(call("c3")), at: t(4_000)).plays.map(\.options) == [[]])
  }
}
