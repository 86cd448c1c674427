import NIOCore

/// Cuts a link's bytes into packet lines (without the `\n`); never consumes a partial line, and refuses a
/// line longer than the limit (the link is then closed: a peer that sends that is broken or hostile).
struct KDEConnectLineDecoder: ByteToMessageDecoder {
  typealias InboundOut = [UInt8]

  /// Why a link's bytes could not be cut into lines.
  struct LineTooLong: Error, CustomStringConvertible {
    let limit: Int
    var description: String { "a line longer than \(limit) bytes" }
  }

  let limit: Int

  mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
    guard let newline = buffer.readableBytesView.firstIndex(of: 0x0A) else {
      if buffer.readableBytes > limit { throw LineTooLong(limit: limit) }
      return .needMoreData
    }
    let length = newline - buffer.readerIndex
    guard length <= limit else { throw LineTooLong(limit: limit) }
    var line = buffer.readBytes(length: length) ?? []
    buffer.moveReaderIndex(forwardBy: 1)
    if line.last == 0x0D { line.removeLast() }
    context.fireChannelRead(wrapInboundOut(line))
    return .continue
  }

  mutating func decodeLast(
    context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
  ) throws
    -> DecodingState
  {
    while try decode(context: context, buffer: &buffer) == .continue {}
    return .needMoreData
  }
}
