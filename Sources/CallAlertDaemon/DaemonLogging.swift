import Logging

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How the daemon logs: to a terminal or a file, lines with a timestamp and a level (swift-log's
/// `StreamLogHandler`); under systemd, to the journal, which stamps every line itself, so lines carry no
/// timestamp and start with a syslog priority (`<4>`) that the journal turns into the entry's level.
public enum DaemonLogging {
  /// Sets up swift-log for the whole process, at `level`; call once, before the first logger is made.
  public static func bootstrap(level: Logger.Level) {
    let journal = standardErrorIsJournal()
    LoggingSystem.bootstrap { label in
      if journal { return JournalLogHandler(label: label, logLevel: level) }
      var handler = StreamLogHandler.standardError(label: label)
      handler.logLevel = level
      return handler
    }
  }

  /// Whether standard error is the journal's stream: systemd sets `JOURNAL_STREAM` to `device:inode` of the
  /// stream it connected, which stays set in children whose standard error was redirected elsewhere, so
  /// the descriptor itself is compared (systemd.exec(5)).
  public static func standardErrorIsJournal(
    journalStream: String? = getenv("JOURNAL_STREAM").map { String(cString: $0) }, descriptor: CInt = 2
  ) -> Bool {
    guard let journalStream else { return false }
    let parts = journalStream.split(separator: ":")
    guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { return false }
    return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
  }
}

/// A log handler for the journal: `<priority>label: message key=value`, one `write(2)` per line so
/// concurrent lines never interleave; no timestamp (the journal has its own).
public struct JournalLogHandler: LogHandler {
  /// Where a finished line goes (standard error, or a test's collector).
  public typealias Output = @Sendable (String) -> Void

  /// The logger's label, printed before the message.
  public let label: String
  /// The least severe level written.
  public var logLevel: Logger.Level
  /// Metadata added to every line.
  public var metadata: Logger.Metadata = [:]
  private let output: Output

  /// A handler writing to standard error, or to `output`.
  public init(label: String, logLevel: Logger.Level = .info, output: @escaping Output = JournalLogHandler.standardError)
  {
    self.label = label
    self.logLevel = logLevel
    self.output = output
  }

  /// Writes the line to descriptor 2 in one call.
  public static let standardError: Output = { line in
    let bytes = Array(line.utf8)
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes { write(2, $0.baseAddress! + offset, $0.count - offset) }
      if written < 0 && errno == EINTR { continue }
      if written <= 0 { return }
      offset += written
    }
  }

  /// The metadata value for `key`.
  public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  /// Formats and writes one entry.
  public func log(event: LogEvent) {
    var all = metadata
    if let extra = event.metadata { all.merge(extra) { _, new in new } }
    let fields =
      all.isEmpty ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    // A message's own newlines would start journal entries without a priority: keep one entry per event.
    let message = "\(event.message)".replacingNewlines()
    output("<\(Self.priority(event.level))>\(label): \(message)\(fields)\n")
  }

  /// The syslog priority (sd-daemon(3)) of a level.
  public static func priority(_ level: Logger.Level) -> Int {
    switch level {
    case .trace, .debug: 7
    case .info: 6
    case .notice: 5
    case .warning: 4
    case .error: 3
    case .critical: 2
    }
  }
}

extension String {
  fileprivate func replacingNewlines() -> String {
    guard contains(where: \.isNewline) else { return self }
    return String(map { $0.isNewline ? " " : $0 })
  }
}
