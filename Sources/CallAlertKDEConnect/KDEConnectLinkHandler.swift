import NIOCore
import NIOSSL
import NIOTLS

/// One device's link once TLS runs: for protocol 8 both sides send their identity again inside TLS (the
/// plain-text one proved nothing), which must name the same device and version; then the device's certificate
/// must carry its id as common name. After that every line goes to the service.
final class KDEConnectLinkHandler: ChannelInboundHandler {
  typealias InboundIn = [UInt8]

  private enum Phase {
    case handshaking
    case awaitingIdentity
    case linked
    case finished
  }

  private let link: Int
  private let ours: KDEConnectIdentity
  private let theirs: KDEConnectIdentity
  private let address: String
  private let peerCertificate: KDEConnectPeerCertificate
  private let sink: @Sendable (KDEConnectLinkEvent) -> Void
  private let clock: @Sendable () -> Int64
  private var phase = Phase.handshaking
  private var lineNumber = 0
  private var failure: String?

  init(
    link: Int, ours: KDEConnectIdentity, theirs: KDEConnectIdentity, address: String,
    peerCertificate: KDEConnectPeerCertificate, clock: @escaping @Sendable () -> Int64,
    sink: @escaping @Sendable (KDEConnectLinkEvent) -> Void
  ) {
    self.link = link
    self.ours = ours
    self.theirs = theirs
    self.address = address
    self.peerCertificate = peerCertificate
    self.clock = clock
    self.sink = sink
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if case .handshakeCompleted = event as? TLSUserEvent, phase == .handshaking {
      if theirs.protocolVersion >= 8 {
        phase = .awaitingIdentity
        var identity = ours
        identity.tcpPort = nil
        context.writeAndFlush(NIOAny(ByteBuffer(bytes: identity.packet(id: clock()).line)), promise: nil)
      } else {
        up(theirs, context)
      }
    }
    context.fireUserInboundEventTriggered(event)
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let line = unwrapInboundIn(data)
    lineNumber += 1
    switch phase {
    case .handshaking, .finished: return
    case .awaitingIdentity:
      do {
        let packet = try KDEConnectPacket.parse(line, source: "kdeconnect:\(theirs.deviceName)", lineNumber: lineNumber)
        let secure = try KDEConnectIdentity(packet: packet)
        guard secure.deviceID == theirs.deviceID else {
          return refuse(context, "its identity inside TLS names another device (\(secure.deviceID))")
        }
        guard secure.protocolVersion == theirs.protocolVersion else {
          return refuse(context, "its protocol version changed during the handshake")
        }
        up(secure, context)
      } catch {
        refuse(context, "no identity inside TLS: \(error)")
      }
    case .linked:
      sink(.line(link: link, line, number: lineNumber))
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    if phase == .linked { sink(.closed(link: link, reason: failure)) }
    phase = .finished
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    // A phone that closes without TLS's goodbye (most do) has not failed.
    let unclean = (error as? NIOSSLError).map { if case .uncleanShutdown = $0 { true } else { false } } ?? false
    if failure == nil && !unclean { failure = "\(error)" }
    if phase == .handshaking || phase == .awaitingIdentity {
      refuse(context, peerCertificate.refusal ?? "TLS failed: \(error)")
    } else {
      context.close(promise: nil)
    }
  }

  private func up(_ identity: KDEConnectIdentity, _ context: ChannelHandlerContext) {
    guard let certificate = peerCertificate.der else { return refuse(context, "it showed no certificate") }
    let name = KDEConnectCertificate.commonName(der: certificate)
    guard name == identity.deviceID else {
      return refuse(context, "its certificate names \(name ?? "no device"), not \(identity.deviceID)")
    }
    phase = .linked
    sink(.linked(link: link, identity, certificate: certificate, address: address, channel: context.channel))
  }

  private func refuse(_ context: ChannelHandlerContext, _ reason: String) {
    guard phase != .finished else { return }
    phase = .finished
    sink(.refused(deviceID: theirs.deviceID, name: theirs.deviceName, address: address, reason: reason))
    context.close(promise: nil)
  }
}
