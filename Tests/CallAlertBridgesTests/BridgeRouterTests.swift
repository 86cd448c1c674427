import CallAlertBridges
import CallAlertEngine
import CallAlertValues
import Testing

@Suite("Routing a source's calls to the engine")
struct BridgeRouterTests {
  static let call = RingingCall(
    id: "0/261123-214604", callerNumber: "030123456", calledNumber: "987654", line: "SIP0", extension: nil)

  static func source(_ filters: [BridgeFilter]) -> BridgeSource {
    BridgeSource(name: "box", kind: .fritzbox, host: "fritz.box", filters: filters)
  }

  @Test func withoutFiltersEveryCallRingsUnderTheSourcesName() {
    var router = BridgeRouter(source: Self.source([]), region: "DE")
    #expect(
      router.route(.ringing(Self.call))
        == .input(.call(IncomingCall(id: "box:0/261123-214604", callerNumber: "030123456"))))
    #expect(router.route(.answered(callID: Self.call.id)) == .input(.answered(callID: "box:0/261123-214604")))
    #expect(
      router.route(.ended(callID: Self.call.id, outcome: .completed)) == .input(.hangup(callID: "box:0/261123-214604")))
    // Once ended, nothing more goes to the engine for it.
    #expect(router.route(.ended(callID: Self.call.id, outcome: .completed)) == .none)
  }

  /// A call nobody answered (a DISCONNECT without CONNECT, a DialEnd CANCEL) is missed, as a phone counts it.
  @Test func aCallTheCallerGaveUpOnIsUnanswered() {
    var router = BridgeRouter(source: Self.source([]), region: "DE")
    _ = router.route(.ringing(Self.call))
    #expect(
      router.route(.ended(callID: Self.call.id, outcome: .missed)) == .input(.unanswered(callID: "box:0/261123-214604"))
    )
  }

  @Test func theFirstMatchingFilterChoosesBoardsAndPattern() {
    let filters = [
      BridgeFilter(lines: ["POTS"], boards: ["bed"]),
      BridgeFilter(called: ["+49 987654"], callers: ["+49 30 123456"], boards: ["desk"], pattern: "family"),
      BridgeFilter(boards: ["bed"]),
    ]
    var router = BridgeRouter(source: Self.source(filters), region: "DE")
    #expect(
      router.route(.ringing(Self.call))
        == .input(
          .call(
            IncomingCall(
              id: "box:0/261123-214604", callerNumber: "030123456", patternHint: "family", boards: ["desk"]))))
  }

  @Test(arguments: [
    (BridgeFilter(called: ["987655"]), false),
    (BridgeFilter(called: ["987654"]), true),
    (BridgeFilter(lines: ["sip0"]), true),
    (BridgeFilter(lines: ["SIP1"]), false),
    (BridgeFilter(extensions: ["201"]), false),
    (BridgeFilter(callers: ["+49 30 123456"]), true),
    (BridgeFilter(callers: ["+49 30 999"]), false),
    (BridgeFilter(called: ["987654"], lines: ["SIP1"]), false),
  ])
  func everyCriterionMustHold(filter: BridgeFilter, matches: Bool) {
    let router = BridgeRouter(source: Self.source([filter]), region: "DE")
    #expect(router.matches(filter, Self.call) == matches)
  }

  @Test(arguments: [
    ("201", "PJSIP/201", true), ("201", "201@ext-local", true), ("PJSIP/201", "pjsip/201", true),
    ("20", "PJSIP/201", false), ("201@ext-local", "201@from-internal", false),
  ])
  func extensionsMatchByTheirBareNumber(wanted: String, actual: String, matches: Bool) {
    let filter = BridgeFilter(extensions: [wanted])
    let router = BridgeRouter(source: Self.source([filter]), region: "US")
    #expect(router.matches(filter, RingingCall(id: "1", extension: actual)) == matches)
  }

  @Test func callsNoFilterTakesOrAnIgnoringFilterTakesAreHeldAndTheirEndsGoNowhere() {
    var router = BridgeRouter(
      source: Self.source([BridgeFilter(lines: ["POTS"], ignore: true), BridgeFilter(lines: ["SIP1"])]), region: "DE")
    guard case .held(let why) = router.route(.ringing(Self.call)) else { Issue.record("rang"); return }
    #expect(why.contains("no filter"))
    #expect(router.route(.answered(callID: Self.call.id)) == .none)
    #expect(router.route(.ended(callID: Self.call.id, outcome: .missed)) == .none)
    var pots = Self.call
    pots.line = "POTS"
    guard case .held(let reason) = router.route(.ringing(pots)) else { Issue.record("rang"); return }
    #expect(reason.contains("ignores"))
  }
}
