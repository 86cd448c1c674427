import CallAlertProtocol
import Foundation
import Testing

@testable import CallAlertEngine

/// The fair call budget: each source its share of the active calls, room always for
/// `critical` and local calls, refusals summed per source and minute.
@Suite struct AlertEngineBudgetTests {
  static let share = AlertEngine.maximumActiveCallsPerSource
  static let sip = CallSource.sip("pbx")

  /// Fills `source`'s share with calls `prefix0`... from `startMs` on, one a millisecond.
  static func fill(
    _ engine: inout AlertEngine, _ source: CallSource, prefix: String, count: Int = share,
    level: InterruptionLevel = .active,
    startMs: UInt64 = 0
  ) {
    for index in 0..<count {
      let effects = engine.handle(
        .call(call("\(prefix)\(index)", level: level).from(source)), at: t(startMs + UInt64(index)))
      #expect(effects.events.contains { if case .ringing = $0 { true } else { false } }, "\(prefix)\(index)")
    }
  }

  static func rang(_ effects: [EngineEffect], _ id: String) -> Bool {
    effects.events.contains { if case .ringing(let call, _, _, _, _) = $0 { call.id == id } else { false } }
  }

  @Test func aFloodedSourceIsRefusedBeyondItsShareWhileAnotherRings() {
    var engine = makeEngine()
    Self.fill(&engine, .mqtt, prefix: "m")
    let refused = engine.handle(.call(call("m-extra").from(.mqtt)), at: t(100))
    #expect(refused.events.first == .ignored(callID: "m-extra", reason: .tooManyCalls))
    #expect(!engine.isActive("m-extra"))
    // Another source still rings, up to its own share.
    let other = engine.handle(.call(call("s1").from(Self.sip)), at: t(101))
    #expect(Self.rang(other, "s1"))
    #expect(engine.calls.count == Self.share + 1)
  }

  @Test func theWholeBudgetRefusesAThirdSource() {
    var engine = makeEngine()
    Self.fill(&engine, .mqtt, prefix: "m")
    Self.fill(&engine, Self.sip, prefix: "s", startMs: 100)
    #expect(engine.calls.count == AlertEngine.maximumActiveCalls)
    let refused = engine.handle(.call(call("h1").from(.http)), at: t(200))
    #expect(refused.events.first == .ignored(callID: "h1", reason: .tooManyCalls))
  }

