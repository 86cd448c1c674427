/// What the page's *Save and flash* acts through: the config's pattern file, written with the editor's text
/// once it builds and the configuration's pattern names are all in it, then put on every board, with each
/// board's progress. The daemon hands it in (CallAlertHTTPDaemon), so the API never writes files or talks to
/// boards itself.
public struct PatternFlashing: Sendable {
  /// One board's flash as it stands.
  public struct BoardState: Equatable, Sendable {
    /// The board's name.
    public var board: String
    /// The bytes the board acknowledged, of the table's (0 of 0 before the transfer starts).
    public var bytes: Int
    /// The table's size.
    public var of: Int
    /// Where it stands, in words: "flashing", or how it ended.
    public var state: String
    /// Whether it has ended (a board that waits, ringing or not connected, has not).
    public var ended: Bool
    /// Whether it failed.
    public var failed: Bool

    /// Creates a state.
    public init(board: String, bytes: Int, of: Int, state: String, ended: Bool, failed: Bool = false) {
      self.board = board
      self.bytes = bytes
      self.of = of
      self.state = state
      self.ended = ended
      self.failed = failed
    }
  }

  /// The config's pattern file (`patterns.file`).
  public var file: String
  /// The file's text now; nil when it cannot be read.
  public var text: @Sendable () -> String?
  /// Writes `text` as the file and starts putting it on the boards; the errors when it does not build or
  /// lacks a name the configuration uses (nothing is written then).
  public var flash: @Sendable (_ text: String) async -> String?
  /// Each board's flash, in the configuration's order; empty before any.
  public var progress: @Sendable () -> [BoardState]

  /// Creates the hook.
  public init(
    file: String, text: @escaping @Sendable () -> String?, flash: @escaping @Sendable (String) async -> String?,
    progress: @escaping @Sendable () -> [BoardState]
  ) {
    self.file = file
    self.text = text
    self.flash = flash
    self.progress = progress
  }
}
