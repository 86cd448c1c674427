/// Follows a FRITZ!Box's calls by connection id and says what happened to each, as ``BridgeNotification``s.
///
/// A pure state machine: RING starts a ringing call; CONNECT answers it; DISCONNECT ends it, missed when it was
/// never answered. An outgoing CALL is remembered only so that its CONNECT and DISCONNECT ring nothing. The box
/// reuses connection ids, so a RING or CALL on an id still in use ends the call it had (missed if it rang): its
/// DISCONNECT was lost, for instance while the box restarted. Lines for unknown ids change nothing.
public struct FritzCallTracker: Sendable {
  /// The phase of a call the tracker follows.
  public enum Phase: Equatable, Sendable {
    /// An incoming call rings.
    case ringing
    /// An incoming call was answered.
    case answered
    /// An outgoing call (never rings).
    case outgoing
  }

  private struct Entry: Sendable {
    var connectionID: Int
    var callID: String
    var phase: Phase
  }

  /// The most calls followed at once; a new call beyond it ends the oldest (a box has a handful of lines).
  public static let maximumCalls = 32
  private var entries: [Entry] = []

  /// Creates an empty tracker.
  public init() {}

  /// The calls followed now: call id and phase, oldest first.
  public var calls: [(callID: String, phase: Phase)] { entries.map { ($0.callID, $0.phase) } }

  /// Takes one line; returns what it means for the calls.
  public mutating func handle(_ line: FritzMonitorLine) -> [BridgeNotification] {
    var notifications: [BridgeNotification] = []
    let id = line.connectionID
    switch line.event {
    case .ring(let caller, let called, let lineName):
      end(id, into: &notifications)
      let callID = "\(id)/\(line.date.compact)"
      start(Entry(connectionID: id, callID: callID, phase: .ringing), into: &notifications)
      notifications.append(
        .ringing(
          RingingCall(
            id: callID, callerNumber: caller.isEmpty ? nil : caller, calledNumber: called.isEmpty ? nil : called,
            line: lineName.isEmpty ? nil : lineName)))
    case .call:
      end(id, into: &notifications)
      start(Entry(connectionID: id, callID: "\(id)/\(line.date.compact)", phase: .outgoing), into: &notifications)
    case .connect:
      if let index = entries.firstIndex(where: { $0.connectionID == id }), entries[index].phase == .ringing {
        entries[index].phase = .answered
        notifications.append(.answered(callID: entries[index].callID))
      }
    case .disconnect:
      end(id, into: &notifications)
    }
    return notifications
  }

  private mutating func start(_ entry: Entry, into notifications: inout [BridgeNotification]) {
    if entries.count >= Self.maximumCalls, let oldest = entries.first { end(oldest.connectionID, into: &notifications) }
    entries.append(entry)
  }

  private mutating func end(_ id: Int, into notifications: inout [BridgeNotification]) {
    guard let index = entries.firstIndex(where: { $0.connectionID == id }) else { return }
    let entry = entries.remove(at: index)
    switch entry.phase {
    case .ringing: notifications.append(.ended(callID: entry.callID, outcome: .missed))
    case .answered: notifications.append(.ended(callID: entry.callID, outcome: .completed))
    case .outgoing: break
    }
  }
}
