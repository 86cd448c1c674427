/// Follows Asterisk's calls to watched endpoints and extension hints, from AMI events, and says what happened to
/// each as ``BridgeNotification``s. A pure state machine.
///
/// Channel watching (the endpoints, e.g. `PJSIP/201`): a channel of a watched endpoint entering state 5
/// (Ringing, by `Newstate` or `DialBegin`) starts a call keyed by the channel's `Linkedid`, so a ring group's
/// phones ringing for one caller are one call. `DialEnd` with `ANSWER`, `BridgeEnter`, or a ringing channel going
/// Up answers it; `DialEnd` with another status drops that channel, and when none is left ringing the call was
/// missed; a `Hangup` of the caller's own channel (its `Uniqueid` is the `Linkedid`) or of the answering channel
/// ends it. A watched channel ringing for a call already answered (a transfer) ends that call and starts the next
/// one with the same `Linkedid` and a `#2` suffix.
///
/// Hint watching (the extensions, e.g. `201@ext-local`): `ExtensionStatus` 8 or 9 (Ringing) starts a call, 1
/// or 2 (In use, Busy) answers it, 0 or 4 (Idle, Unavailable) ends it. Hints carry no caller.
public struct AMICallTracker: Sendable {
  private struct Call: Sendable {
    var key: String  // the Linkedid, or `hint:exten@context`
    var callID: String
    var ringing: [String]  // channels ringing now
    var answeredBy: String?
    var answered = false
  }

  /// The most calls followed at once; a new call beyond it ends the oldest.
  public static let maximumCalls = 64
  private let endpoints: [String]
  private let extensions: [String]
  private var calls: [Call] = []
  private var generations: [(key: String, count: Int)] = []
  private var hintCount = 0

  /// Creates a tracker for these endpoints (`PJSIP/201`) and extension hints (`201`, `201@ext-local`).
  public init(endpoints: [String], extensions: [String]) {
    self.endpoints = endpoints.map { $0.lowercased() }
    self.extensions = extensions.map { $0.lowercased() }
  }

  /// The ids of the calls followed now, oldest first.
  public var callIDs: [String] { calls.map(\.callID) }

  /// The endpoint of a channel name: `PJSIP/201-0000001a` is `PJSIP/201`.
  public static func endpoint(ofChannel channel: String) -> String {
    guard let dash = channel.lastIndex(of: "-"), channel[..<dash].contains("/") else { return channel }
    return String(channel[..<dash])
  }

  private func isWatched(_ channel: String?) -> Bool {
    guard let channel else { return false }
    return endpoints.contains(Self.endpoint(ofChannel: channel).lowercased())
  }

  /// Takes one event frame (responses and other frames change nothing).
  public mutating func handle(_ frame: AMIFrame) -> [BridgeNotification] {
    var out: [BridgeNotification] = []
    switch frame["Event"] ?? "" {
    case "Newstate":
      let channel = frame["Channel"]
      guard isWatched(channel), let channel, let key = frame["Linkedid"] ?? frame["Uniqueid"] else { break }
      if frame["ChannelState"] == "5" {
        ring(
          key: key, channel: channel, caller: frame["ConnectedLineNum"], name: frame["ConnectedLineName"],
          called: frame["CallerIDNum"], into: &out)
      } else if frame["ChannelState"] == "6" {
        answer(key: key, channel: channel, into: &out)
      }
    case "DialBegin":
      let channel = frame["DestChannel"]
      guard isWatched(channel), let channel, let key = frame["DestLinkedid"] ?? frame["Linkedid"] else { break }
      ring(
        key: key, channel: channel, caller: frame["CallerIDNum"], name: frame["CallerIDName"],
        called: frame["DestCallerIDNum"] ?? frame["DestExten"], into: &out)
    case "DialEnd":
      let channel = frame["DestChannel"]
      guard isWatched(channel), let channel, let key = frame["DestLinkedid"] ?? frame["Linkedid"] else { break }
      if frame["DialStatus"] == "ANSWER" {
        answer(key: key, channel: channel, into: &out)
      } else {
        stopRinging(key: key, channel: channel, into: &out)
      }
    case "BridgeEnter":
      guard let key = frame["Linkedid"], let index = calls.firstIndex(where: { $0.key == key }),
        !calls[index].answered
      else { break }
      answer(key: key, channel: frame["Channel"] ?? "", into: &out)
    case "Hangup":
      guard let key = frame["Linkedid"], let index = calls.firstIndex(where: { $0.key == key }) else { break }
      let channel = frame["Channel"] ?? ""
      if frame["Uniqueid"] == key || (calls[index].answered && calls[index].answeredBy == channel) {
        end(at: index, into: &out)
      } else {
        stopRinging(key: key, channel: channel, into: &out)
      }
    case "ExtensionStatus":
      hint(frame, into: &out)
    default:
      break
    }
    return out
  }

