import CallAlertProtocol

/// Why a command to a board did not succeed.
public enum BoardClientError: Error, Equatable, Sendable, CustomStringConvertible {
  /// No answer through every retransmission (the board is gone, or the line is too noisy).
  case timeout(command: MessageType)
  /// The board refused the command.
  case nak(command: MessageType, Nak)
  /// The transport ended (unplugged, or the far end closed).
  case disconnected(reason: String)
  /// The board and this host share no protocol version.
  case versionMismatch(boardMin: UInt8, boardMax: UInt8, hostMin: UInt8, hostMax: UInt8)
  /// The board restarted while the command was in flight; it did not act on it.
  case boardRestarted
  /// The board answered with something the command cannot be answered with.
  case unexpectedReply(command: MessageType)
  /// A different board answered than the one this client was connected to.
  case wrongBoard(expected: String, found: String)
  /// The client was closed.
  case closed

  /// A message a person can act on.
  public var description: String {
    switch self {
    case .timeout(let command): "\(command.name) got no answer from the board after every retry"
    case .nak(let command, let nak): "the board refused \(command.name): \(Self.reason(nak))"
    case .disconnected(let reason): "the board is disconnected: \(reason)"
    case .versionMismatch(let boardMin, let boardMax, let hostMin, let hostMax):
      "protocol version mismatch: the board speaks \(boardMin)-\(boardMax), this host \(hostMin)-\(hostMax); update the firmware or the host"
    case .boardRestarted: "the board restarted before answering"
    case .unexpectedReply(let command): "the board answered \(command.name) with an unexpected reply"
    case .wrongBoard(let expected, let found): "expected board \(expected), found \(found)"
    case .closed: "the board connection was closed"
    }
  }
}

extension BoardClientError {
  /// What a NAK says, in words, with its detail read as its code defines it (PROTOCOL.md §14.1): it read
  /// "badSlot (detail 9)", a Swift case name and a number the reader had to look up.
  static func reason(_ nak: Nak) -> String {
    let detail = nak.detail
    guard let code = nak.code else {
      return "code 0x\(String(nak.rawCode, radix: 16)) (detail \(detail)), which this host does not know; update it"
    }
    switch code {
    case .unknownType: return "it does not know command type 0x\(String(detail, radix: 16)); update the firmware"
    case .badPayload: return "the command's payload is malformed at byte \(detail)"
    case .unsupportedVersion:
      let versions = nak.supportedVersions.map { "\($0.min)-\($0.max)" } ?? "?"
      return "it speaks protocol versions \(versions) only; update the firmware or this host"
    case .noSession: return "no session is open (it restarted, or HELLO was not sent)"
    case .staleNonce: return "the session is from before it restarted"
    case .sequenceGap: return "a frame was lost on the line (it expected sequence \(detail))"
    case .badSlot:
      return "slot \(detail) holds no pattern (`callalert patterns list --port PORT` shows its table; "
        + "`callalert flash FILE` installs one)"
    case .badPattern: return "the pattern breaks one of its rules or capabilities at payload byte \(detail)"
    case .badToken: return "token 0 is reserved; use 1 or more"
    case .badArgument: return "the field at payload byte \(detail) is out of range"
    case .noTransfer: return "no table transfer is under way"
    case .tooLarge: return "the table is larger than its \(detail) bytes of storage"
    case .badOffset: return "it expected the transfer to go on at byte \(detail)"
    case .incomplete: return "the bytes from \(detail) on have not arrived"
    case .crcMismatch: return "the table's CRC-32C does not match (it computed 0x\(String(detail, radix: 16)))"
    case .badTable: return "the table is invalid at byte \(detail)"
    case .flashError: return "writing its flash failed at address 0x\(String(detail, radix: 16))"
    }
  }

  /// The link gave up on the frame of type `raw`: every frame the host's link sends is a command, so the
  /// type is known; an unknown one (which the link cannot produce) is reported as a disconnect.
  static func timeout(raw: UInt8) -> BoardClientError {
    guard let type = MessageType(rawValue: raw) else {
      return .disconnected(reason: "the link gave up on a frame of \(MessageType.name(raw))")
    }
    return .timeout(command: type)
  }
}

extension MessageType {
  /// The spec's name for a type byte, e.g. "PLAY", or "type 0x7e" for an unknown one.
  public static func name(_ raw: UInt8) -> String {
    MessageType(rawValue: raw)?.name ?? "type 0x" + String(raw, radix: 16)
  }

  /// The spec's name for the type, e.g. "PLAY".
  public var name: String {
    switch self {
    case .hello: "HELLO"
    case .ping: "PING"
    case .getInfo: "GET_INFO"
    case .getStatus: "GET_STATUS"
    case .play: "PLAY"
    case .stop: "STOP"
    case .lease: "LEASE"
    case .setIndicator: "SET_INDICATOR"
    case .tableBegin: "TABLE_BEGIN"
    case .tableData: "TABLE_DATA"
    case .tableCommit: "TABLE_COMMIT"
    case .tableAbort: "TABLE_ABORT"
    case .tableRead: "TABLE_READ"
    case .reset: "RESET"
    case .boot: "BOOT"
    case .button: "BUTTON"
    case .playEnded: "PLAY_ENDED"
    case .fault: "FAULT"
    case .actuators: "ACTUATORS"
    }
  }
}
