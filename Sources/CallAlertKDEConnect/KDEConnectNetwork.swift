import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The sockets of the KDE Connect source: UDP announcements in and out, a TCP listener in KDE Connect's range,
/// connections out to devices that announced themselves, and TLS on each after the identities are exchanged.
///
/// The roles are reversed as the protocol has them: the side that opened the TCP connection is TLS's server,
/// the side that accepted it TLS's client. Each side shows its self-signed certificate; none is checked against
/// a CA. A paired device's certificate must be the pinned one (checked in the handshake, so a changed one never
/// gets a link); an unpaired device gets a link so it can ask to pair, and nothing else.
final class KDEConnectNetwork: Sendable {
  /// Why the sockets could not be opened.
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  let group: MultiThreadedEventLoopGroup
  let identity: KDEConnectIdentity
  private let serverContext: NIOSSLContext
  private let clientContext: NIOSSLContext
  private let trust: KDEConnectTrustStore
  private let sink: @Sendable (KDEConnectLinkEvent) -> Void
  private let clock: @Sendable () -> Int64
  private let links = Atomic<Int>(0)
  private let channels = Mutex<(udp: (any Channel)?, tcp: (any Channel)?)>((nil, nil))

  init(
    identity: KDEConnectIdentity, certificate: KDEConnectCertificate, trust: KDEConnectTrustStore,
    clock: @escaping @Sendable () -> Int64, sink: @escaping @Sendable (KDEConnectLinkEvent) -> Void
  ) throws {
    let chain = [NIOSSLCertificateSource.certificate(try NIOSSLCertificate(bytes: certificate.der, format: .der))]
    let key = NIOSSLPrivateKeySource.privateKey(
      try NIOSSLPrivateKey(bytes: Array(certificate.privateKeyPEM.utf8), format: .pem))
    var server = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: key)
    // Asks the client for its certificate; the custom callback below decides instead of a CA.
    server.certificateVerification = .noHostnameVerification
    server.minimumTLSVersion = .tlsv12
    var client = TLSConfiguration.makeClientConfiguration()
    client.certificateChain = chain
    client.privateKey = key
    client.certificateVerification = .noHostnameVerification
    client.minimumTLSVersion = .tlsv12
    serverContext = try NIOSSLContext(configuration: server)
    clientContext = try NIOSSLContext(configuration: client)
    group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    self.identity = identity
    self.trust = trust
    self.clock = clock
    self.sink = sink
  }

  // A phone that vanishes (Wi-Fi off) sends nothing: TCP's keepalive notices it in about a minute, not in
  // Linux's default two hours, so it shows as unreachable and is linked afresh when it returns.
  #if canImport(Glibc)
    static let keepaliveIdle = ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: TCP_KEEPIDLE))
  #else
    static let keepaliveIdle = ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: TCP_KEEPALIVE))
  #endif
  static let keepaliveInterval = ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: TCP_KEEPINTVL))
  static let keepaliveProbes = ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: TCP_KEEPCNT))

  /// Opens the UDP socket on `udpPort` and the TCP listener on the first free port of `tcpPorts`, on `host`;
  /// returns the TCP port.
  func start(host: String, udpPort: Int, tcpPorts: ClosedRange<Int>) async throws(Failure) -> Int {
    let sink = sink
    let udp: any Channel
    do {
      udp = try await DatagramBootstrap(group: group)
        .channelOption(.socketOption(.so_reuseaddr), value: 1)
        .channelOption(.socketOption(.so_broadcast), value: 1)
        .channelInitializer { channel in
          channel.eventLoop.makeCompletedFuture(withResultOf: {
            try channel.pipeline.syncOperations.addHandler(KDEConnectAnnouncementReader(sink: sink))
          })
        }
        .bind(host: host, port: udpPort).get()
    } catch {
      throw Failure(description: "cannot listen for announcements on UDP \(host):\(udpPort): \(error)")
    }
    var lastError: (any Error)?
    for port in tcpPorts {
      do {
        let tcp = try await ServerBootstrap(group: group)
          .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
          .childChannelOption(.socketOption(.so_keepalive), value: 1)
          .childChannelOption(Self.keepaliveIdle, value: 30)
          .childChannelOption(Self.keepaliveInterval, value: 10)
          .childChannelOption(Self.keepaliveProbes, value: 3)
          .childChannelInitializer { [self] channel in
            channel.eventLoop.makeCompletedFuture(withResultOf: { try self.accepted(channel) })
          }
          .bind(host: host, port: port).get()
        channels.withLock { $0 = (udp, tcp) }
        return tcp.localAddress?.port ?? port
      } catch {
        lastError = error
      }
    }
    try? await udp.close()
    throw Failure(
      description:
        "no free TCP port in \(tcpPorts.lowerBound)-\(tcpPorts.upperBound) on \(host): \(lastError.map { "\($0)" } ?? "")"
    )
  }

  /// Closes the sockets and every link, and stops the event loop.
  func stop() async {
    let (udp, tcp) = channels.withLock { $0 }
    try? await udp?.close()
    try? await tcp?.close()
    try? await group.shutdownGracefully()
  }

  /// Sends our identity (with the TCP port) to each address, over UDP, each from a socket of its own: a
  /// datagram that cannot go (a broadcast with no network yet) closes the socket it was sent from, and must
  /// neither close the one that listens nor keep the next address from hearing of us.
  func announce(to addresses: [SocketAddress], tcpPort: Int, from host: String) async {
    var ours = identity
    ours.tcpPort = tcpPort
    let bytes = ours.packet(id: clock()).line
    for address in addresses {
      guard
        let sender = try? await DatagramBootstrap(group: group)
          .channelOption(.socketOption(.so_broadcast), value: 1)
          .bind(host: host, port: 0).get()
      else { continue }
      try? await sender.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: ByteBuffer(bytes: bytes)))
      try? await sender.close()
    }
  }

  /// Opens a link to a device that announced itself: TCP to its port, our identity in plain text, then TLS with
  /// us as the server.
  func connect(to theirs: KDEConnectIdentity, host: String, port: Int) {
    let address = "\(host):\(port)"
    let link = links.wrappingAdd(1, ordering: .relaxed).newValue
    let certificate = KDEConnectPeerCertificate()
    var ours = identity
    ours.targetDeviceID = theirs.deviceID
    ours.targetProtocolVersion = theirs.protocolVersion
    let hello = ours.packet(id: clock()).line
    let (serverContext, sink, clock) = (serverContext, sink, clock)
    let plain = identity
    ClientBootstrap(group: group)
      .connectTimeout(.seconds(5))
      .channelOption(.socketOption(.so_keepalive), value: 1)
      .channelOption(Self.keepaliveIdle, value: 30)
      .channelOption(Self.keepaliveInterval, value: 10)
      .channelOption(Self.keepaliveProbes, value: 3)
      .connect(host: host, port: port)
      .whenComplete { result in
        switch result {
        case .failure(let error):
          sink(.unreachable(name: theirs.deviceName, address: address, reason: "\(error)"))
        case .success(let channel):
          channel.eventLoop.execute {
            channel.writeAndFlush(ByteBuffer(bytes: hello), promise: nil)
            do {
              let handlers: [any ChannelHandler] = [
                NIOSSLServerHandler(
                  context: serverContext,
                  customVerificationCallback: self.verification(theirs.deviceID, certificate)),
                ByteToMessageHandler(KDEConnectLineDecoder(limit: KDEConnectPacket.maximumLineBytes)),
                KDEConnectLinkHandler(
                  link: link, ours: plain, theirs: theirs, address: address, peerCertificate: certificate, clock: clock,
                  sink: sink),
              ]
              try channel.pipeline.syncOperations.addHandlers(handlers)
            } catch {
              channel.close(promise: nil)
            }
          }
        }
      }
  }

  /// A connection a device opened to us: its identity first, then TLS with us as the client.
  private func accepted(_ channel: any Channel) throws {
    let host = channel.remoteAddress?.ipAddress ?? "?"
    let address = "\(host):\(channel.remoteAddress?.port ?? 0)"
    let link = links.wrappingAdd(1, ordering: .relaxed).newValue
    let (clientContext, sink, clock, plain, ownID) = (clientContext, sink, clock, identity, identity.deviceID)
    let reader = KDEConnectIdentityReader(
      address: address,
      onIdentity: { [self] theirs, context in
        if let target = theirs.targetDeviceID, target != ownID {
          sink(
            .refused(
              deviceID: theirs.deviceID, name: theirs.deviceName, address: address,
              reason: "it meant another device (\(target))"))
          context.close(promise: nil)
          return
        }
        let certificate = KDEConnectPeerCertificate()
        do {
          let tls = try NIOSSLClientHandler(
            context: clientContext, serverHostname: nil,
            customVerificationCallback: verification(theirs.deviceID, certificate))
          let handlers: [any ChannelHandler] = [
            tls, ByteToMessageHandler(KDEConnectLineDecoder(limit: KDEConnectPacket.maximumLineBytes)),
            KDEConnectLinkHandler(
              link: link, ours: plain, theirs: theirs, address: address, peerCertificate: certificate, clock: clock,
              sink: sink),
          ]
          try context.pipeline.syncOperations.addHandlers(handlers, position: .after(context.handler))
          context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        } catch {
          context.close(promise: nil)
        }
      },
      onRefused: { reason in sink(.refused(deviceID: nil, name: nil, address: address, reason: reason)) })
    try channel.pipeline.syncOperations.addHandler(reader)
  }

  /// The TLS check of a device's certificate: a paired device must show the pinned one; any other device may
  /// show its own (it is not trusted for anything but asking to pair).
  private func verification(_ deviceID: String, _ box: KDEConnectPeerCertificate) -> NIOSSLCustomVerificationCallback {
    let trust = trust
    return { certificates, promise in
      guard let leaf = certificates.first, let der = try? leaf.toDERBytes() else {
        box.refused("it showed no certificate")
        promise.succeed(.failed)
        return
      }
      if let pinned = trust.pinnedCertificate(id: deviceID), pinned != der {
        box.refused("its certificate is not the one pinned when it paired (unpair it on the phone and pair again)")
        promise.succeed(.failed)
        return
      }
      box.accepted(der)
      promise.succeed(.certificateVerified)
    }
  }
}
