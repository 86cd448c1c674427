/// The engine's events for `GET /v1/events` (Server-Sent Events): each gets the next id, the last
/// `capacity` are kept so a client that reconnects with `Last-Event-ID` gets what it missed, and every
/// listener gets new ones as they come. A listener that falls behind loses the oldest of its queue, never
/// stalls the daemon.
public actor EventFeed {
  /// One event as sent: its id, its SSE event name, its data (one JSON line).
  public struct Entry: Equatable, Sendable {
    /// The id, from 1, rising.
    public var id: UInt64
    /// The event's name: ringing, stopped, ...
    public var name: String
    /// The event as one JSON line.
    public var data: String
  }

  /// What a listener gets: the kept events after its `Last-Event-ID`, whether some it asked for are gone,
  /// and the live ones.
  public struct Subscription: Sendable {
    /// Kept events after the id the listener gave (all kept when it gave none it can use).
    public var replay: [Entry]
    /// How many events after its id were no longer kept (0: none lost).
    public var lost: UInt64
    /// Events from now on; finishes when the feed does.
    public var live: AsyncStream<Entry>
  }

  private let capacity: Int
  private var kept: [Entry] = []
  private var nextID: UInt64 = 1
  private var listeners: [Int: AsyncStream<Entry>.Continuation] = [:]
  private var nextListener = 0
  private var finished = false

  /// Creates a feed keeping the last `capacity` events.
  public init(capacity: Int) { self.capacity = max(1, capacity) }

  /// Adds an event; returns its id.
  @discardableResult
  public func publish(name: String, data: String) -> UInt64 {
    let entry = Entry(id: nextID, name: name, data: data)
    nextID += 1
    kept.append(entry)
    if kept.count > capacity { kept.removeFirst(kept.count - capacity) }
    for listener in listeners.values { listener.yield(entry) }
    return entry.id
  }

  /// Subscribes after `lastEventID` (nil: live only). An id above the newest one is from an earlier run of
  /// the daemon: everything kept is sent again.
  public func subscribe(after lastEventID: UInt64?) -> Subscription {
    let (stream, continuation) = AsyncStream.makeStream(of: Entry.self, bufferingPolicy: .bufferingNewest(capacity))
    var replay: [Entry] = []
    var lost: UInt64 = 0
    if let lastEventID {
      if lastEventID >= nextID {
        replay = kept
      } else {
        replay = kept.filter { $0.id > lastEventID }
        let oldest = kept.first?.id ?? nextID
        if oldest > lastEventID + 1 { lost = oldest - lastEventID - 1 }
      }
    }
    if finished {
      continuation.finish()
    } else {
      let key = nextListener
      nextListener += 1
      listeners[key] = continuation
      continuation.onTermination = { _ in Task { await self.remove(key) } }
    }
    return Subscription(replay: replay, lost: lost, live: stream)
  }

  /// How many listeners are connected.
  public var listenerCount: Int { listeners.count }

  /// Ends every listener's stream (the daemon is stopping); later subscriptions end at once.
  public func finish() {
    finished = true
    for listener in listeners.values { listener.finish() }
    listeners = [:]
  }

  private func remove(_ key: Int) { listeners[key] = nil }

  /// One event in the SSE wire format: `id:`, `event:`, `data:` lines and a blank line.
  public static func wire(_ entry: Entry) -> String {
    "id: \(entry.id)\nevent: \(entry.name)\ndata: \(entry.data)\n\n"
  }
}
