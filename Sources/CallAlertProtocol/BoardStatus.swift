/// STATUS, the answer to GET_STATUS: what the board is doing now.
///
/// Layout: uptime_ms u32; token u32 (0 = nothing plays); source u8 (0 slot, 1 inline, 255 none); slot u8;
/// elapsed_ms u32; cap_remaining_ms u16; lease_remaining_ms u16; ``ActuatorState``; indicator_mode u8;
/// transfer_state u8 (0 idle, 1 receiving); transfer_received u32; transfer_size u32; then counters,
/// u32 each: frames_ok, crc_errors, framing_errors, overlong, duplicates, faults.
public struct BoardStatus: Equatable, Sendable {
  /// The board's clock since boot.
  public var uptimeMs: UInt32
  /// The playing alert's token; 0 when nothing plays.
  public var token: UInt32
  /// The playing pattern's slot, or nil for an inline pattern or nothing.
  public var slot: UInt8?
  /// Whether the playing pattern came inline with PLAY.
  public var inline: Bool
  /// How long the current play has run.
  public var elapsedMs: UInt32
  /// How long until the current play's cap stops it.
  public var capRemainingMs: UInt16
  /// How long until the lease lapses; 0 when nothing plays.
  public var leaseRemainingMs: UInt16
  /// Every actuator now.
  public var actuators: ActuatorState
  /// The indicator LED's mode (see ``IndicatorMode``), raw.
  public var indicatorMode: UInt8
  /// Whether a table transfer is under way.
  public var transferActive: Bool
  /// Bytes of the transfer received (contiguous from 0).
  public var transferReceived: UInt32
  /// The transfer's announced size.
  public var transferSize: UInt32
  /// Link and fault counters since boot.
  public var counters: LinkCounters

  /// Creates a status.
  public init(
    uptimeMs: UInt32, token: UInt32, slot: UInt8?, inline: Bool, elapsedMs: UInt32, capRemainingMs: UInt16,
    leaseRemainingMs: UInt16, actuators: ActuatorState, indicatorMode: UInt8, transferActive: Bool,
    transferReceived: UInt32, transferSize: UInt32, counters: LinkCounters
  ) {
    self.uptimeMs = uptimeMs
    self.token = token
    self.slot = slot
    self.inline = inline
    self.elapsedMs = elapsedMs
    self.capRemainingMs = capRemainingMs
    self.leaseRemainingMs = leaseRemainingMs
    self.actuators = actuators
    self.indicatorMode = indicatorMode
    self.transferActive = transferActive
    self.transferReceived = transferReceived
    self.transferSize = transferSize
    self.counters = counters
  }

  func encode(into w: inout ByteWriter) {
    w.u32(uptimeMs)
    w.u32(token)
    w.u8(token == 0 ? 255 : (inline ? 1 : 0))
    w.u8(slot ?? 0)
    w.u32(elapsedMs)
    w.u16(capRemainingMs)
    w.u16(leaseRemainingMs)
    actuators.encode(into: &w)
    w.u8(indicatorMode)
    w.u8(transferActive ? 1 : 0)
    w.u32(transferReceived)
    w.u32(transferSize)
    counters.encode(into: &w)
  }

  static func decode(_ r: inout ByteReader) throws(PayloadError) -> BoardStatus {
    let uptime = try r.u32("uptime_ms")
    let token = try r.u32("token")
    let source = try r.u8("source")
    guard source <= 1 || source == 255, (source == 255) == (token == 0) else { throw r.invalid("source", width: 1) }
    let slot = try r.u8("slot")
    let elapsed = try r.u32("elapsed_ms")
    let cap = try r.u16("cap_remaining_ms")
    let lease = try r.u16("lease_remaining_ms")
    let actuators = try ActuatorState.decode(&r)
    let indicator = try r.u8("indicator_mode")
    let transfer = try r.u8("transfer_state")
    guard transfer <= 1 else { throw r.invalid("transfer_state", width: 1) }
    return BoardStatus(
      uptimeMs: uptime, token: token, slot: source == 0 ? slot : nil, inline: source == 1, elapsedMs: elapsed,
      capRemainingMs: cap, leaseRemainingMs: lease, actuators: actuators, indicatorMode: indicator,
      transferActive: transfer == 1, transferReceived: try r.u32("transfer_received"),
      transferSize: try r.u32("transfer_size"), counters: try LinkCounters.decode(&r))
  }
}

/// Counters a board reports in STATUS.
public struct LinkCounters: Equatable, Sendable {
  /// Frames that passed every check.
  public var framesOK: UInt32 = 0
  /// Frames dropped for a bad CRC.
  public var crcErrors: UInt32 = 0
  /// Frames dropped for broken COBS, length, version or flags.
  public var framingErrors: UInt32 = 0
  /// Frames dropped for being too long.
  public var overlong: UInt32 = 0
  /// Duplicate commands recognised (answered again, not acted on twice).
  public var duplicates: UInt32 = 0
  /// FAULT events raised.
  public var faults: UInt32 = 0

  /// Creates zeroed counters.
  public init() {}

  func encode(into w: inout ByteWriter) {
    w.u32(framesOK)
    w.u32(crcErrors)
    w.u32(framingErrors)
    w.u32(overlong)
    w.u32(duplicates)
    w.u32(faults)
  }

  static func decode(_ r: inout ByteReader) throws(PayloadError) -> LinkCounters {
    var c = LinkCounters()
    c.framesOK = try r.u32("frames_ok")
    c.crcErrors = try r.u32("crc_errors")
    c.framingErrors = try r.u32("framing_errors")
    c.overlong = try r.u32("overlong")
    c.duplicates = try r.u32("duplicates")
    c.faults = try r.u32("faults")
    return c
  }
}
