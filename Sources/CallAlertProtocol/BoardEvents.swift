/// Why the board (re)started.
public enum BootReason: UInt8, Equatable, Sendable {
  /// Power was applied.
  case powerOn = 0
  /// The host sent RESET.
  case resetCommand = 1
  /// The board's hardware watchdog fired.
  case watchdog = 2
  /// The board restarted after a fault.
  case fault = 3
}

/// The pattern table's state at boot.
public enum BootTableState: UInt8, Equatable, Sendable {
  /// The newest committed table is active.
  case ok = 0
  /// The newest table was damaged; the previous one is active.
  case fellBack = 1
  /// No valid table: only inline patterns play.
  case none = 2
}

/// BOOT's payload. Layout, 2 bytes: reason u8, table_state u8. The fresh nonce is in the header.
public struct BootEvent: Equatable, Sendable {
  /// Why the board started.
  public var reason: BootReason
  /// What became of the pattern table.
  public var table: BootTableState

  /// Creates a boot event.
  public init(reason: BootReason, table: BootTableState) {
    self.reason = reason
    self.table = table
  }
}

/// How a button was pressed.
public enum PressKind: UInt8, Equatable, Sendable {
  /// Released before the long-press time.
  case press = 0
  /// Held for the long-press time (reported at that moment, before release).
  case longPress = 1
}

/// BUTTON's payload. Layout, 4 bytes: button u8, kind u8, held_ms u16.
public struct ButtonEvent: Equatable, Sendable {
  /// The button.
  public var button: UInt8
  /// Press or long press.
  public var kind: PressKind
  /// How long it was held when reported.
  public var heldMs: UInt16

  /// Creates a button event.
  public init(button: UInt8, kind: PressKind, heldMs: UInt16) {
    self.button = button
    self.kind = kind
    self.heldMs = heldMs
  }
}

/// Why a play ended.
public enum PlayEndReason: UInt8, Equatable, Sendable {
  /// The pattern ran to its end.
  case completed = 0
  /// The host sent STOP.
  case stopped = 1
  /// The cap (the PLAY's or the absolute one) was reached.
  case cap = 2
  /// The host's lease lapsed.
  case lease = 3
  /// A fault stopped it.
  case fault = 4
  /// Another PLAY replaced it.
  case superseded = 5
}

/// PLAY_ENDED's payload. Layout, 9 bytes: token u32, reason u8, played_ms u32.
public struct PlayEndedEvent: Equatable, Sendable {
  /// The play's token.
  public var token: UInt32
  /// Why it ended.
  public var reason: PlayEndReason
  /// How long it played.
  public var playedMs: UInt32

  /// Creates the event.
  public init(token: UInt32, reason: PlayEndReason, playedMs: UInt32) {
    self.token = token
    self.reason = reason
    self.playedMs = playedMs
  }
}

/// A fault's code.
public enum FaultCode: UInt8, Equatable, Sendable {
  /// The motor ran its longest continuous time and was rested. Detail: the limit in ms.
  case motorOnTime = 0x01
  /// The motor's average duty reached its limit and it was rested. Detail: the duty in percent.
  case motorDuty = 0x02
  /// The flash failed to erase or program. Detail: the address.
  case flash = 0x03
  /// Events were lost because the host did not acknowledge them. Detail: how many.
  case eventOverflow = 0x04
  /// The tick fell behind the clock. Detail: milliseconds lost.
  case tickOverrun = 0x05
}

/// FAULT's payload. Layout, 5 bytes: code u8, detail u32.
public struct FaultEvent: Equatable, Sendable {
  /// The code, raw so that newer boards' codes are kept.
  public var rawCode: UInt8
  /// The code's detail.
  public var detail: UInt32

  /// Creates a fault with a known code.
  public init(_ code: FaultCode, detail: UInt32) {
    rawCode = code.rawValue
    self.detail = detail
  }

  /// Creates a fault with a raw code.
  public init(rawCode: UInt8, detail: UInt32) {
    self.rawCode = rawCode
    self.detail = detail
  }

  /// The code when known.
  public var code: FaultCode? { FaultCode(rawValue: rawCode) }
}
