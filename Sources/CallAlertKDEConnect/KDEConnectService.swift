import CallAlertEngine
import CallAlertValues
import NIOCore

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// CallAlert as a KDE Connect device (docs/PHONE.md): it announces itself, links to the phones on the LAN over
/// TLS, lets a phone pair when the user accepts here, and turns a paired phone's telephony packets into calls.
///
/// Every network event is handled here, one at a time, in the order each link delivered it; the decisions are
/// the pure ``KDEConnectPairing`` and ``KDEConnectCallTracker``, and this actor only carries out what they say.
public actor KDEConnectService {
  /// Hands an input to the engine, from a phone (its name as shown).
  public typealias Deliver = @Sendable (_ input: EngineInput, _ device: String) async -> Void

  private struct Device {
    var identity: KDEConnectIdentity
    var link: Int?
    var channel: (any Channel)?
    var certificate: [UInt8]?
    var address: String
    var pairing: KDEConnectPairing
    var refusal: String?
    var verificationKey: String?
  }

  /// Why `pair` did nothing.
  public struct PairingRefusal: Error, CustomStringConvertible, Sendable {
    /// What to do instead.
    public var description: String
  }

  private let settings: KDEConnectSettings
  private let certificate: KDEConnectCertificate
  private let trust: KDEConnectTrustStore
  private let deliver: Deliver
  private let report: @Sendable (KDEConnectReport) -> Void
  private let clock: any Clock<Duration>
  private let now: @Sendable () -> Date
  private var tracker: KDEConnectCallTracker
  private var devices: [String: Device] = [:]
  private var linkDevices: [Int: String] = [:]
  /// When each device that announced itself was last connected to (within ``reconnectPause``).
  private var lastAttempts: [String: Date] = [:]
  private var tcpPort: Int?
  private var network: KDEConnectNetwork?

  /// The most devices linked without being paired: a LAN full of strangers cannot fill memory.
  public static let maximumUnpaired = 8
  /// How long before opening the sockets is tried again.
  public static let retryPause: TimeInterval = 30
  /// How soon a device that announced itself is connected to again (KDE Connect's own pause).
  public static let reconnectPause: TimeInterval = 0.5

  /// Creates the source; nothing is opened until ``run()``.
  ///
  /// - Throws: ``KDEConnectCertificate/Failure`` or ``KDEConnectTrustStore/Failure`` when the state folder cannot
  ///   be read or written.
  public init(
    settings: KDEConnectSettings, capMs: UInt64, clock: any Clock<Duration> = ContinuousClock(),
    now: @escaping @Sendable () -> Date = Date.init, deliver: @escaping Deliver,
    report: @escaping @Sendable (KDEConnectReport) -> Void
  ) throws {
    self.settings = settings
    certificate = try KDEConnectCertificate.loadOrCreate(in: settings.stateDirectory)
    trust = try KDEConnectTrustStore(path: settings.stateDirectory + "/trusted.json")
    tracker = KDEConnectCallTracker(capMs: capMs)
    self.deliver = deliver
    self.report = report
    self.clock = clock
    self.now = now
    for device in trust.all {
      let identity = KDEConnectIdentity(
        deviceID: device.id, deviceName: device.name, deviceType: "phone", protocolVersion: device.protocolVersion)
      devices[device.id] = Device(identity: identity, address: "", pairing: KDEConnectPairing(paired: true))
    }
  }

  /// This host's device id (the common name of its certificate).
  public nonisolated var deviceID: String { certificate.deviceID }

  /// The identity this host announces.
  public var identity: KDEConnectIdentity {
    KDEConnectIdentity(
      deviceID: certificate.deviceID, deviceName: settings.name, deviceType: "desktop",
      incomingCapabilities: [KDEConnectPacket.telephonyType, "kdeconnect.ping"],
      outgoingCapabilities: [KDEConnectPacket.muteRequestType], tcpPort: tcpPort)
  }

  /// The TCP port the listener took, once running.
  public var listeningPort: Int? { tcpPort }

  /// Opens the sockets, announces this host every `announce_every`, and handles what the network brings until
  /// cancelled; then closes everything.
  ///
  /// - Parameter onListening: told the TCP port once the sockets are open.
  public func run(onListening: @Sendable (Int) async -> Void = { _ in }) async {
    let (events, continuation) = AsyncStream.makeStream(of: KDEConnectLinkEvent.self)
    let now = now
    let network: KDEConnectNetwork
    do {
      network = try KDEConnectNetwork(
        identity: identity, certificate: certificate, trust: trust,
        clock: { Int64(now().timeIntervalSince1970 * 1_000) }, sink: { continuation.yield($0) })
    } catch {
      report(KDEConnectReport(.warning, "cannot set up TLS: \(error)"))
      return
    }
    self.network = network
    // A port taken or an address not there yet (at boot) is tried again, so the daemon rings for its other
    // sources meanwhile and the phones come when the network does.
    while tcpPort == nil {
      do {
        tcpPort = try await network.start(
          host: settings.listen, udpPort: settings.discoveryPort, tcpPorts: settings.tcpPorts)
      } catch {
        report(KDEConnectReport(.warning, "\(error); trying again in \(Int(Self.retryPause)) s"))
        do {
          try await clock.sleep(for: .seconds(Int(Self.retryPause)))
        } catch {
          await network.stop()
          return
        }
      }
    }
    report(
      KDEConnectReport(
        .notice,
        "\"\(settings.name)\" (\(certificate.deviceID)) listening on TCP \(settings.listen):\(tcpPort ?? 0), "
          + "announcements on UDP \(settings.discoveryPort)"))
    await onListening(tcpPort ?? 0)
    await withTaskCancellationHandler {
      await withTaskGroup(of: Void.self) { group in
        group.addTask { [self] in await announceForever() }
        group.addTask { [self] in
          for await event in events { await handle(event) }
        }
        // The events end when the run is cancelled; the announcements end with them.
        await group.next()
        group.cancelAll()
      }
    } onCancel: {
      continuation.finish()
    }
    await network.stop()
    self.network = nil
  }

  /// Every device known: paired ones (reachable or not), and those linked or asking to pair.
  public func statuses() -> [KDEConnectDeviceStatus] {
    devices.values.map(status).sorted { ($0.name, $0.id) < ($1.name, $1.id) }
  }

  /// The user accepted a phone's pairing request (`callalert kdeconnect pair <device>`): by name (as shown, any
  /// case) or id.
  ///
  /// - Returns: What was done, for the answer.
  public func pair(_ wanted: String) throws(PairingRefusal) -> String {
    let matches = devices.values.filter {
      $0.identity.deviceID == wanted || $0.identity.deviceName.lowercased() == wanted.lowercased()
    }
    guard let device = matches.first(where: { $0.pairing.isRequested }) ?? matches.first else {
      let known = devices.values.filter { $0.channel != nil }.map { "\"\($0.identity.deviceName)\"" }
      throw PairingRefusal(
        description: "no phone named \"\(wanted)\" is linked"
          + (known.isEmpty
            ? "; is KDE Connect open on the phone, on this network?" : "; linked: \(known.joined(separator: ", "))"))
    }
    let id = device.identity.deviceID
    guard let actions = devices[id]?.pairing.accept() else {
      if device.pairing.isPaired { return "\(device.identity.deviceName) is paired already" }
      throw PairingRefusal(
        description: "\(device.identity.deviceName) has not asked to pair: in KDE Connect on the phone, pick "
          + "\"\(settings.name)\" and tap Request pairing, then run this within \(Int(KDEConnectPairing.timeout)) s")
    }
    perform(actions, for: id)
    return "paired with \(device.identity.deviceName)"
  }

  /// A call was acknowledged on a board or the command line: the phone that rings with it is asked to mute its
  /// ringer (when `mute_on_ack` is on).
  public func acknowledged(callID: String) {
    guard settings.muteOnAcknowledge else { return }
    for device in devices.values where device.pairing.isPaired {
      guard tracker.activeCall(device: device.identity.deviceName) == callID, let channel = device.channel else {
        continue
      }
      send(KDEConnectPacket(id: stamp(), type: KDEConnectPacket.muteRequestType), on: channel)
      report(KDEConnectReport(.info, "asked \(device.identity.deviceName) to mute its ringer"))
    }
  }

  // MARK: - Events

  private func handle(_ event: KDEConnectLinkEvent) async {
    switch event {
    case .announced(let theirs, let host):
      announced(theirs, host: host)
    case .linked(let link, let theirs, let certificate, let address, let channel):
      linked(link, theirs, certificate: certificate, address: address, channel: channel)
    case .line(let link, let bytes, let number):
      guard let id = linkDevices[link], let device = devices[id] else { return }
      await received(bytes, number: number, from: device)
    case .closed(let link, let reason):
      guard let id = linkDevices.removeValue(forKey: link), var device = devices[id], device.link == link else {
        return
      }
      lastAttempts[id] = nil  // gone: its next announcement is answered at once
      device.link = nil
      device.channel = nil
      device.pairing.linkLost()
      if device.pairing.isPaired {
        devices[id] = device
        changed(id, .info, "\(device.identity.deviceName) went away\(reason.map { " (\($0))" } ?? "")")
      } else {
        devices[id] = nil
        report(KDEConnectReport(.info, "\(device.identity.deviceName) (not paired) went away"))
      }
    case .unreachable(let name, let address, let reason):
      report(KDEConnectReport(.info, "cannot reach \(name) at \(address): \(reason)"))
    case .refused(let id, let name, let address, let reason):
      if let id, var device = devices[id], device.pairing.isPaired {
        device.refusal = reason
        device.address = address
        devices[id] = device
        changed(id, .warning, "refused \(name ?? id) at \(address): \(reason)")
      } else {
        report(KDEConnectReport(.info, "refused \(name ?? "a device") at \(address): \(reason)"))
      }
    }
  }

  private func announced(_ theirs: KDEConnectIdentity, host: String) {
    guard theirs.deviceID != certificate.deviceID, let port = theirs.tcpPort else { return }
    if devices[theirs.deviceID]?.channel != nil { return }
    // A device that announces itself over and over (or many that claim new ids) is not connected to each time.
    let moment = now()
    if let last = lastAttempts[theirs.deviceID], moment.timeIntervalSince(last) < Self.reconnectPause { return }
    lastAttempts = lastAttempts.filter { moment.timeIntervalSince($0.value) < Self.reconnectPause }
    guard lastAttempts.count < Self.maximumUnpaired * 4 else { return }
    lastAttempts[theirs.deviceID] = moment
    if let pinned = trust.device(id: theirs.deviceID), theirs.protocolVersion < pinned.protocolVersion {
      report(
        KDEConnectReport(
          .warning,
          "refused \(theirs.deviceName): it offers protocol \(theirs.protocolVersion), older than the \(pinned.protocolVersion) it paired with"
        ))
      return
    }
    report(KDEConnectReport(.debug, "\(theirs.deviceName) announced itself at \(host):\(port); connecting"))
    network?.connect(to: theirs, host: host, port: port)
  }

  private func linked(
    _ link: Int, _ theirs: KDEConnectIdentity, certificate der: [UInt8], address: String, channel: any Channel
  ) {
    let id = theirs.deviceID
    let paired = trust.device(id: id) != nil
    if !paired && devices[id] == nil
      && devices.values.filter({ !$0.pairing.isPaired && $0.channel != nil }).count >= Self.maximumUnpaired
    {
      report(KDEConnectReport(.info, "refused \(theirs.deviceName): too many phones linked without pairing"))
      channel.close(promise: nil)
      return
    }
    if let old = devices[id]?.channel, old !== channel { old.close(promise: nil) }
    var device =
      devices[id] ?? Device(identity: theirs, address: address, pairing: KDEConnectPairing(paired: paired))
    device.identity = theirs
    device.link = link
    device.channel = channel
    device.certificate = der
    device.address = address
    device.refusal = nil
    devices[id] = device
    linkDevices[link] = id
    if paired, let pinned = trust.device(id: id), pinned.name != theirs.deviceName {
      try? trust.pin(
        KDEConnectTrustedDevice(
          id: id, name: theirs.deviceName, certificate: pinned.certificate, protocolVersion: theirs.protocolVersion))
    }
    changed(
      id, .notice,
      paired
        ? "\(theirs.deviceName) is connected (\(address), protocol \(theirs.protocolVersion))"
        : "\(theirs.deviceName) linked (\(address)), not paired")
  }

  private func received(_ bytes: [UInt8], number: Int, from device: Device) async {
    let id = device.identity.deviceID
    let name = device.identity.deviceName
    do {
      let packet = try KDEConnectPacket.parse(bytes, source: "kdeconnect:\(name)", lineNumber: number)
      switch packet.type {
      case KDEConnectPacket.pairType:
        let request = try KDEConnectPairing.read(packet)
        guard var current = devices[id] else { return }
        let actions = current.pairing.received(
          pair: request.pair, timestamp: request.timestamp, protocolVersion: device.identity.protocolVersion, now: now()
        )
        if case .requestedByPeer(let timestamp, _) = current.pairing.state, let theirs = current.certificate {
          current.verificationKey = KDEConnectCertificate.verificationKey(
            ours: certificate.der, theirs: theirs, timestamp: device.identity.protocolVersion >= 8 ? timestamp : nil)
        }
        devices[id] = current
        perform(actions, for: id)
      case KDEConnectPacket.telephonyType:
        guard device.pairing.isPaired else {
          report(KDEConnectReport(.warning, "refused a call from \(name): it is not paired (docs/PHONE.md, Pairing)"))
          return
        }
        guard let event = try KDEConnectTelephonyEvent.read(packet) else { return }
        report(KDEConnectReport(.debug, "\(name): \(event.kind.rawValue)\(event.isCancel ? " (cancel)" : "")"))
        // In order: the next packet waits until the engine took these.
        for input in tracker.handle(event, device: name, now: now()) { await deliver(input, name) }
      default:
        report(KDEConnectReport(.debug, "\(name): ignored a \(packet.type) packet"))
      }
    } catch {
      report(KDEConnectReport(.warning, "skipped a packet: \(error)"))
    }
  }

  // MARK: - Actions

  private func perform(_ actions: [KDEConnectPairing.Action], for id: String) {
    guard let device = devices[id] else { return }
    let name = device.identity.deviceName
    for action in actions {
      switch action {
      case .send(let pair):
        if let channel = device.channel {
          send(
            KDEConnectPacket(
              id: stamp(), type: KDEConnectPacket.pairType, body: [KDEConnectField("pair", .bool(pair))]),
            on: channel)
        }
      case .pin:
        guard let der = device.certificate else { continue }
        do {
          try trust.pin(
            KDEConnectTrustedDevice(
              id: id, name: name, certificate: Data(der).base64EncodedString(),
              protocolVersion: device.identity.protocolVersion))
          changed(id, .notice, "paired with \(name); its certificate is pinned")
        } catch {
          report(KDEConnectReport(.warning, "\(error)"))
        }
      case .unpin:
        do { try trust.unpin(id: id) } catch { report(KDEConnectReport(.warning, "\(error)")) }
        changed(id, .notice, "\(name) unpaired; its certificate is forgotten")
      case .showRequest:
        changed(id, .notice, "\(name) asks to pair")
        guard case .requestedByPeer(_, let since) = device.pairing.state else { continue }
        let clock = clock
        Task { [self] in
          try? await clock.sleep(for: .seconds(Int(KDEConnectPairing.timeout)))
          pairingDeadline(id, requestedAt: since)
        }
      case .failed(let reason):
        changed(id, .warning, "pairing with \(name) failed: \(reason)")
      }
    }
  }

  /// The service's clock says the request of `requestedAt` waited its time (the clock the test drives; the wall
  /// clock could disagree, so the request's own deadline is the time given to the state machine).
  private func pairingDeadline(_ id: String, requestedAt: Date) {
    guard var device = devices[id], case .requestedByPeer(_, requestedAt) = device.pairing.state else { return }
    let actions = device.pairing.tick(now: requestedAt.addingTimeInterval(KDEConnectPairing.timeout))
    devices[id] = device
    perform(actions, for: id)
  }

  private func announceForever() async {
    var addresses: [SocketAddress] = []
    if settings.broadcast, let address = try? SocketAddress(ipAddress: "255.255.255.255", port: settings.discoveryPort)
    {
      addresses.append(address)
    }
    for peer in settings.peers {
      let parts = peer.split(separator: ":")
      let port = parts.count == 2 ? Int(parts[1]) ?? settings.discoveryPort : settings.discoveryPort
      if let address = try? SocketAddress(ipAddress: String(parts[0]), port: port) { addresses.append(address) }
    }
    while !Task.isCancelled {
      let wanted = Self.announces(
        linked: devices.values.filter { $0.channel != nil }.count,
        pairedAway: devices.values.filter { $0.pairing.isPaired && $0.channel == nil }.count)
      if let network, let tcpPort, wanted {
        await network.announce(to: addresses, tcpPort: tcpPort, from: settings.listen)
      }
      do { try await clock.sleep(for: .seconds(settings.announceEverySeconds)) } catch { return }
    }
  }

  /// Whether this host announces itself now, given how many devices are linked and how many paired phones are
  /// away: only to find what is missing, a paired phone that is away or, while nothing is linked, a phone to pair.
  /// A device that hears us links anew (KDE Connect does so on every announcement) and drops the link it had,
  /// with what was in flight on it: the end of a call, or the answer to its pairing request (kdeconnectd then
  /// gave up pairing after 30 s, in one test run of twenty, when a 1 s announcement crossed the answer).
  static func announces(linked: Int, pairedAway: Int) -> Bool { pairedAway > 0 || linked == 0 }

  // MARK: - Helpers

  private func send(_ packet: KDEConnectPacket, on channel: any Channel) {
    channel.writeAndFlush(ByteBuffer(bytes: packet.line), promise: nil)
  }

  private func stamp() -> Int64 { Int64(now().timeIntervalSince1970 * 1_000) }

  private func changed(_ id: String, _ level: KDEConnectReport.Level, _ message: String) {
    report(KDEConnectReport(level, message, changed: devices[id].map(status)))
  }

  private func status(_ device: Device) -> KDEConnectDeviceStatus {
    let name = device.identity.deviceName
    var state = KDEConnectDeviceStatus.State.unpaired
    var reason: String? =
      "not paired: in KDE Connect on the phone, pick \"\(settings.name)\" and tap Request pairing"
    if let refusal = device.refusal, device.channel == nil {
      state = .refused
      reason = refusal
    } else if device.pairing.isPaired {
      state = device.channel == nil ? .unreachable : .connected
      reason = device.channel == nil ? "not on the network; it resumes when it is back" : nil
    } else if device.pairing.isRequested {
      let key = device.verificationKey.map { "; the phone shows the key \($0)" } ?? ""
      state = .pairingRequested
      reason = "run `callalert kdeconnect pair \"\(name)\"` within \(Int(KDEConnectPairing.timeout)) s\(key)"
    }
    return KDEConnectDeviceStatus(
      id: device.identity.deviceID, name: name, address: device.address, state: state, reason: reason)
  }
}
