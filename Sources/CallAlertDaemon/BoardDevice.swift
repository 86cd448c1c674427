import CallAlertEngine
import CallAlertPatterns
import CallAlertProtocol

/// A board as the daemon drives it, whatever it is: a CallAlert board on its serial link (``SerialBoard``)
/// or a USB presence light (``LightBoard``). ``BoardDriver`` carries out the engine's effects through it and
/// turns its events into engine inputs; reconnecting, queueing and logging stay in the driver.
protocol BoardDevice: Actor {
  /// Opens the board, one try; throws when it is not there (the driver retries with backoff).
  func open() async throws(BoardDeviceError) -> BoardOpening
  /// Plays a pattern under a token until it ends, is stopped or reaches its cap.
  func play(_ request: BoardPlay) async throws(BoardDeviceError) -> BoardPlayed
  /// Stops the play of `token` (``CallAlertProtocol/Command/stopAll``: whatever plays).
  func stop(token: UInt32) async throws(BoardDeviceError)
  /// Shows the missed-call indicator (or clears it).
  func setIndicator(_ setting: IndicatorSetting) async throws(BoardDeviceError)
  /// Nothing plays and no PLAY waits: a good moment for work that must not cut a ring short.
  func becameIdle() async
  /// Takes a new pattern table (the page's *Save and flash*): a CallAlert board flashes it (now, or once it
  /// stops ringing, or when it connects), telling `progress` as the bytes are acknowledged; a light takes its
  /// patterns from it.
  func install(
    _ build: PatternBuild, progress: @escaping @Sendable (TableInstallProgress) -> Void
  ) async
    -> TableInstallOutcome
  /// How the board is, for `status` and `/metrics`.
  var health: BoardHealth { get async }
  /// Stops whatever plays and lets the board go, leaving it silent and dark (shutdown).
  func close() async
}

/// What opening a board found.
struct BoardOpening: Sendable {
  /// The board's events, until it is closed.
  var events: AsyncStream<BoardDeviceEvent>
  /// The token the board still plays (left ringing by a daemon that died), if any.
  var playing: UInt32?
}

/// The engine's PLAY for one board.
struct BoardPlay: Equatable, Sendable {
  /// The engine's token.
  var token: UInt32
  /// The pattern, as the engine names it.
  var pattern: PatternReference
  /// The cap, as PLAY carries it.
  var capMs: UInt16
  /// Mutes, as PLAY carries them.
  var options: PlayOptions
}

/// What a PLAY did.
struct BoardPlayed: Equatable, Sendable {
  /// When something else plays than the pattern asked for: what, and why.
  var fallback: PatternResolver.Fallback?
}

/// How a board is, as far as the daemon knows.
struct BoardHealth: Sendable {
  /// A CallAlert board's INFO while connected; nil for a light or a board not connected.
  var info: BoardInfo?
  /// A serial link's counters on the current connection; nil without one.
  var linkStatistics: BoardLinkStatistics?
  /// A light's device as it names itself (`Kuando Busylight 27bb:3bcd at /dev/hidraw3`) while open; nil for a
  /// CallAlert board, whose INFO says who it is.
  var device: String?
}

/// What a board tells its driver.
enum BoardDeviceEvent: Equatable, Sendable {
  /// Its button was pressed.
  case pressed(PressKind)
  /// A play ended.
  case playEnded(token: UInt32, reason: PlayEndReason)
  /// It reported a fault (`kind` groups repeats in the log).
  case fault(kind: String, detail: String)
  /// Bytes on its line decoded to nothing.
  case lineNoise(bytes: Int)
  /// It stopped answering; it is called until it does.
  case unresponsive(reason: String)
  /// It answers again after ``unresponsive(reason:)``, playing `playing`.
  case responsive(playing: UInt32?)
  /// It restarted (its plays are gone).
  case restarted
  /// It went away (unplugged).
  case lost(reason: String)
  /// It came back after ``lost(reason:)``, playing `playing`.
  case reconnected(playing: UInt32?)
  /// It was closed.
  case closed
}

/// Why a board could not do what it was asked.
struct BoardDeviceError: Error, CustomStringConvertible {
  /// What went wrong, for the log.
  var description: String
}
