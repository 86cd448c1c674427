import CallAlertEngine

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Follows the calls of the phones paired over KDE Connect and says what each telephony packet means for the
/// engine: a pure state machine, `(state, event, now) -> (state, inputs)`, tested without sockets.
///
/// - `ringing` starts a call, whose id is made of the device and the caller's number (and the second it
///   started, so a later call from the same number is a new call); the same `ringing` again, while that call
///   rings, is the same call.
/// - `talking` answers the ringing call; its `isCancel` (the phone hung up after talking) ends it quietly.
/// - `ringing` with `isCancel` ends a call nobody answered: it stops ringing and counts as missed.
/// - `missedCall` after that says the same again and changes nothing; a `missedCall` for a call still ringing
///   ends it as missed; one for a call never seen (its `ringing` was lost) is recorded as missed without ringing.
/// - Anything for an unknown call (`talking` of a call placed on the phone, a stray cancel) changes nothing.
public struct KDEConnectCallTracker: Sendable {
  /// Where a call is.
  public enum Phase: Equatable, Sendable {
    /// It rings.
    case ringing
    /// It was answered on the phone.
    case answered
    /// It ended unanswered (kept a while, so the `missedCall` that follows is not a second missed call).
    case missed
  }

  private struct Entry: Sendable {
    var device: String
    var number: String
    var callID: String
    var phase: Phase
    var since: Date
  }

  /// How long a call that ended unanswered is remembered, for its `missedCall`.
  public static let endedMemory: TimeInterval = 60
  /// How long a call is followed at most: a phone that vanished mid-call never sends the end.
  public static let longestCall: TimeInterval = 4 * 3_600
  /// The most calls followed at once; beyond, the oldest is forgotten.
  public static let maximumCalls = 32

  /// How long a call may ring, so that a call never seen ringing is recorded as too late to ring.
  public let capMs: UInt64
  private var entries: [Entry] = []

  /// Creates an empty tracker; `capMs` is the engine's cap.
  public init(capMs: UInt64) {
    self.capMs = capMs
  }

  /// The calls followed now, oldest first.
  public var calls: [(callID: String, phase: Phase)] { entries.map { ($0.callID, $0.phase) } }

  /// The engine's id of the call that rings or was answered on `device` now, if any (for `request_mute`).
  public func activeCall(device: String) -> String? {
    entries.last { $0.device == device && $0.phase == .ringing }?.callID
  }

  /// Takes one event from a phone.
  ///
  /// - Parameters:
  ///   - event: What the packet said.
  ///   - device: The phone's name as shown (it names the calls and the call budget's source).
  ///   - now: The wall clock, for the call's id and for forgetting old calls.
  /// - Returns: The engine's inputs, in order.
  public mutating func handle(_ event: KDEConnectTelephonyEvent, device: String, now: Date) -> [EngineInput] {
    forgetOld(now: now)
    let number = event.phoneNumber ?? ""
    let index = entries.lastIndex { $0.device == device && $0.number == number }
    switch (event.kind, event.isCancel) {
    case (.ringing, false):
      if let index, entries[index].phase == .ringing { return [] }
      let call = newCall(event, device: device, now: now)
      remember(Entry(device: device, number: number, callID: call.id, phase: .ringing, since: now))
      return [.call(call)]
    case (.ringing, true), (.missedCall, _):
      guard let index else {
        guard event.kind == .missedCall else { return [] }
        // Its ringing never reached us: recorded as missed, too late to ring (it was sent a cap ago).
        var call = newCall(event, device: device, now: now)
        call.sentAt = now.addingTimeInterval(-Double(capMs) / 1_000 - 1)
        remember(Entry(device: device, number: number, callID: call.id, phase: .missed, since: now))
        return [.call(call)]
      }
      guard entries[index].phase == .ringing else { return [] }
      entries[index].phase = .missed
      entries[index].since = now
      return [.unanswered(callID: entries[index].callID)]
    case (.talking, false):
      guard let index, entries[index].phase == .ringing else { return [] }
      entries[index].phase = .answered
      entries[index].since = now
      return [.answered(callID: entries[index].callID)]
    case (.talking, true):
      guard let index, entries[index].phase == .answered else { return [] }
      let entry = entries.remove(at: index)
      return [.hangup(callID: entry.callID)]
    }
  }

  /// The call's id: `kdeconnect:<device>:<number>:<second it started>` (`withheld` for no number).
  public static func callID(device: String, number: String?, startedAt: Date) -> String {
    "kdeconnect:\(device):\(number ?? "withheld"):\(Int64(startedAt.timeIntervalSince1970.rounded(.down)))"
  }

  private func newCall(_ event: KDEConnectTelephonyEvent, device: String, now: Date) -> IncomingCall {
    // The Android app puts the number in contactName when the contacts know no name: that is no name.
    let name = event.contactName.flatMap { $0 == event.phoneNumber ? nil : $0 }
    return IncomingCall(
      id: Self.callID(device: device, number: event.phoneNumber, startedAt: now), callerNumber: event.phoneNumber,
      callerName: name, source: .kdeConnect(device))
  }

  private mutating func remember(_ entry: Entry) {
    if entries.count >= Self.maximumCalls { entries.removeFirst() }
    entries.append(entry)
  }

  private mutating func forgetOld(now: Date) {
    entries.removeAll { entry in
      let age = now.timeIntervalSince(entry.since)
      return entry.phase == .missed ? age > Self.endedMemory : age > Self.longestCall
    }
  }
}
