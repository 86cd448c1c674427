/// An error from locating QEMU, building the firmware image, or starting QEMU.
///
/// Compare ``code`` to decide what to do; show ``description`` to people: it names the executable or the
/// image and says what to do about it.
///
/// ```swift
/// do {
///   let qemu = try await QemuBoard(image: image).start()
/// } catch where error.code == .qemuNotFound {
///   // Skip: QEMU is not installed here.
/// }
/// ```
public struct QemuError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What went wrong, as a value to compare against.
  ///
  /// A struct with static members rather than a public enum, so that new codes can be added without breaking
  /// exhaustive `switch` statements in client code.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private enum Value: String, Hashable, Sendable {
      case qemuNotFound, imageNotFound, spawnFailed, noPseudoTerminal, buildFailed
    }

    private let value: Value

    private init(_ value: Value) {
      self.value = value
    }

    /// The QEMU executable is neither on PATH nor at the path given.
    public static let qemuNotFound = Code(.qemuNotFound)
    /// The firmware image does not exist or cannot be read.
    public static let imageNotFound = Code(.imageNotFound)
    /// A process (QEMU, or `make` building the image) could not be started.
    public static let spawnFailed = Code(.spawnFailed)
    /// QEMU started but did not report the pseudo-terminal of the firmware's UART0: it exited first (a bad
    /// image or argument; QEMU says why on standard error) or did not print it in time.
    public static let noPseudoTerminal = Code(.noPseudoTerminal)
    /// `make firmware` failed, or did not write the image.
    public static let buildFailed = Code(.buildFailed)

    /// The code's name, such as `qemuNotFound`.
    public var description: String { value.rawValue }
  }

  /// What went wrong.
  public let code: Code
  /// A sentence a user can act on, such as `qemu-system-arm is not installed (install it with: …)`.
  public let description: String
  /// The system's error number when a system call failed (``Code/spawnFailed``).
  public let systemErrorNumber: Int32?
  /// The process's exit status when it ended (``Code/noPseudoTerminal``, ``Code/buildFailed``): its exit code,
  /// or 128 plus the number of the signal that ended it.
  public let exitStatus: Int32?

  /// Creates an error; the module's own code uses the factories below.
  public init(code: Code, description: String, systemErrorNumber: Int32? = nil, exitStatus: Int32? = nil) {
    self.code = code
    self.description = description
    self.systemErrorNumber = systemErrorNumber
    self.exitStatus = exitStatus
  }
}

extension QemuError {
  static func qemuNotFound(_ executable: String) -> Self {
    let what = executable.contains("/") ? "no executable at \(executable)" : "\(executable) is not installed"
    return QemuError(
      code: .qemuNotFound, description: "\(what) (install it with: sudo apt-get install qemu-system-arm)")
  }

  static func imageNotFound(_ image: String) -> Self {
    QemuError(code: .imageNotFound, description: "no firmware image at \(image) (build it with: make firmware)")
  }

  static func spawnFailed(_ executable: String, function: String? = nil, errno number: Int32) -> Self {
    let call = function.map { " (\($0))" } ?? ""
    return QemuError(
      code: .spawnFailed, description: "cannot start \(executable)\(call): \(systemMessage(number))",
      systemErrorNumber: number)
  }

  static func exitedEarly(_ executable: String, image: String, status: Int32) -> Self {
    QemuError(
      code: .noPseudoTerminal,
      description:
        "\(executable) exited (status \(status)) before reporting a pseudo-terminal (is \(image) a firmware image "
        + "for mps2-an386? QEMU's own message is above)",
      exitStatus: status)
  }

  static func timedOut(_ executable: String, image: String, after timeout: Duration) -> Self {
    QemuError(
      code: .noPseudoTerminal,
      description: "\(executable) did not report a pseudo-terminal within \(timeout) (is \(image) a firmware image?)")
  }

  static func buildFailed(status: Int32) -> Self {
    QemuError(code: .buildFailed, description: "`make firmware` failed (status \(status))", exitStatus: status)
  }

  static func buildWroteNoImage(_ image: String) -> Self {
    QemuError(
      code: .buildFailed, description: "`make firmware` succeeded but wrote no image at \(image)", exitStatus: 0)
  }
}
