import CallAlertProtocol
import CallAlertTestSupport
import CallAlertText
import CallAlertVirtualBoard
import Foundation
import Logging
import Synchronization

/// The daemon rig (``DaemonRig``) with one in-process virtual board and one SIP account listening on a free UDP
/// port of 127.0.0.1, as `callalert run --simulate` runs it: its event lines, its log, the board's actuator
/// changes, and the control socket for `status` and `history`.
struct SIPRig {
  let daemon: DaemonRig
  var directory: URL { daemon.directory }
  var socket: String { daemon.socket }
  /// The account's port.
  let port: Int
  let log = CapturedLog(level: .debug)
  private let board: VirtualBoardRunner<ContinuousClock>
  private var events: AsyncStream<String>.AsyncIterator
  private var changes: AsyncStream<ActuatorTimeline.Entry>.AsyncIterator
  /// Every event line read so far.
  private(set) var lines: [String] = []

  /// Starts the daemon; `account` adds lines to the account (`registrar:`, `password_file:`...). Without a
  /// registrar the account trusts 127.0.0.1 (the tests' PBX) and nothing else.
  init(cap: String = "2s", user: String = "201", account: String = "") async throws {
    let port = LoopbackPorts.take()
    self.port = port
    let (lines, sink) = AsyncStream.makeStream(of: String.self)
    let made = Made()
    daemon = try await DaemonRig.start(
      "sip",
      config: { directory in
        """
        cap: \(cap)
        boards:
          - name: desk
            port: auto
        \(DaemonRig.files(in: directory))
        sip:
          accounts:
            - name: ring
              user: "\(user)"
              local_address: 127.0.0.1
              local_port: \(port)
        \(account.contains("registrar:") ? "" : "      trusted: [127.0.0.1]")
        \(account.split(separator: "\n").map { "      " + $0 }.joined(separator: "\n"))
        """
      }, logger: log.logger, onBoard: { _, runner in made.set(runner) }, eventSink: { sink.yield($0) })
    guard let board = made.runner else { throw RigError("no virtual board was made") }
    self.board = board
    let (changes, changeSink) = AsyncStream.makeStream(of: ActuatorTimeline.Entry.self)
    await board.withBoard { $0.hardware.onChange = { changeSink.yield($0) } }
    self.changes = changes.makeAsyncIterator()
    events = lines.makeAsyncIterator()
    // The board connects in its own time: a call that came first rang with no board, and the CANCEL SIPp sends
    // 600 ms later ended it before the board was there (under load it did: the board never sounded). The
    // tests' calls come once it is connected.
    let status = await daemon.boardConnected(within: 30)
    guard status.contains(#""connected":true"#) else {
      throw RigError("the virtual board did not connect within 30 s: \(status) \(log.all.suffix(10))")
    }
  }

  /// Reads event lines until one contains every word; that line, or nil when the events ended.
  mutating func event(_ words: String...) async -> String? {
    while let line = await events.next() {
      lines.append(line)
      if words.allSatisfy(line.contains) { return line }
    }
    return nil
  }

  /// Waits for the next `ringing` event; its call id.
  mutating func ringingCall() async throws -> String {
    guard let line = await event(#""event":"ringing""#), let id = Self.callID(in: line) else {
      throw RigError("no ringing event; events: \(lines)")
    }
    return id
  }

  /// Waits until the board sounds; false when its changes ended first.
  mutating func boardSounds() async -> Bool {
    if await board.withBoard({ $0.actuators.isAlerting }) { return true }
    while let change = await changes.next() { if change.state.isAlerting { return true } }
    return false
  }

  /// Waits until the board is silent, nothing playing (a ring's own silent steps are not silence); false
  /// when it still plays after `seconds`. Asked again every 20 ms rather than at each actuator change: a STOP
  /// that lands in a ring's silent step ends the play without changing an actuator, and a wait for the next
  /// change then waited for ever (seen under load).
  func boardFallsSilent(within seconds: Double = 30) async -> Bool {
    let board = board
    return await answer(within: seconds, every: .milliseconds(20)) {
      await board.withBoard { $0.playingToken == nil && !$0.actuators.isAlerting }
    } until: {
      $0
    }
  }

  /// The board's alert spans so far.
  func alertSpans() async -> [(start: UInt64, end: UInt64?)] {
    await board.withBoard { $0.hardware.timeline.alertSpans }
  }

  /// Sends one UDP datagram to the account's port, from a socket of its own.
  func sendDatagram(_ bytes: [UInt8]) {
    let descriptor = Glibc.socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    _ = bytes.withUnsafeBytes { buffer in
      withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          sendto(descriptor, buffer.baseAddress, buffer.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
    }
  }

  /// Sends a control request line; the answer line.
  func request(_ line: String) async throws -> String {
    try await daemon.request(line)
  }

  /// `status` as JSON text.
  func status() async throws -> String {
    try await daemon.status()
  }

  /// The history's calls by id, with their outcomes (the latest `limit`).
  func history(limit: Int = 200) async throws -> [String: String] {
    let response = try await daemon.request(#"{"type":"history","limit":\#(limit)}"#)
    let object = try JSONParser.parse(response)
    var result: [String: String] = [:]
    for call in object["calls"]?.elements ?? [] {
      if let id = call["id"]?.string, let outcome = call["outcome"]?.string { result[id] = outcome }
    }
    return result
  }

  /// Stops the daemon (unregistering, ending sofia-sip's thread) and removes its files.
  func stop() async throws {
    try await daemon.stop()
  }

  /// The call id in an event line (`"id":"ring:..."`).
  static func callID(in line: String) -> String? {
    guard let range = line.range(of: #""id":"ring:[^"]*""#, options: .regularExpression) else { return nil }
    return String(line[range].dropFirst(6).dropLast())
  }

  private final class Made: Sendable {
    private let value = Mutex<VirtualBoardRunner<ContinuousClock>?>(nil)
    func set(_ runner: VirtualBoardRunner<ContinuousClock>) { value.withLock { $0 = $0 ?? runner } }
    var runner: VirtualBoardRunner<ContinuousClock>? { value.withLock { $0 } }
  }

  struct RigError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
  }
}
