/// Any v1 message, typed: what a frame means once its type and flags are read.
public enum Message: Equatable, Sendable {
  /// A command (host to board).
  case command(Command)
  /// An ACK: the answer to a command of `to`'s type.
  case reply(to: MessageType, Reply)
  /// A NAK: the refusal of a command of type `to` (raw, so unknown types can be refused).
  case nak(to: UInt8, Nak)
  /// An event (board to host).
  case event(Event)
  /// The host's acknowledgement of an event of that type.
  case eventAck(MessageType)
  /// An unacknowledged ACTUATORS notification.
  case actuators(ActuatorTrace)

  /// The frame that carries this message.
  public func frame(sequence: UInt16, nonce: UInt32) -> Frame {
    switch self {
    case .command(let command):
      return Frame(sequence: sequence, type: command.type.rawValue, nonce: nonce, payload: command.payload())
    case .reply(let type, let reply):
      return Frame(flags: .response, sequence: sequence, type: type.rawValue, nonce: nonce, payload: reply.payload())
    case .nak(let type, let nak):
      var w = ByteWriter(capacity: 5)
      nak.encode(into: &w)
      return Frame(flags: [.response, .nak], sequence: sequence, type: type, nonce: nonce, payload: w.bytes)
    case .event(let event):
      return Frame(sequence: sequence, type: event.type.rawValue, nonce: nonce, payload: event.payload())
    case .eventAck(let type):
      return Frame(flags: .response, sequence: sequence, type: type.rawValue, nonce: nonce)
    case .actuators(let trace):
      var w = ByteWriter(capacity: 16)
      w.u32(trace.boardMs)
      trace.state.encode(into: &w)
      return Frame(
        flags: .notify, sequence: sequence, type: MessageType.actuators.rawValue, nonce: nonce, payload: w.bytes)
    }
  }

  /// Reads the message a frame carries.
  public static func decode(_ frame: Frame) throws(MessageError) -> Message {
    if frame.flags.contains(.nak) {
      var r = ByteReader(frame.payload)
      do throws(PayloadError) {
        return .nak(to: frame.type, try Nak.decode(&r))
      } catch {
        throw .payload(type: frame.type, error)
      }
    }
    guard let type = MessageType(rawValue: frame.type) else { throw .unknownType(frame.type) }
    do throws(PayloadError) {
      if frame.flags.contains(.notify) {
        guard type.isNotification else { throw PayloadError(.invalidValue, field: "flags", offset: 0) }
        var r = ByteReader(frame.payload)
        let ms = try r.u32("board_ms")
        let state = try ActuatorState.decode(&r)
        try r.expectEnd("end")
        return .actuators(ActuatorTrace(boardMs: ms, state: state))
      }
      if type.isNotification { throw PayloadError(.invalidValue, field: "flags", offset: 0) }
      if frame.flags.contains(.response) {
        if type.isEvent {
          guard frame.payload.isEmpty else { throw PayloadError(.trailingBytes, field: "end", offset: 0) }
          return .eventAck(type)
        }
        return .reply(to: type, try Reply.decode(type: type, payload: frame.payload))
      }
      if type.isEvent { return .event(try Event.decode(type: type, payload: frame.payload)) }
      return .command(try Command.decode(type: type, payload: frame.payload))
    } catch {
      throw .payload(type: frame.type, error)
    }
  }
}

/// Why a valid frame did not carry a valid message.
public enum MessageError: Error, Equatable, Sendable {
  /// The type byte names no v1 message.
  case unknownType(UInt8)
  /// The payload does not fit the type's layout.
  case payload(type: UInt8, PayloadError)

  /// The NAK a board answers a command with when it cannot read it.
  public var nak: Nak {
    switch self {
    case .unknownType(let type): Nak(.unknownType, detail: UInt32(type))
    case .payload(_, let error): Nak(.badPayload, detail: UInt32(truncatingIfNeeded: error.offset))
    }
  }
}