  /// A local call with the budget full: the busiest source's oldest call gives way (recorded as missed,
  /// reason displaced), and the local call rings.
  @Test func aLocalCallDisplacesTheOldestCallOfTheBusiestSource() {
    var engine = makeEngine()
    Self.fill(&engine, Self.sip, prefix: "s", count: Self.share - 2)
    Self.fill(&engine, .mqtt, prefix: "m", startMs: 100)
    Self.fill(&engine, .http, prefix: "h", count: 2, startMs: 200)
    #expect(engine.calls.count == AlertEngine.maximumActiveCalls)
    let local = engine.handle(.call(call("local").from(.controlSocket)), at: t(300))
    // MQTT has the most calls (32 against 30 and 2); its oldest, m0, gives way.
    #expect(
      local.events.prefix(2) == [
        .stopped(callID: "m0", reason: .displaced), .missed(call("m0").from(.mqtt), reason: .displaced),
      ])
    #expect(Self.rang(local, "local"))
    #expect(!engine.isActive("m0") && engine.isActive("m1") && engine.isActive("local"))
    #expect(engine.calls.count == AlertEngine.maximumActiveCalls)
    // A displaced call is not rung again when delivered again.
    let again = engine.handle(.call(call("m0").from(.mqtt)), at: t(301))
    #expect(again.events == [.ignored(callID: "m0", reason: .duplicateCall)])
  }

  /// A critical call from a source whose share is full displaces that source's own oldest call, not
  /// another source's: a source never holds more than its share.
  @Test func aCriticalCallBeyondItsShareDisplacesItsOwnSourcesOldest() {
    var engine = makeEngine()
    Self.fill(&engine, .mqtt, prefix: "m")
    Self.fill(&engine, Self.sip, prefix: "s", count: 4, startMs: 100)
    let critical = engine.handle(.call(call("m-critical", level: .critical).from(.mqtt)), at: t(200))
    #expect(critical.events.first == .stopped(callID: "m0", reason: .displaced))
    #expect(Self.rang(critical, "m-critical"))
    #expect(engine.calls.count(where: { $0.call.budgetSource == .mqtt }) == Self.share)
    #expect(engine.calls.count(where: { $0.call.budgetSource == Self.sip }) == 4)
  }

  /// Of the busiest source's calls, the least urgent gives way first, then the oldest: a critical call is
  /// displaced only when its source holds nothing else.
  @Test func theLeastUrgentCallGivesWayFirst() {
    var engine = makeEngine()
    _ = engine.handle(.call(call("m-critical", level: .critical).from(.mqtt)), at: t(0))
    Self.fill(&engine, .mqtt, prefix: "m", count: Self.share - 1, startMs: 1)
    let local = engine.handle(.call(call("m-more", level: .critical).from(.mqtt)), at: t(100))
    #expect(local.events.first == .stopped(callID: "m0", reason: .displaced))
    #expect(engine.isActive("m-critical"))
  }

  /// The local socket's own flood displaces its own oldest calls: it never takes more than its share either.
  @Test func theLocalSocketBeyondItsShareDisplacesItsOwnOldest() {
    var engine = makeEngine()
    Self.fill(&engine, .mqtt, prefix: "m", count: 3)
    Self.fill(&engine, .controlSocket, prefix: "l", startMs: 100)
    let more = engine.handle(.call(call("l-more").from(.controlSocket)), at: t(200))
    #expect(more.events.first == .stopped(callID: "l0", reason: .displaced))
    #expect(Self.rang(more, "l-more"))
    #expect(engine.isActive("m0"))
  }

  /// Refusals are reported per source and minute: the first at once, those after it summed when the minute
  /// ends, one event a minute while the flood lasts, nothing once it stops.
  @Test func refusalsAreSummedPerSourceAndMinute() {
    var engine = makeEngine()
    Self.fill(&engine, .mqtt, prefix: "m")
    // The calls ring to their cap (30 s) meanwhile: each refusal is at 1_000 ms, before.
    func refuse(_ id: String, _ source: CallSource, atMs: UInt64) -> [EngineEvent] {
      engine.handle(.call(call(id).from(source)), at: t(atMs)).events.filter {
        if case .callsRefused = $0 { true } else { false }
      }
    }
    #expect(
      refuse("r0", .mqtt, atMs: 1_000) == [
        .callsRefused(source: .mqtt, count: 1, first: call("r0").from(.mqtt), since: wall(1_000))
      ])
    for index in 1...500 { #expect(refuse("r\(index)", .mqtt, atMs: 1_001).isEmpty) }
    #expect(engine.nextDeadlineMs != nil)
    // The cap ends the ringing calls before the minute does; the summary comes at 61 s.
    #expect(engine.nextDeadlineMs! <= 61_000)
    let beforeMinute = engine.advance(to: t(60_999)).events.filter {
      if case .callsRefused = $0 { true } else { false }
    }
    #expect(beforeMinute.isEmpty)
    let summary = engine.advance(to: t(61_000)).events
    #expect(summary == [.callsRefused(source: .mqtt, count: 500, first: call("r1").from(.mqtt), since: wall(1_001))])
    // A quiet minute: the source is forgotten, and its next refusal is reported at once again.
    #expect(engine.advance(to: t(121_000)).events.isEmpty)
    #expect(engine.refusals.isEmpty)
  }

  /// Two sources refused in the same minute get one summary each, in the sources' order.
  @Test func eachSourceHasItsOwnSummary() {
    var engine = makeEngine()
    Self.fill(&engine, .mqtt, prefix: "m")
    Self.fill(&engine, Self.sip, prefix: "s", startMs: 100)
    for index in 0..<3 {
      _ = engine.handle(.call(call("mq\(index)").from(.mqtt)), at: t(1_000))
      _ = engine.handle(.call(call("hq\(index)").from(.http)), at: t(1_000))
    }
    let summaries = engine.advance(to: t(61_000)).events.compactMap { event -> String? in
      if case .callsRefused(let source, let count, _, _) = event { "\(source) \(count)" } else { nil }
    }
    #expect(summaries == ["http 2", "mqtt 2"])
  }

  /// A call without a source is a source of its own ("unattributed"), never a local one.
  @Test func aCallWithoutASourceIsNotLocal() {
    var engine = makeEngine()
    Self.fill(&engine, .unattributed, prefix: "u")
    let refused = engine.handle(.call(call("u-more")), at: t(100))
    #expect(refused.events.first == .ignored(callID: "u-more", reason: .tooManyCalls))
    #expect(!CallSource.unattributed.isLocal && CallSource.controlSocket.isLocal)
  }
}
