import CallAlertEngine
import CallAlertKDEConnect
import Foundation
import Testing

/// The telephony tracker, fed the sequences the Android app sends, with time as data.
@Suite struct KDEConnectCallTrackerTests {
  static let start = Date(timeIntervalSince1970: 1_764_230_400)
  static let id = "kdeconnect:Pixel 7:+4930123456:1764230400"

  static func ringing(
    _ number: String? = "+4930123456", name: String? = "Alice", cancel: Bool = false
  )
    -> KDEConnectTelephonyEvent
  {
    KDEConnectTelephonyEvent(kind: .ringing, isCancel: cancel, phoneNumber: number, contactName: name)
  }

  static func call(_ id: String = id, number: String? = "+4930123456", name: String? = "Alice") -> EngineInput {
    .call(IncomingCall(id: id, callerNumber: number, callerName: name, source: .kdeConnect("Pixel 7")))
  }

  @Test func anUnansweredCallRingsThenCountsAsMissedOnce() {
    var tracker = KDEConnectCallTracker(capMs: 30_000)
    #expect(tracker.handle(Self.ringing(), device: "Pixel 7", now: Self.start) == [Self.call()])
    // The Android app sends its last packet again with isCancel, then missedCall.
    let later = Self.start.addingTimeInterval(12)
    #expect(tracker.handle(Self.ringing(cancel: true), device: "Pixel 7", now: later) == [.unanswered(callID: Self.id)])
    let missed = KDEConnectTelephonyEvent(kind: .missedCall, phoneNumber: "+4930123456", contactName: "Alice")
    #expect(tracker.handle(missed, device: "Pixel 7", now: later).isEmpty)
  }

  @Test func anAnsweredCallStopsAndItsHangUpEndsIt() {
    var tracker = KDEConnectCallTracker(capMs: 30_000)
    _ = tracker.handle(Self.ringing(), device: "Pixel 7", now: Self.start)
    let talking = KDEConnectTelephonyEvent(kind: .talking, phoneNumber: "+4930123456", contactName: "Alice")
    #expect(
      tracker.handle(talking, device: "Pixel 7", now: Self.start.addingTimeInterval(5)) == [.answered(callID: Self.id)])
    var ended = talking
    ended.isCancel = true
    #expect(
      tracker.handle(ended, device: "Pixel 7", now: Self.start.addingTimeInterval(60)) == [.hangup(callID: Self.id)])
    #expect(tracker.calls.isEmpty)
  }

  @Test func aRepeatedRingingIsTheSameCall() {
    var tracker = KDEConnectCallTracker(capMs: 30_000)
    _ = tracker.handle(Self.ringing(), device: "Pixel 7", now: Self.start)
    #expect(tracker.handle(Self.ringing(), device: "Pixel 7", now: Self.start.addingTimeInterval(1)).isEmpty)
    #expect(tracker.calls.count == 1)
    // Another phone ringing with the same caller is its own call.
    #expect(tracker.handle(Self.ringing(), device: "Tablet", now: Self.start).count == 1)
  }

  @Test func theSameCallerLaterIsANewCall() {
    var tracker = KDEConnectCallTracker(capMs: 30_000)
    _ = tracker.handle(Self.ringing(), device: "Pixel 7", now: Self.start)
    _ = tracker.handle(Self.ringing(cancel: true), device: "Pixel 7", now: Self.start.addingTimeInterval(10))
    let again = Self.start.addingTimeInterval(40)
    #expect(
      tracker.handle(Self.ringing(), device: "Pixel 7", now: again) == [
        Self.call("kdeconnect:Pixel 7:+4930123456:1764230440")
      ])
  }

  @Test func aMissedCallNeverSeenRingingIsRecordedTooLateToRing() throws {
    var tracker = KDEConnectCallTracker(capMs: 30_000)
    let missed = KDEConnectTelephonyEvent(kind: .missedCall, phoneNumber: "+4930123456", contactName: "+4930123456")
    let inputs = tracker.handle(missed, device: "Pixel 7", now: Self.start)
    guard case .call(let call) = try #require(inputs.first) else {
      Issue.record("\(inputs)")
      return
    }
    #expect(call.id == Self.id && call.callerName == nil)  // the number as name is no name
    #expect(try #require(call.sentAt) < Self.start.addingTimeInterval(-30))
  }

  @Test func aWithheldNumberAndStrayPacketsChangeWhatTheyShould() {
    var tracker = KDEConnectCallTracker(capMs: 30_000)
    #expect(
      tracker.handle(Self.ringing(nil, name: nil), device: "Pixel 7", now: Self.start) == [
        Self.call("kdeconnect:Pixel 7:withheld:1764230400", number: nil, name: nil)
      ])
    // A call placed on the phone (talking with no ringing) and a cancel of nothing ring nothing.
    let outgoing = KDEConnectTelephonyEvent(kind: .talking, phoneNumber: "+4930555")
    #expect(tracker.handle(outgoing, device: "Pixel 7", now: Self.start).isEmpty)
    #expect(tracker.handle(Self.ringing("+4930555", cancel: true), device: "Pixel 7", now: Self.start).isEmpty)
    #expect(tracker.activeCall(device: "Pixel 7") == "kdeconnect:Pixel 7:withheld:1764230400")
  }

  @Test func oldCallsAreForgotten() {
    var tracker = KDEConnectCallTracker(capMs: 30_000)
    _ = tracker.handle(Self.ringing(), device: "Pixel 7", now: Self.start)
    let muchLater = Self.start.addingTimeInterval(KDEConnectCallTracker.longestCall + 1)
    _ = tracker.handle(Self.ringing("+1555", name: nil), device: "Pixel 7", now: muchLater)
    #expect(tracker.calls.map(\.callID) == ["kdeconnect:Pixel 7:+1555:\(Int(muchLater.timeIntervalSince1970))"])
  }
}
