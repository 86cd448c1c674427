import CallAlertText
import NIOCore

/// The first line of a connection a phone opened to us: its identity in plain text, read before TLS starts.
/// Once read, ``onIdentity`` sets up the rest of the pipeline and this handler leaves it; anything that is not an
/// identity within ``limit`` bytes closes the connection.
final class KDEConnectIdentityReader: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer

  /// KDE Connect's own bound for an identity line.
  static let limit = 8_192

  private let address: String
  private let onIdentity: (KDEConnectIdentity, ChannelHandlerContext) -> Void
  private let onRefused: (String) -> Void
  private var pending: [UInt8] = []
  private var done = false
  private var deadline: Scheduled<Void>?

  /// How long a connection may take to say who it is.
  static let patience = TimeAmount.seconds(10)

  init(
    address: String, onIdentity: @escaping (KDEConnectIdentity, ChannelHandlerContext) -> Void,
    onRefused: @escaping (String) -> Void
  ) {
    self.address = address
    self.onIdentity = onIdentity
    self.onRefused = onRefused
  }

  func handlerAdded(context: ChannelHandlerContext) {
    // A connection that never says who it is does not hold a socket for long.
    deadline = context.eventLoop.assumeIsolated().scheduleTask(in: Self.patience) { [self] in
      if !done { refuse(context, "said nothing within \(Self.patience.nanoseconds / 1_000_000_000) s") }
    }
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    deadline?.cancel()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard !done else { return }
    var buffer = unwrapInboundIn(data)
    pending += buffer.readBytes(length: buffer.readableBytes) ?? []
    guard let newline = pending.firstIndex(of: 0x0A) else {
      if pending.count > Self.limit { refuse(context, "sent \(pending.count) bytes without ending its identity line") }
      return
    }
    guard newline == pending.count - 1 else {
      // TLS starts only after we answer: bytes beyond the identity mean the peer does not speak the protocol.
      refuse(context, "sent more than its identity before TLS")
      return
    }
    done = true
    do {
      let packet = try KDEConnectPacket.parse(
        Array(pending[..<newline]), source: "kdeconnect:tcp \(address)", lineNumber: 1)
      onIdentity(try KDEConnectIdentity(packet: packet), context)
    } catch {
      refuse(context, error.description)
    }
  }

  private func refuse(_ context: ChannelHandlerContext, _ reason: String) {
    done = true
    onRefused(reason)
    context.close(promise: nil)
  }
}
