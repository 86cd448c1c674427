import Synchronization

/// How many chunks an owner's writer task holds (handed over, not yet written or dropped): while it holds any,
/// later chunks go behind them, not straight to ``ByteTransport/sendWithoutWaiting(_:)``, so that bytes keep
/// their order. `BoardClient` and the virtual board's runner send this way.
public final class WriterBacklog: Sendable {
  private let count = Atomic<Int>(0)

  /// An empty backlog.
  public init() {}

  /// Whether the writer task holds nothing.
  public var isEmpty: Bool { count.load(ordering: .acquiring) == 0 }

  /// A chunk was handed to the writer task.
  public func handed() { count.add(1, ordering: .relaxed) }

  /// The writer task is done with a chunk (written, failed or dropped).
  public func taken() { count.subtract(1, ordering: .releasing) }
}
