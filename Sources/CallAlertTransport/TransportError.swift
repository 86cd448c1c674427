import SystemPackage

/// An error from using a byte transport: the far end hung up, the transport was closed locally, or a system
/// call on its descriptor failed.
///
/// Opening a port can fail in more ways (busy, permission denied, no such port); those errors belong to the
/// module that opens it (`SerialPortError` in CallAlertSerial). Once open, every transport fails only with
/// this type, so the link layer above needs no serial-port knowledge.
///
/// ```swift
/// do {
///   for try await chunk in transport.incoming { decoder.feed(chunk) }
/// } catch let error as TransportError where error.code == .disconnected {
///   // The board was unplugged or the far end hung up: reconnect.
/// }
/// ```
public struct TransportError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What went wrong, as a value to compare against.
  public enum Code: String, Hashable, Sendable, CustomStringConvertible {
    /// The far end hung up: a readable descriptor read 0 bytes or failed with EIO/ENXIO (a USB unplug, the
    /// other side of a pseudo-terminal, socket pair or memory pair closing).
    case disconnected
    /// The transport was closed locally; no more bytes can be written.
    case closed
    /// A system call failed for another reason; see ``TransportError/errno``.
    case systemFailure

    /// The code's name, such as `disconnected`.
    public var description: String { rawValue }
  }

  /// What went wrong.
  public let code: Code
  /// The transport's name, such as `/dev/ttyACM0`, `/dev/pts/3` or `memory-host`.
  public let port: String
  /// The C function that failed or saw the hang-up, such as `read`, when one did.
  public let function: String?
  /// The system's error number, when the system reported one.
  public let errno: Errno?

  /// Creates an error.
  public init(code: Code, port: String, function: String? = nil, errno: Errno? = nil) {
    self.code = code
    self.port = port
    self.function = function
    self.errno = errno
  }

  /// A sentence a user can act on, such as `port /dev/ttyACM0 disconnected (…)`.
  public var description: String {
    switch code {
    case .disconnected: "port \(port) disconnected (the device was unplugged or the other end hung up)"
    case .closed: "port \(port) is closed"
    case .systemFailure:
      "\(function ?? "a call") failed on \(port): " + (errno.map { "\($0), errno \($0.rawValue)" } ?? "unknown error")
    }
  }

  /// The end of a connection: the far end hung up.
  public static func disconnected(_ port: String, function: String? = nil, errno: Errno? = nil) -> Self {
    TransportError(code: .disconnected, port: port, function: function, errno: errno)
  }

  /// A use of a transport after it was closed locally.
  public static func closed(_ port: String) -> Self {
    TransportError(code: .closed, port: port)
  }

  /// A failed system call on `port`'s descriptor.
  public static func system(_ function: String, port: String, errno: Errno) -> Self {
    TransportError(code: .systemFailure, port: port, function: function, errno: errno)
  }
}
