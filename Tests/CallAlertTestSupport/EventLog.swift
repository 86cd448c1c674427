import Synchronization

/// Events as they come, kept for the test to look at between clock steps.
public final class EventLog<Event: Sendable>: Sendable {
  private let seen = Mutex<[Event]>([])

  /// Starts collecting `stream`.
  public init(_ stream: AsyncStream<Event>) {
    Task { [self] in for await event in stream { seen.withLock { $0.append(event) } } }
  }

  /// Every event so far.
  public var all: [Event] { seen.withLock { $0 } }

  /// Whether an event so far satisfies `predicate`.
  public func contains(where predicate: (Event) -> Bool) -> Bool { seen.withLock { $0.contains(where: predicate) } }
}
