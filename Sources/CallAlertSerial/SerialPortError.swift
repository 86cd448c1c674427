import CSerialPort

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// An error from opening, configuring or using a serial port, a pseudo-terminal or an in-memory transport.
///
/// Every error names the port it happened on. Errors that come from libserialport carry the `sp_return` code
/// and the text of `sp_last_error_message()`; errors that come from the system carry errno and its text.
/// Compare ``code`` to decide what to do; show ``description`` to people.
///
/// ```swift
/// do {
///   for try await chunk in port.incoming { decoder.feed(chunk) }
/// } catch let error as SerialPortError where error.code == .disconnected {
///   // The board was unplugged or the far end hung up: reconnect.
/// }
/// ```
public struct SerialPortError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What went wrong, as a value to compare against.
  ///
  /// A struct with static members rather than a public enum, so that new codes can be added without breaking
  /// exhaustive `switch` statements in client code.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private enum Value: String, Hashable, Sendable {
      case noSuchPort, busy, permissionDenied, notASerialPort, unsupportedConfiguration
      case disconnected, closed, libserialportFailure, systemFailure
    }

    private let value: Value

    private init(_ value: Value) {
      self.value = value
    }

    /// The path does not exist or names no device.
    public static let noSuchPort = Code(.noSuchPort)
    /// Another process (or another open in this one) holds the port.
    public static let busy = Code(.busy)
    /// The user may not open the device.
    public static let permissionDenied = Code(.permissionDenied)
    /// The path exists but is not a terminal this layer can open.
    public static let notASerialPort = Code(.notASerialPort)
    /// A setting, such as the baud rate, that the port or the platform does not support.
    public static let unsupportedConfiguration = Code(.unsupportedConfiguration)
    /// The far end hung up: a readable descriptor read 0 bytes or failed with EIO/ENXIO (a USB unplug, the
    /// other side of a pseudo-terminal or memory pair closing).
    public static let disconnected = Code(.disconnected)
    /// The transport was closed locally; no more bytes can be written.
    public static let closed = Code(.closed)
    /// A libserialport call failed for another reason; see ``SerialPortError/libserialportResult``.
    public static let libserialportFailure = Code(.libserialportFailure)
    /// A system call failed for another reason; see ``SerialPortError/systemErrorNumber``.
    public static let systemFailure = Code(.systemFailure)

    /// The code's name, such as `busy`.
    public var description: String { value.rawValue }
  }

  /// What went wrong.
  public let code: Code
  /// The port as the caller named it, such as `/dev/ttyACM0` or `/dev/serial/by-id/usb-…`.
  public let port: String
  /// The C function that failed, such as `sp_open` or `flock`, when one did.
  public let function: String?
  /// The `sp_return` value of the failing libserialport call (`SP_ERR_FAIL` is -2), when one failed.
  public let libserialportResult: Int32?
  /// errno of the failing call, when the system reported one.
  public let systemErrorNumber: Int32?
  /// The system's text for the failure: `sp_last_error_message()` for libserialport calls, `strerror` otherwise.
  public let systemMessage: String?
  /// Extra words about the failure, such as the rejected setting.
  public let detail: String?
  /// For ``Code/busy``: the process that holds the port, when it could be found.
  public let holder: PortHolder?

  /// Creates an error; the module's own code uses the factories below.
  public init(
    code: Code, port: String, function: String? = nil, libserialportResult: Int32? = nil,
    systemErrorNumber: Int32? = nil, systemMessage: String? = nil, detail: String? = nil, holder: PortHolder? = nil
  ) {
    self.code = code
    self.port = port
    self.function = function
    self.libserialportResult = libserialportResult
    self.systemErrorNumber = systemErrorNumber
    self.systemMessage = systemMessage
    self.detail = detail
    self.holder = holder
  }

  /// A sentence a user can act on, such as `port /dev/ttyACM0 is busy, held by callalert run (PID 4242)`.
  public var description: String {
    switch code {
    case .noSuchPort: return "no such port \(port)"
    case .busy:
      return holder.map { "port \(port) is busy, held by \($0)" } ?? "port \(port) is busy (held by another process)"
    case .permissionDenied: return "permission denied on \(port) (add yourself to the dialout group)"
    case .notASerialPort: return "\(port) is not a serial port" + (detail.map { " (\($0))" } ?? "")
    case .unsupportedConfiguration: return "unsupported setting on \(port): \(detail ?? "rejected by the driver")"
    case .disconnected: return "port \(port) disconnected (the device was unplugged or the other end hung up)"
    case .closed: return "port \(port) is closed"
    default: return "\(function ?? "a call") failed on \(port): \(reason)"
    }
  }

  private var reason: String {
    var words: [String] = []
    if let detail { words.append(detail) }
    if let systemMessage { words.append(systemMessage) }
    if let libserialportResult { words.append(Self.name(ofResult: libserialportResult)) }
    if let systemErrorNumber { words.append("errno \(systemErrorNumber)") }
    return words.isEmpty ? "unknown error" : words.joined(separator: ", ")
  }

  private static func name(ofResult result: Int32) -> String {
    switch result {
    case SP_ERR_ARG.rawValue: return "SP_ERR_ARG"
    case SP_ERR_FAIL.rawValue: return "SP_ERR_FAIL"
    case SP_ERR_MEM.rawValue: return "SP_ERR_MEM"
    case SP_ERR_SUPP.rawValue: return "SP_ERR_SUPP"
    default: return "sp_return \(result)"
    }
  }
}

