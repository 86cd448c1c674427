/// The payload of an ACK: the result of the command it answers. Which case a command gets is fixed by
/// the command's type (see ``Command``).
public enum Reply: Equatable, Sendable {
  /// To HELLO and GET_INFO.
  case info(BoardInfo)
  /// To PING: its payload.
  case pong([UInt8])
  /// To GET_STATUS.
  case status(BoardStatus)
  /// To PLAY: the cap that applies (u16).
  case playing(capMs: UInt16)
  /// To STOP: how many plays it stopped, 0 or 1 (u8).
  case stopped(count: UInt8)
  /// To LEASE, SET_INDICATOR, TABLE_ABORT and RESET: an empty payload.
  case ok
  /// To TABLE_BEGIN: the most data bytes one TABLE_DATA may carry (u16).
  case tableReady(maxChunk: UInt16)
  /// To TABLE_DATA: bytes received contiguously from offset 0 (u32).
  case tableProgress(received: UInt32)
  /// To TABLE_COMMIT: the now active table.
  case tableCommitted(TableSummary)
  /// To TABLE_READ: the bytes.
  case tableBytes([UInt8])

  /// The payload bytes.
  public func payload() -> [UInt8] {
    var w = ByteWriter(capacity: 16)
    switch self {
    case .info(let info): info.encode(into: &w)
    case .pong(let bytes), .tableBytes(let bytes): w.append(bytes)
    case .status(let status): status.encode(into: &w)
    case .playing(let cap): w.u16(cap)
    case .stopped(let count): w.u8(count)
    case .ok: break
    case .tableReady(let chunk): w.u16(chunk)
    case .tableProgress(let received): w.u32(received)
    case .tableCommitted(let summary): summary.encode(into: &w)
    }
    return w.bytes
  }

  /// Decodes an ACK's payload for a command of type `type`.
  public static func decode(type: MessageType, payload: [UInt8]) throws(PayloadError) -> Reply {
    var r = ByteReader(payload)
    let reply: Reply
    switch type {
    case .hello, .getInfo: reply = .info(try BoardInfo.decode(&r))
    case .ping: reply = .pong(r.rest())
    case .getStatus: reply = .status(try BoardStatus.decode(&r))
    case .play: reply = .playing(capMs: try r.u16("cap_ms"))
    case .stop: reply = .stopped(count: try r.u8("count"))
    case .lease, .setIndicator, .tableAbort, .reset: reply = .ok
    case .tableBegin: reply = .tableReady(maxChunk: try r.u16("max_chunk"))
    case .tableData: reply = .tableProgress(received: try r.u32("received"))
    case .tableCommit: reply = .tableCommitted(try TableSummary.decode(&r))
    case .tableRead: reply = .tableBytes(r.rest())
    case .boot, .button, .playEnded, .fault, .actuators:
      throw PayloadError(.invalidValue, field: "type", offset: 0)
    }
    try r.expectEnd("end")
    return reply
  }
}
