/// An event from the board: acknowledged by the host, retransmitted by the board until it is.
public enum Event: Equatable, Sendable {
  /// The board started (first event after every reset; the header carries the fresh nonce).
  case boot(BootEvent)
  /// A button was pressed.
  case button(ButtonEvent)
  /// A play ended.
  case playEnded(PlayEndedEvent)
  /// A fault happened.
  case fault(FaultEvent)

  /// The event's type.
  public var type: MessageType {
    switch self {
    case .boot: .boot
    case .button: .button
    case .playEnded: .playEnded
    case .fault: .fault
    }
  }

  /// The payload bytes.
  public func payload() -> [UInt8] {
    var w = ByteWriter(capacity: 9)
    switch self {
    case .boot(let boot):
      w.u8(boot.reason.rawValue)
      w.u8(boot.table.rawValue)
    case .button(let button):
      w.u8(button.button)
      w.u8(button.kind.rawValue)
      w.u16(button.heldMs)
    case .playEnded(let ended):
      w.u32(ended.token)
      w.u8(ended.reason.rawValue)
      w.u32(ended.playedMs)
    case .fault(let fault):
      w.u8(fault.rawCode)
      w.u32(fault.detail)
    }
    return w.bytes
  }

  /// Decodes an event's payload.
  public static func decode(type: MessageType, payload: [UInt8]) throws(PayloadError) -> Event {
    var r = ByteReader(payload)
    let event: Event
    switch type {
    case .boot:
      guard let reason = BootReason(rawValue: try r.u8("reason")) else { throw r.invalid("reason", width: 1) }
      guard let table = BootTableState(rawValue: try r.u8("table_state")) else {
        throw r.invalid("table_state", width: 1)
      }
      event = .boot(BootEvent(reason: reason, table: table))
    case .button:
      let button = try r.u8("button")
      guard let kind = PressKind(rawValue: try r.u8("kind")) else { throw r.invalid("kind", width: 1) }
      event = .button(ButtonEvent(button: button, kind: kind, heldMs: try r.u16("held_ms")))
    case .playEnded:
      let token = try r.u32("token")
      guard let reason = PlayEndReason(rawValue: try r.u8("reason")) else { throw r.invalid("reason", width: 1) }
      event = .playEnded(PlayEndedEvent(token: token, reason: reason, playedMs: try r.u32("played_ms")))
    case .fault:
      event = .fault(FaultEvent(rawCode: try r.u8("code"), detail: try r.u32("detail")))
    default:
      throw PayloadError(.invalidValue, field: "type", offset: 0)
    }
    try r.expectEnd("end")
    return event
  }
}