extension SerialPortError {
  /// The error for a failed system call, from the current errno: the errnos that mean something to a user
  /// (ENOENT, EACCES, EBUSY, …) become their own codes, the rest ``Code/systemFailure``.
  static func system(
    _ function: String, port: String, errno number: CInt = SystemError.current.number,
    libserialportResult: Int32? = nil
  ) -> Self {
    SerialPortError(
      code: code(forErrno: number) ?? .systemFailure, port: port, function: function,
      libserialportResult: libserialportResult, systemErrorNumber: number,
      systemMessage: SystemError(number: number).message)
  }

  /// The error for a failed libserialport call. Call it right after the failure: `sp_last_error_code()` and
  /// `sp_last_error_message()` read errno, which the next call may change; they are only meaningful after
  /// `SP_ERR_FAIL`.
  static func libserialport(_ function: String, result: sp_return, port: String) -> Self {
    guard result == SP_ERR_FAIL else {
      return SerialPortError(
        code: .libserialportFailure, port: port, function: function, libserialportResult: result.rawValue)
    }
    let number = sp_last_error_code()
    var message: String?
    if let text = sp_last_error_message() {
      message = String(cString: text)
      sp_free_error_message(text)
    }
    return SerialPortError(
      code: code(forErrno: number) ?? .libserialportFailure, port: port, function: function,
      libserialportResult: result.rawValue, systemErrorNumber: number, systemMessage: message)
  }

  /// The end of a connection: the far end hung up.
  static func disconnected(_ port: String, function: String? = nil, errno number: CInt? = nil) -> Self {
    SerialPortError(
      code: .disconnected, port: port, function: function, systemErrorNumber: number,
      systemMessage: number.map { SystemError(number: $0).message })
  }

  /// The same error naming the process that holds `path`, for a ``Code/busy`` one (others unchanged).
  func namingHolder(of path: String) -> Self {
    guard code == .busy, holder == nil, let found = PortHolder.find(path) else { return self }
    return SerialPortError(
      code: code, port: port, function: function, libserialportResult: libserialportResult,
      systemErrorNumber: systemErrorNumber, systemMessage: systemMessage, detail: detail, holder: found)
  }

  /// A use of a transport after it was closed locally.
  static func closed(_ port: String) -> Self {
    SerialPortError(code: .closed, port: port)
  }

  private static func code(forErrno number: CInt) -> Code? {
    switch number {
    case ENOENT, ENODEV, ENXIO: return .noSuchPort
    case EACCES, EPERM: return .permissionDenied
    case EBUSY: return .busy
    case ENOTTY: return .notASerialPort
    default: return nil
    }
  }
}
