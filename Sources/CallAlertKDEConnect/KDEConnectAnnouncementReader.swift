import NIOCore

/// Reads the UDP announcements of devices on the LAN: one identity packet per datagram. What cannot be read is
/// dropped (a LAN carries anything on port 1716); the service hears only identities.
final class KDEConnectAnnouncementReader: ChannelInboundHandler {
  typealias InboundIn = AddressedEnvelope<ByteBuffer>

  private let sink: @Sendable (KDEConnectLinkEvent) -> Void

  init(sink: @escaping @Sendable (KDEConnectLinkEvent) -> Void) {
    self.sink = sink
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let envelope = unwrapInboundIn(data)
    var buffer = envelope.data
    guard buffer.readableBytes <= KDEConnectIdentityReader.limit,
      var bytes = buffer.readBytes(length: buffer.readableBytes)
    else { return }
    while bytes.last == 0x0A || bytes.last == 0x0D { bytes.removeLast() }
    let host = envelope.remoteAddress.ipAddress ?? "?"
    guard let packet = try? KDEConnectPacket.parse(bytes, source: "kdeconnect:udp \(host)", lineNumber: 1),
      let identity = try? KDEConnectIdentity(packet: packet)
    else { return }
    sink(.announced(identity, host: host))
  }
}
