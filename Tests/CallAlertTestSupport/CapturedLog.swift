import Logging
import Synchronization

/// Log lines a component under test wrote, kept in order for assertions, and handed to a stream as they
/// come for tests that wait for one.
public final class CapturedLog: Sendable {
  private let lines = Mutex<[(level: Logger.Level, text: String)]>([])
  private let level: Logger.Level
  private let sink: AsyncStream<String>.Continuation
  /// Each message as it is logged (one consumer; see ``waitFor(_:)``).
  public let stream: AsyncStream<String>

  /// Keeps every line at `level` and above.
  public init(level: Logger.Level = .trace) {
    self.level = level
    (stream, sink) = AsyncStream.makeStream(of: String.self)
  }

  /// A logger that writes here.
  public var logger: Logger {
    var logger = Logger(label: "test") { _ in Handler(log: self) }
    logger.logLevel = level
    return logger
  }

  /// Records one line.
  public func record(_ level: Logger.Level, _ text: String) {
    lines.withLock { $0.append((level, text)) }
    sink.yield(text)
  }

  /// Every line, as "level message".
  public var all: [String] { lines.withLock { $0.map { "\($0.level) \($0.text)" } } }

  /// Every message, without its level.
  public var messages: [String] { lines.withLock { $0.map(\.text) } }

  /// The lines that contain `text`.
  public func matching(_ text: String) -> [String] { lines.withLock { $0.map(\.text).filter { $0.contains(text) } } }

  /// Waits for a line containing `text` (from ``stream``); false when the log ended first. Bound it with
  /// the suite's time limit or ``finishing(within:_:)``.
  public func waitFor(_ text: String) async -> Bool {
    for await line in stream where line.contains(text) { return true }
    return false
  }

  struct Handler: LogHandler {
    let log: CapturedLog
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
      log.record(event.level, "\(event.message)")
    }
  }
}
