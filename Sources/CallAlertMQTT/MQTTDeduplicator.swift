import CallAlertEngine

/// Remembers the call messages already acted on, so that one the broker delivers again (a QoS 1 redelivery
/// after a reconnection, the retained copy sent on every subscribe) never rings twice. A message is known by
/// its call id and kind (`call`, `hangup`, `answered`) for ``window`` milliseconds, longer than any cap plus
/// a reconnection; at most ``capacity`` are kept, the oldest forgotten first.
public struct MQTTDeduplicator: Sendable {
  /// How long a message is remembered.
  public let window: UInt64
  /// How many messages are remembered at most.
  public let capacity: Int
  private var seen: [Key: UInt64] = [:]
  private var order: [(key: Key, at: UInt64)] = []
  private var head = 0

  private struct Key: Hashable, Sendable {
    var id: String
    var kind: String
  }

  /// Creates an empty memory.
  public init(window: UInt64 = 3_600_000, capacity: Int = 4_096) {
    self.window = window
    self.capacity = capacity
  }

  /// Whether `input` is new at `nowMs` (monotonic milliseconds); a new one is remembered from now on.
  public mutating func admit(_ input: EngineInput, nowMs: UInt64) -> Bool {
    guard let key = Self.key(input) else { return true }
    expire(nowMs: nowMs)
    if let at = seen[key], nowMs &- at < window { return false }
    seen[key] = nowMs
    order.append((key, nowMs))
    if seen.count > capacity { forgetOldest() }
    return true
  }

  /// Whether a call with this id was admitted (and is still remembered): a host that saw a call ring never
  /// takes it back from another host's shared missed calls once it was acknowledged here.
  public func knows(callID: String) -> Bool {
    seen[Key(id: callID, kind: "call")] != nil
  }

  /// How many messages are remembered.
  public var count: Int { seen.count }

  private mutating func expire(nowMs: UInt64) {
    while head < order.count, nowMs &- order[head].at >= window { forgetOldest() }
  }

  private mutating func forgetOldest() {
    guard head < order.count else { return }
    let oldest = order[head]
    if seen[oldest.key] == oldest.at { seen[oldest.key] = nil }
    head += 1
    if head > 1_024 && head * 2 > order.count {
      order.removeFirst(head)
      head = 0
    }
  }

  private static func key(_ input: EngineInput) -> Key? {
    switch input {
    case .call(let call): Key(id: call.id, kind: "call")
    case .hangup(let id): Key(id: id, kind: "hangup")
    case .answered(let id): id.map { Key(id: $0, kind: "answered") }
    default: nil
    }
  }
}
