import CallAlertProtocol

/// The board's bounded queue of events waiting for room in the link's window.
///
/// Events in flight belong to the ``LinkEndpoint`` (they hold sequence numbers and cannot be withdrawn);
/// the rest wait here. Together they are at most `capacity` (16): when full, the oldest waiting event
/// that is not BOOT is dropped (BOOT tells the host the board restarted and must survive), the loss is
/// counted, and as soon as there is room again a FAULT `event_overflow` carrying the count is queued. That FAULT
/// takes a place like any event; if it is dropped in turn, its count goes into the next one.
public struct EventQueue: Sendable {
  /// The most events pending, in flight plus waiting.
  public let capacity: Int
  /// The events waiting, oldest first.
  public private(set) var waiting: [Event] = []
  /// Events dropped and not yet reported.
  public private(set) var unreportedDrops: UInt32 = 0
  /// Events dropped since boot.
  public private(set) var totalDrops: UInt32 = 0

  /// Creates an empty queue.
  public init(capacity: Int) {
    self.capacity = max(2, capacity)
    waiting.reserveCapacity(self.capacity)
  }

  /// Queues `event`, with `inFlight` events already pending in the link, dropping if full.
  public mutating func push(_ event: Event, inFlight: Int) {
    if inFlight + waiting.count >= capacity {
      countDrop()
      guard let oldest = waiting.firstIndex(where: { !$0.isBoot }) else { return }  // drop the newcomer
      // A dropped report of earlier drops hands its count on to the next report, so that the reports a host
      // receives add up to every event lost, themselves included (PROTOCOL.md §5.5).
      if case .fault(let fault) = waiting.remove(at: oldest), fault.code == .eventOverflow {
        unreportedDrops &+= fault.detail
      }
    }
    waiting.append(event)
  }

  /// Takes the oldest waiting event.
  public mutating func popFirst() -> Event? {
    waiting.isEmpty ? nil : waiting.removeFirst()
  }

  /// The FAULT `event_overflow` to queue now, if events were dropped and there is room for it.
  public mutating func takeOverflowReport(inFlight: Int) -> Event? {
    guard unreportedDrops > 0, inFlight + waiting.count < capacity else { return nil }
    defer { unreportedDrops = 0 }
    return .fault(FaultEvent(.eventOverflow, detail: unreportedDrops))
  }

  private mutating func countDrop() {
    unreportedDrops &+= 1
    totalDrops &+= 1
  }
}

extension Event {
  /// Whether this is the BOOT event.
  var isBoot: Bool {
    if case .boot = self { return true }
    return false
  }
}
