/// A command from the host to the board. Each is answered by an ACK carrying a ``Reply`` or by a NAK.
public enum Command: Equatable, Sendable {
  /// Opens a session; answered with ``Reply/info(_:)``.
  case hello(Hello)
  /// Echo; answered with ``Reply/pong(_:)``.
  case ping([UInt8])
  /// Answered with ``Reply/info(_:)``.
  case getInfo
  /// Answered with ``Reply/status(_:)``.
  case getStatus
  /// Answered with ``Reply/playing(capMs:)``.
  case play(PlayRequest)
  /// Stops a token, or everything with ``Command/stopAll``; answered with ``Reply/stopped(count:)``.
  case stop(token: UInt32)
  /// Renews the lease and sets its length (100-10 000 ms; outside that range the payload is refused with
  /// bad_payload); answered with ``Reply/ok``.
  case lease(ms: UInt16)
  /// Answered with ``Reply/ok``.
  case setIndicator(IndicatorSetting)
  /// Answered with ``Reply/tableReady(maxChunk:)``.
  case tableBegin(TableBegin)
  /// Answered with ``Reply/tableProgress(received:)``.
  case tableData(offset: UInt32, bytes: [UInt8])
  /// Answered with ``Reply/tableCommitted(_:)``.
  case tableCommit(crc: UInt32)
  /// Answered with ``Reply/ok``.
  case tableAbort
  /// Answered with ``Reply/tableBytes(_:)``.
  case tableRead(TableRead)
  /// Answered with ``Reply/ok``, then the board restarts.
  case reset

  /// STOP's token meaning "everything".
  public static let stopAll: UInt32 = 0xFFFF_FFFF
  /// The shortest lease.
  public static let minLeaseMs: UInt16 = 100
  /// The longest lease.
  public static let maxLeaseMs: UInt16 = 10_000

  /// The command's type.
  public var type: MessageType {
    switch self {
    case .hello: .hello
    case .ping: .ping
    case .getInfo: .getInfo
    case .getStatus: .getStatus
    case .play: .play
    case .stop: .stop
    case .lease: .lease
    case .setIndicator: .setIndicator
    case .tableBegin: .tableBegin
    case .tableData: .tableData
    case .tableCommit: .tableCommit
    case .tableAbort: .tableAbort
    case .tableRead: .tableRead
    case .reset: .reset
    }
  }

  /// The payload bytes.
  public func payload() -> [UInt8] {
    var w = ByteWriter(capacity: 16)
    switch self {
    case .hello(let hello): hello.encode(into: &w)
    case .ping(let bytes): w.append(bytes)
    case .getInfo, .getStatus, .tableAbort: break
    case .play(let play): play.encode(into: &w)
    case .stop(let token): w.u32(token)
    case .lease(let ms): w.u16(ms)
    case .setIndicator(let setting): setting.encode(into: &w)
    case .tableBegin(let begin):
      w.u32(begin.size)
      w.u32(begin.crc)
    case .tableData(let offset, let bytes):
      w.u32(offset)
      w.append(bytes)
    case .tableCommit(let crc): w.u32(crc)
    case .tableRead(let read):
      w.u8(read.area.rawValue)
      w.u32(read.offset)
      w.u16(read.length)
    case .reset: w.u32(resetMagic)
    }
    return w.bytes
  }

  /// Decodes a command's payload.
  public static func decode(type: MessageType, payload: [UInt8]) throws(PayloadError) -> Command {
    var r = ByteReader(payload)
    let command: Command
    switch type {
    case .hello: command = .hello(try Hello.decode(&r))
    case .ping: command = .ping(r.rest())
    case .getInfo: command = .getInfo
    case .getStatus: command = .getStatus
    case .play: command = .play(try PlayRequest.decode(&r))
    case .stop: command = .stop(token: try r.u32("token"))
    case .lease:
      let ms = try r.u16("lease_ms")
      guard ms >= minLeaseMs && ms <= maxLeaseMs else { throw r.invalid("lease_ms", width: 2) }
      command = .lease(ms: ms)
    case .setIndicator: command = .setIndicator(try IndicatorSetting.decode(&r))
    case .tableBegin: command = .tableBegin(TableBegin(size: try r.u32("size"), crc: try r.u32("crc")))
    case .tableData:
      let offset = try r.u32("offset")
      guard r.remaining > 0 else { throw PayloadError(.truncated, field: "data", offset: r.offset) }
      command = .tableData(offset: offset, bytes: r.rest())
    case .tableCommit: command = .tableCommit(crc: try r.u32("crc"))
    case .tableAbort: command = .tableAbort
    case .tableRead:
      guard let area = TableArea(rawValue: try r.u8("area")) else { throw r.invalid("area", width: 1) }
      command = .tableRead(TableRead(area: area, offset: try r.u32("offset"), length: try r.u16("length")))
    case .reset:
      guard try r.u32("magic") == resetMagic else { throw r.invalid("magic", width: 4) }
      command = .reset
    case .boot, .button, .playEnded, .fault, .actuators:
      throw PayloadError(.invalidValue, field: "type", offset: 0)
    }
    try r.expectEnd("end")
    return command
  }
}
