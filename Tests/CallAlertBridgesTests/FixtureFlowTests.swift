import CallAlertBridges
import Testing

/// The documented call flows, through the pure parsers and trackers: each fixture's `?` lines are exactly what
/// the tracker reports, whether the bytes come all at once, one at a time, or line by line.
@Suite("Call flows from the documentation")
struct FixtureFlowTests {
  enum Chunking: CaseIterable { case allAtOnce, byteByByte, asWritten }

  static func chunks(_ fixture: Fixture, _ chunking: Chunking) -> [[UInt8]] {
    switch chunking {
    case .allAtOnce: [fixture.allData]
    case .byteByByte: fixture.allData.map { [$0] }
    case .asWritten: fixture.steps.compactMap { if case .data(let bytes) = $0 { bytes } else { nil } }
    }
  }

  @Test(arguments: Fixture.all("fritzbox"), Chunking.allCases)
  func fritzboxFlow(_ fixture: Fixture, chunking: Chunking) throws {
    var lines = LineDecoder()
    var tracker = FritzCallTracker()
    var reported: [String] = []
    for chunk in Self.chunks(fixture, chunking) {
      for case .line(let bytes, _) in lines.feed(chunk) where !bytes.isEmpty {
        reported += tracker.handle(try FritzMonitorLine.parse(bytes)).map(Fixture.render)
      }
    }
    #expect(reported == fixture.expectations)
  }

  @Test(arguments: Fixture.all("ami"), Chunking.allCases)
  func amiFlow(_ fixture: Fixture, chunking: Chunking) {
    var tracker = AMICallTracker(endpoints: ["PJSIP/201", "pjsip/202"], extensions: ["201@ext-local"])
    var reported: [String] = []
    var greetings = 0
    // The restart fixture is two connections: a new decoder takes each (as a new session does).
    var decoder = AMIFrameDecoder()
    for step in Fixture.chunksBySession(fixture) {
      switch step {
      case .none: decoder = AMIFrameDecoder()
      case .some(let bytes):
        for chunk in Self.chunks(Fixture(name: fixture.name, steps: [.data(bytes)]), chunking) {
          for item in decoder.feed(chunk) {
            switch item {
            case .greeting(let text):
              #expect(text.hasPrefix("Asterisk Call Manager/"))
              greetings += 1
            case .malformed(let offset, let error): Issue.record("unreadable frame at \(offset): \(error)")
            case .frame(let frame, _): reported += tracker.handle(frame).map(Fixture.render)
            }
          }
        }
      }
    }
    #expect(reported == fixture.expectations)
    #expect(greetings == fixture.steps.filter { $0 == .login }.count)
  }

  @Test func aRingGroupIsOneCallThatEndsWhenItsLastPhoneStops() {
    // Two watched phones ring for one caller (a ring group): one call; the answer on either ends it once.
    var tracker = AMICallTracker(endpoints: ["PJSIP/201", "PJSIP/202"], extensions: [])
    func dial(_ dest: String, _ status: String? = nil) -> AMIFrame {
      var fields: [(key: String, value: String)] = [
        ("Event", status == nil ? "DialBegin" : "DialEnd"), ("Channel", "PJSIP/trunk-1"), ("CallerIDNum", "4155550101"),
        ("Uniqueid", "9.1"), ("Linkedid", "9.1"), ("DestChannel", dest), ("DestLinkedid", "9.1"),
      ]
      if let status { fields.append(("DialStatus", status)) }
      return AMIFrame(fields)
    }
    var reported = tracker.handle(dial("PJSIP/201-01")) + tracker.handle(dial("PJSIP/202-02"))
    reported += tracker.handle(dial("PJSIP/201-01", "CANCEL"))
    #expect(reported.map(Fixture.render) == ["ringing 9.1 from 4155550101 extension PJSIP/201"])
    reported = tracker.handle(dial("PJSIP/202-02", "BUSY"))
    #expect(reported.map(Fixture.render) == ["ended 9.1 missed"])
  }
}

extension Fixture {
  /// The data per connection: `nil` marks a new connection (after `!close`).
  static func chunksBySession(_ fixture: Fixture) -> [[UInt8]?] {
    var result: [[UInt8]?] = []
    for step in fixture.steps {
      switch step {
      case .data(let bytes): result.append(bytes)
      case .close: result.append(nil)
      default: continue
      }
    }
    return result
  }
}
