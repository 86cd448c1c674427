/// HELLO's payload: what the host speaks and can take.
///
/// Layout, 6 bytes: min_version u8, max_version u8, max_payload u16, window u8, options u8
/// (bit 0: send ACTUATORS notifications on every actuator change; bits 1-7 reserved, 0).
public struct Hello: Equatable, Sendable {
  /// The protocol versions this codec speaks, as HELLO and INFO number them: 1 is v1.0, 2 is v1.1 (PROTOCOL.md
  /// §7). Every frame's header carries the framing version, ``Frame/version``, whichever is negotiated.
  public static let protocolVersions: ClosedRange<UInt8> = 1...2

  /// The lowest protocol version the host speaks.
  public var minVersion: UInt8
  /// The highest protocol version the host speaks.
  public var maxVersion: UInt8
  /// The largest payload the host accepts.
  public var maxPayload: UInt16
  /// The most unanswered commands the host will keep in flight.
  public var window: UInt8
  /// Whether the board should trace actuator changes as ACTUATORS notifications.
  public var traceActuators: Bool

  /// Creates a HELLO.
  public init(
    minVersion: UInt8 = Hello.protocolVersions.lowerBound, maxVersion: UInt8 = Hello.protocolVersions.upperBound,
    maxPayload: UInt16 = UInt16(Frame.maxPayload), window: UInt8 = 8, traceActuators: Bool = false
  ) {
    self.minVersion = minVersion
    self.maxVersion = maxVersion
    self.maxPayload = maxPayload
    self.window = window
    self.traceActuators = traceActuators
  }

  func encode(into writer: inout ByteWriter) {
    writer.u8(minVersion)
    writer.u8(maxVersion)
    writer.u16(maxPayload)
    writer.u8(window)
    writer.u8(traceActuators ? 1 : 0)
  }

  static func decode(_ reader: inout ByteReader) throws(PayloadError) -> Hello {
    let minVersion = try reader.u8("min_version")
    let maxVersion = try reader.u8("max_version")
    guard minVersion > 0 else { throw PayloadError(.invalidValue, field: "min_version", offset: 0) }
    guard minVersion <= maxVersion else { throw reader.invalid("max_version", width: 1) }
    let maxPayload = try reader.u16("max_payload")
    guard Int(maxPayload) >= Frame.minimumMaxPayload else { throw reader.invalid("max_payload", width: 2) }
    let window = try reader.u8("window")
    guard window > 0 else { throw reader.invalid("window", width: 1) }
    let options = try reader.u8("options")
    guard options & 0xFE == 0 else { throw reader.invalid("options", width: 1) }
    return Hello(
      minVersion: minVersion, maxVersion: maxVersion, maxPayload: maxPayload, window: window,
      traceActuators: options & 1 != 0)
  }
}

/// The negotiated terms of a session, from a HELLO and the board's capabilities.
public struct SessionTerms: Equatable, Sendable {
  /// The version both speak: the highest in both ranges.
  public var version: UInt8
  /// The largest payload either side may send: the smaller of the two limits.
  public var maxPayload: Int
  /// The most commands in flight: the smaller of the two windows.
  public var window: Int

  /// Creates terms.
  public init(version: UInt8, maxPayload: Int, window: Int) {
    self.version = version
    self.maxPayload = maxPayload
    self.window = window
  }

  /// Negotiates: the highest version in both ranges, the smaller payload limit and window; nil when the
  /// version ranges do not meet.
  public static func negotiate(
    hostMin: UInt8, hostMax: UInt8, hostMaxPayload: Int, hostWindow: Int,
    boardMin: UInt8, boardMax: UInt8, boardMaxPayload: Int, boardWindow: Int
  ) -> SessionTerms? {
    let version = min(hostMax, boardMax)
    guard version >= max(hostMin, boardMin) else { return nil }
    return SessionTerms(
      version: version, maxPayload: min(hostMaxPayload, boardMaxPayload), window: max(1, min(hostWindow, boardWindow)))
  }
}
