import AsyncHTTPClient
import CallAlertHTTPDaemon
import CallAlertKDEConnectDaemon
import CallAlertTestSupport
import Foundation
import NIOCore

/// The daemon rig (``DaemonRig``) with one virtual board (`desk`) and the KDE Connect source on loopback, on
/// ports handed out for this test; its events collected.
struct KDEConnectDaemonRig {
  let daemon: DaemonRig
  let udpPort: Int
  let httpPort: Int

  var directory: String { daemon.directory.path }
  var events: LineLog { daemon.events }

  /// Starts the daemon; with `phoneUDPPort` it announces itself there every second (to a phone that waits for it).
  /// `clock` is what the source's waits (announcements, the pairing's 30 s) run on.
  static func start(
    phoneUDPPort: Int? = nil, clock: any Clock<Duration> = ContinuousClock()
  ) async throws
    -> KDEConnectDaemonRig
  {
    let udpPort = LoopbackPorts.take()
    let tcpPort = LoopbackPorts.take()
    let httpPort = LoopbackPorts.take()
    let (listening, listened) = AsyncStream.makeStream(of: Int.self)
    let daemon = try await DaemonRig.start(
      "kdeconnect",
      config: { directory in
        """
        cap: 20s
        boards:
          - name: desk
        \(DaemonRig.files(in: directory))
        http:
          listen: 127.0.0.1:\(httpPort)
        kdeconnect:
          name: CallAlert Test
          state_dir: \(directory.path)/kdeconnect
          listen: 127.0.0.1
          discovery_port: \(udpPort)
          tcp_ports: \(tcpPort)
          broadcast: false
          announce_every: \(phoneUDPPort == nil ? "1h" : "1s")
          peers: [\(phoneUDPPort.map { "\"127.0.0.1:\($0)\"" } ?? "")]

        """
      },
      addOns: [.http(), .kdeConnect(clock: clock, onListening: { port in listened.yield(port) })])
    var iterator = listening.makeAsyncIterator()
    _ = await iterator.next()
    await daemon.boardConnected(within: 10)
    return KDEConnectDaemonRig(daemon: daemon, udpPort: udpPort, httpPort: httpPort)
  }

  func request(_ line: String) async throws -> String {
    try await daemon.request(line)
  }

  /// The HTTP API's `/metrics`, as Prometheus text.
  func metrics() async throws -> String {
    let response = try await HTTPClient.shared.execute(
      HTTPClientRequest(url: "http://127.0.0.1:\(httpPort)/metrics"), timeout: .seconds(10))
    return String(buffer: try await response.body.collect(upTo: 1 << 20))
  }

  /// A phone of this rig, its certificate in a folder of its own.
  func phone(
    _ name: String, folder: String? = nil, id: String? = nil, protocolVersion: Int = 8, listenUDP: Int? = nil
  ) async throws -> ScriptedPhone {
    try await ScriptedPhone(
      daemonUDPPort: udpPort, listenUDP: listenUDP, name: name,
      state: directory + "/" + (folder ?? name.replacingOccurrences(of: " ", with: "-")),
      id: id, protocolVersion: protocolVersion)
  }

  /// The first event line containing every one of `parts`.
  func event(_ parts: String..., within seconds: Double = 20) async -> String? {
    await events.first(within: seconds) { line in parts.allSatisfy { line.contains($0) } }
  }

  func stop() async throws {
    try await daemon.stop()
  }
}
