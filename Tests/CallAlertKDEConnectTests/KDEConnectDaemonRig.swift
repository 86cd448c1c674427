import AsyncHTTPClient
import CallAlertDaemon
import CallAlertHTTPDaemon
import CallAlertKDEConnectDaemon
import CallAlertSimulation
import CallAlertTestSupport
import Foundation
import Logging
import NIOCore
import ServiceLifecycle

/// A daemon in this process with one virtual board (`desk`) and the KDE Connect source on loopback, on ports
/// handed out for this test; its events collected.
struct KDEConnectDaemonRig {
  let directory: String
  let udpPort: Int
  let httpPort: Int
  let events: LineLog
  let group: ServiceGroup
  let running: Task<Void, any Error>

  /// Starts the daemon; with `phoneUDPPort` it announces itself there every second (to a phone that waits for it).
  /// `clock` is what the source's waits (announcements, the pairing's 30 s) run on.
  static func start(
    phoneUDPPort: Int? = nil, clock: any Clock<Duration> = ContinuousClock()
  ) async throws
    -> KDEConnectDaemonRig
  {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "callalert-kdeconnect-\(UUID().uuidString.prefix(8))"
    ).path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let udpPort = LoopbackPorts.take()
    let tcpPort = LoopbackPorts.take()
    let httpPort = LoopbackPorts.take()
    let config = """
      cap: 20s
      boards:
        - name: desk
      socket:
        path: \(directory)/control.sock
      history:
        path: \(directory)/history.sqlite
      http:
        listen: 127.0.0.1:\(httpPort)
      kdeconnect:
        name: CallAlert Test
        state_dir: \(directory)/kdeconnect
        listen: 127.0.0.1
        discovery_port: \(udpPort)
        tcp_ports: \(tcpPort)
        broadcast: false
        announce_every: \(phoneUDPPort == nil ? "1h" : "1s")
        peers: [\(phoneUDPPort.map { "\"127.0.0.1:\($0)\"" } ?? "")]

      """
    try config.write(toFile: directory + "/config.yaml", atomically: true, encoding: .utf8)
    let events = LineLog()
    var options = DaemonOptions(configPath: directory + "/config.yaml", simulate: true, readStandardInput: false)
    options.boardSource = .virtualBoards()
    let (listening, listened) = AsyncStream.makeStream(of: Int.self)
    options.addOns = [.http(), .kdeConnect(clock: clock, onListening: { port in listened.yield(port) })]
    var logger = Logger(label: "callalert-kdeconnect-test")
    logger.logLevel = ProcessInfo.processInfo.environment["CALLALERT_TEST_LOG"] == nil ? .warning : .debug
    let group = try await Daemon.makeServiceGroup(options: options, logger: logger, eventSink: { events.append($0) })
    let running = Task { try await group.run() }
    var iterator = listening.makeAsyncIterator()
    _ = await iterator.next()
    let rig = KDEConnectDaemonRig(
      directory: directory, udpPort: udpPort, httpPort: httpPort, group: group, running: running, events: events)
    // A call that comes before the board rings with no board first: the board is asked for until it is there
    // (bounded; each answer is the daemon's state, not a guess at time).
    for _ in 0..<200 {
      if try await rig.request(#"{"type":"status"}"#).contains(#""connected":true"#) { break }
      try await Task.sleep(for: .milliseconds(50))
    }
    return rig
  }

  init(
    directory: String, udpPort: Int, httpPort: Int, group: ServiceGroup, running: Task<Void, any Error>,
    events: LineLog
  ) {
    self.directory = directory
    self.udpPort = udpPort
    self.httpPort = httpPort
    self.group = group
    self.running = running
    self.events = events
  }

  func request(_ line: String) async throws -> String {
    try await ControlSocketClient.request(line, path: directory + "/control.sock")
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
    await group.triggerGracefulShutdown()
    try await running.value
    try? FileManager.default.removeItem(atPath: directory)
  }
}