  private mutating func ring(
    key: String, channel: String, caller: String?, name: String?, called: String?,
    into out: inout [BridgeNotification]
  ) {
    if let index = calls.firstIndex(where: { $0.key == key }) {
      if !calls[index].answered {
        if !calls[index].ringing.contains(channel) { calls[index].ringing.append(channel) }
        return
      }
      end(at: index, into: &out)  // answered, and now a watched phone rings for it: a transfer
    }
    let callID = nextID(for: key)
    start(Call(key: key, callID: callID, ringing: [channel]), into: &out)
    out.append(
      .ringing(
        RingingCall(
          id: callID, callerNumber: Self.known(caller), callerName: Self.known(name), calledNumber: Self.known(called),
          extension: Self.endpoint(ofChannel: channel))))
  }

  /// Asterisk writes `<unknown>` (or nothing) for what it does not know.
  private static func known(_ value: String?) -> String? {
    guard let value, !value.isEmpty, value != "<unknown>", value != "<Unknown>" else { return nil }
    return value
  }

  private mutating func answer(key: String, channel: String, into out: inout [BridgeNotification]) {
    guard let index = calls.firstIndex(where: { $0.key == key }), !calls[index].answered else { return }
    calls[index].answered = true
    calls[index].answeredBy = channel
    calls[index].ringing = []
    out.append(.answered(callID: calls[index].callID))
  }

  private mutating func stopRinging(key: String, channel: String, into out: inout [BridgeNotification]) {
    guard let index = calls.firstIndex(where: { $0.key == key }), !calls[index].answered else { return }
    calls[index].ringing.removeAll { $0 == channel }
    if calls[index].ringing.isEmpty { end(at: index, into: &out) }
  }

  private mutating func end(at index: Int, into out: inout [BridgeNotification]) {
    let call = calls.remove(at: index)
    out.append(.ended(callID: call.callID, outcome: call.answered ? .completed : .missed))
  }

  private mutating func start(_ call: Call, into out: inout [BridgeNotification]) {
    if calls.count >= Self.maximumCalls { end(at: 0, into: &out) }
    calls.append(call)
  }

  /// `Linkedid`, then `Linkedid#2`... for the calls one Linkedid carries (a transfer rings anew).
  private mutating func nextID(for key: String) -> String {
    if let index = generations.firstIndex(where: { $0.key == key }) {
      generations[index].count += 1
      return "\(key)#\(generations[index].count)"
    }
    generations.append((key, 1))
    if generations.count > Self.maximumCalls * 2 { generations.removeFirst() }
    return key
  }

  private mutating func hint(_ frame: AMIFrame, into out: inout [BridgeNotification]) {
    guard let exten = frame["Exten"], let statusText = frame["Status"], let status = Int(statusText) else { return }
    let context = frame["Context"] ?? ""
    let full = context.isEmpty ? exten : "\(exten)@\(context)"
    guard extensions.contains(exten.lowercased()) || extensions.contains(full.lowercased()) else { return }
    let key = "hint:\(full)"
    let index = calls.firstIndex { $0.key == key }
    switch status {
    case 8, 9:
      guard index == nil else { return }
      hintCount += 1
      let callID = "\(full)#\(hintCount)"
      start(Call(key: key, callID: callID, ringing: [full]), into: &out)
      out.append(.ringing(RingingCall(id: callID, calledNumber: exten, extension: full)))
    case 1, 2:
      if let index, !calls[index].answered { answer(key: key, channel: full, into: &out) }
    case 0, 4, -1, -2:
      if let index { end(at: index, into: &out) }
    default:
      return
    }
  }
}
