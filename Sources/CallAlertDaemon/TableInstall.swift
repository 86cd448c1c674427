import CallAlertPatterns

/// How far a board's flash has come: the bytes of the table the board acknowledged, of the table's, and,
/// once it has ended, how. A flash that waited for a ring to end reports its end so too, after
/// ``AlertService/installPatterns(_:progress:)`` has returned ``TableInstallOutcome/waitsForRingToEnd``.
public struct TableInstallProgress: Equatable, Sendable {
  /// Bytes acknowledged so far.
  public var bytes: Int
  /// The table's size.
  public var of: Int
  /// How it ended; nil while it goes.
  public var ended: TableInstallOutcome?

  /// Creates a progress report.
  public init(bytes: Int, of: Int, ended: TableInstallOutcome? = nil) {
    self.bytes = bytes
    self.of = of
    self.ended = ended
  }
}

/// How installing a new pattern table on one board went (``AlertService/installPatterns(_:progress:)``).
public enum TableInstallOutcome: Equatable, Sendable {
  /// Flashed, read back and verified; this version is active.
  case installed(version: UInt32)
  /// The board had it already.
  case alreadyInstalled(version: UInt32)
  /// The board rings: it is flashed as soon as it stops (a flash never cuts a ring short).
  case waitsForRingToEnd
  /// The board is not connected: it is flashed when it connects.
  case waitsForTheBoard
  /// A light: its patterns are taken from the table at once (nothing is flashed).
  case inUse
  /// It failed; the board keeps its old table (a flash commits atomically). Why.
  case failed(String)

  /// In words, for the page and the log.
  public var description: String {
    switch self {
    case .installed(let version): "flashed and verified: table v\(version) active"
    case .alreadyInstalled(let version): "table v\(version) was installed already"
    case .waitsForRingToEnd: "ringing: flashed as soon as it stops"
    case .waitsForTheBoard: "not connected: flashed when it connects"
    case .inUse: "a light: its patterns come from the new file now"
    case .failed(let why): "failed (the board keeps its old table): \(why)"
    }
  }
}
