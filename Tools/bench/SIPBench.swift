import CallAlertDaemon
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The SIP ring extension (docs/SIP.md) in one daemon on one probed board, with SIPp as the caller: latency
/// from each INVITE to the board's first actuator change, the same trip over the control socket in the same
/// daemon, and a burst of overlapping calls placed and cancelled by SIPp, counted on the daemon's events and
/// history.
enum SIPBench {
  struct Figures: Sendable {
    /// INVITE → first actuator change, ms (the INVITE stamped as the relay forwards it to the daemon), by series.
    let inviteSeries: [[Double]]
    /// Every series' INVITEs.
    var invite: Summary { Summary(inviteSeries.flatMap { $0 }) }
    /// A call over the control socket → first actuator change, same daemon, ms.
    let socketCall: Summary
    /// INVITEs that did not ring the board before their CANCEL (or at all).
    let failures: Int
    /// SIPp's exit status for the sequential calls (0: every call went as the scenario says).
    let sequentialStatus: Int32?
    /// The burst: calls placed, calls that rang, calls that stopped, calls the history holds.
    let placed: Int
    let rang: Int
    let stopped: Int
    let recorded: Int
    /// SIPp's exit status for the burst.
    let burstStatus: Int32?
    /// The floor (C), when measured: before the first series and after each.
    var floors: FloorSeries?

    /// The INVITEs against the floor series beside each.
    var inviteAgainstFloor: AgainstFloor? { floors.flatMap { AgainstFloor(daemon: inviteSeries, floors: $0.figures) } }
    /// A stranger's flood of INVITEs, when measured (not with `--quick`).
    var strangerFlood: SIPFloodBench.Figures?

    var lost: Int { max(0, placed - min(rang, stopped)) }

    var json: JSONValue {
      var members: [(String, JSONValue)] = [
        ("invite_to_first_actuator", invite.json(unit: "ms")),
        ("socket_call_to_first_actuator", socketCall.json(unit: "ms")), ("failures", .int(failures)),
        ("sequential_sipp_status", sequentialStatus.map { .int(Int($0)) } ?? .string("killed")),
        (
          "burst",
          .object([
            ("placed", .int(placed)), ("rang", .int(rang)), ("stopped", .int(stopped)), ("recorded", .int(recorded)),
            ("lost", .int(lost)), ("sipp_status", burstStatus.map { .int(Int($0)) } ?? .string("killed")),
          ])
        ),
      ]
      members.append(("series", .int(inviteSeries.count)))
      if let floors, let floor = floors.pooled, let against = inviteAgainstFloor {
        // invite_over_floor keeps its shape: the medians of the ratios to the adjacent floor series.
        members += [
          ("floor", floor.json), ("invite_over_floor", against.medianRatiosJSON),
          ("invite_against_floor", against.json), ("floor_series", floors.json),
        ]
      }
      if let strangerFlood { members.append(("stranger_flood", strangerFlood.json)) }
      return .object(members)
    }
  }

  /// Whether SIPp is installed (Tools/scripts/install-deps.sh installs it).
  static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/sipp") }

  /// `calls` INVITEs one after another (after `warmUpCalls` not counted), each cancelled 100 ms after the
  /// board rang; as many calls over the control socket; then `burstCalls` overlapping calls (20 a second, at
  /// most 10 at once), each cancelled 200 ms after its 180.
  static func measure(
    calls: Int, series: Int = 1, warmUpCalls: Int = 5, burstCalls: Int = 100, between: () async -> Void = {}
  ) async throws -> Figures {
    let accountPort = freeUDPPort()
    let events = EventLog()
    let board = try ProbedBoard()
    let sip = """
      sip:
        accounts:
          - name: bench
            user: "201"
            local_address: 127.0.0.1
            local_port: \(accountPort)
            trusted: [127.0.0.1]
      """
    let daemon = try await DaemonUnderTest.start(
      boardPaths: [board.slavePath], label: "sip", extraConfig: sip, eventSink: { events.append($0) })
    let directory = daemon.directory
    do {
      try await DaemonBench.warmUp(daemon, [board])
      let scenario = directory.appendingPathComponent("invite-cancel.xml")
      try Self.scenario(accountPort: accountPort).write(to: scenario, atomically: true, encoding: .utf8)

      // (a) One call at a time, through the relay that stamps each INVITE as it forwards it, in `series` runs of
      // SIPp with `between` (the floor's series) before the first and after each.
      let perSeries = max(1, calls / max(1, series))
      var inviteSeries: [[Double]] = []
      var sequentialStatus: Int32? = 0
      var failures = 0
      for index in 0..<(series + 1) {
        await between()
        guard index < series else { break }
        let skip = index == 0 ? warmUpCalls : 0
        let relay = try UDPRelay(to: accountPort)
        let mark = board.probe.mark
        let total = skip + perSeries
        let status = await sipp(
          scenario: scenario, to: relay.port,
          arguments: ["-m", "\(total)", "-l", "1", "-r", "4", "-d", "100"],
          limit: .seconds(Double(total) * 0.25 + 60))
        if status != 0 { sequentialStatus = status }
        relay.stop()
        let records = board.probe.records(from: mark).filter(\.isAlerting)
        let stamps = relay.stamps()
        var latencies: [Double] = []
        for (index, invite) in stamps.invites.enumerated() {
          let next = index + 1 < stamps.invites.count ? stamps.invites[index + 1].at : nil
          let cancel = stamps.cancels[invite.callID]
          let ring = records.first { record in record.at >= invite.at && (next.map { record.at < $0 } ?? true) }
          guard let ring, cancel.map({ ring.at <= $0 }) ?? true else {
            failures += 1
            continue
          }
          if index >= skip { latencies.append(invite.at.duration(to: ring.at).milliseconds) }
        }
        failures += max(0, total - stamps.invites.count)
        inviteSeries.append(latencies)
      }

      // The control socket in the same daemon, for comparison.
      var socket: [Double] = []
      for index in 0..<(warmUpCalls + calls) {
        let id = "s\(index)"
        let trip = try await HTTPBench.trip(board, id: id) {
          _ = try await daemon.request(#"{"type":"call","id":"\#(id)"}"#)
        } hangup: {
          _ = try await daemon.request(#"{"type":"hangup","id":"\#(id)"}"#)
        }
        if let trip, index >= warmUpCalls { socket.append(trip.0) }
      }

      // (b) Overlapping calls straight to the account, counted on the events and the history.
      let eventMark = events.count
      let burstStatus = await sipp(
        scenario: scenario, to: accountPort,
        arguments: ["-m", "\(burstCalls)", "-l", "10", "-r", "20", "-d", "200"],
        limit: .seconds(Double(burstCalls) / 20 + 60))
      let (rang, stopped) = await events.count(from: eventMark, until: burstCalls, within: .seconds(10))
      let history = try await daemon.request(#"{"type":"history","limit":\#(burstCalls + 50)}"#)
      let recorded = events.calls(from: eventMark).filter(history.contains).count

      await daemon.stop()
      await board.stop()
      return Figures(
        inviteSeries: inviteSeries, socketCall: Summary(socket), failures: failures,
        sequentialStatus: sequentialStatus, placed: burstCalls, rang: rang, stopped: stopped, recorded: recorded,
        burstStatus: burstStatus)
    } catch {
      await daemon.stop()
      await board.stop()
      throw error
    }
  }

  /// Runs SIPp with the scenario against 127.0.0.1:`port`, bounded by `limit`; its exit status, or nil when
  /// it had to be killed. Its output goes to standard error when it fails.
  private static func sipp(scenario: URL, to port: Int, arguments: [String], limit: Duration) async -> Int32? {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("callalert-bench-sipp-\(getpid()).txt")
    _ = FileManager.default.createFile(atPath: output.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: output) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sipp")
    process.arguments =
      [
        "-sf", scenario.path, "-i", "127.0.0.1", "-p", "\(freeUDPPort())", "-s", "201", "-nostdin", "-timeout",
        "\(Int(limit.components.seconds))s",
      ] + arguments + ["127.0.0.1:\(port)"]
    process.standardInput = FileHandle.nullDevice
    let handle = try? FileHandle(forWritingTo: output)
    process.standardOutput = handle ?? FileHandle.nullDevice
    process.standardError = handle ?? FileHandle.nullDevice
    process.currentDirectoryURL = FileManager.default.temporaryDirectory
    guard let child = try? ChildExit(starting: process) else {
      progress("sip: cannot start /usr/bin/sipp")
      return -1
    }
    try? handle?.close()
    let status = await child.waitOrKill(after: limit)
    if status != 0 {
      let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
      progress("sip: SIPp ended with \(status.map(String.init) ?? "no status (killed)"):\n\(text.suffix(2_000))")
    }
    return status
  }

  /// The caller: INVITE, 100 and 180 back, a pause (-d), CANCEL, its 200, the INVITE's 487, ACK. The
  /// Request-URI names the account's own port, so that the relay in between is invisible to the daemon.
  static func scenario(accountPort: Int) -> String {
    let uri = "sip:[service]@127.0.0.1:\(accountPort)"
    let headers = """
      Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=z9hG4bK-[pid]-[call_number]-inv
      From: "Bench" <sip:+4930123456@[local_ip]:[local_port]>;tag=[pid]tag[call_number]
      """
    return """
      <?xml version="1.0" encoding="ISO-8859-1" ?>
      <!DOCTYPE scenario SYSTEM "sipp.dtd">
      <scenario name="callalert-bench invite then cancel">
        <send retrans="500"><![CDATA[
      INVITE \(uri) SIP/2.0
      \(headers)
      To: <\(uri)>
      Call-ID: [call_id]
      CSeq: 1 INVITE
      Contact: <sip:bench@[local_ip]:[local_port]>
      Max-Forwards: 70
      Content-Length: 0

      ]]></send>
        <recv response="100" optional="true"/>
        <recv response="180"/>
        <pause/>
        <send retrans="500"><![CDATA[
      CANCEL \(uri) SIP/2.0
      \(headers)
      To: <\(uri)>
      Call-ID: [call_id]
      CSeq: 1 CANCEL
      Max-Forwards: 70
      X-Bench: the caller gave up
      Content-Length: 0

      ]]></send>
        <recv response="200"/>
        <recv response="487"/>
        <send><![CDATA[
      ACK \(uri) SIP/2.0
      \(headers)
      [last_To:]
      Call-ID: [call_id]
      CSeq: 1 ACK
      Max-Forwards: 70
      Content-Length: 0

      ]]></send>
      </scenario>

      """
  }

  /// A UDP port on 127.0.0.1 that was free a moment ago.
  static func freeUDPPort() -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    defer { close(descriptor) }
    var address = UDPRelay.loopback(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
    }
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
  }
}

/// The daemon's event lines, kept for counting; a waiter is woken on each new line.
final class EventLog: Sendable {
  private let lines = Mutex<[String]>([])
  private let (wakeUps, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))

  func append(_ line: String) {
    lines.withLock { $0.append(line) }
    wake.yield()
  }

  var count: Int { lines.withLock { $0.count } }

  /// Calls with a `ringing` event and calls with a `stopped` or `missed` event among the lines from `mark`,
  /// waiting up to `limit` for both to reach `expected`.
  func count(from mark: Int, until expected: Int, within limit: Duration) async -> (rang: Int, stopped: Int) {
    let deadline = ContinuousClock.now + limit
    var iterator = wakeUps.makeAsyncIterator()
    while true {
      let counts = tally(from: mark)
      if counts.rang >= expected && counts.stopped >= expected || ContinuousClock.now >= deadline { return counts }
      // Bounded: a timer wakes the wait at the deadline.
      let timer = Task { [wake] in
        try? await Task.sleep(until: deadline)
        wake.yield()
      }
      _ = await iterator.next()
      timer.cancel()
    }
  }

  /// The calls (their `"id":"bench:…"` text) with an event among the lines from `mark`.
  func calls(from mark: Int) -> Set<String> {
    Set(lines.withLock { Array($0[min(mark, $0.count)...]) }.compactMap(Self.callID))
  }

  private static func callID(in line: String) -> String? {
    line.range(of: #""id":"bench:[^"]*""#, options: .regularExpression).map { String(line[$0]) }
  }

  private func tally(from mark: Int) -> (rang: Int, stopped: Int) {
    var rang: Set<String> = []
    var stopped: Set<String> = []
    for line in lines.withLock({ Array($0[min(mark, $0.count)...]) }) {
      guard let id = Self.callID(in: line) else { continue }
      if line.contains(#""event":"ringing""#) { rang.insert(id) }
      if line.contains(#""event":"stopped""#) || line.contains(#""event":"missed""#) { stopped.insert(id) }
    }
    return (rang.count, stopped.count)
  }
}

/// A UDP relay on 127.0.0.1 between SIPp and the daemon's account: forwards every datagram both ways and
/// stamps each INVITE and CANCEL (the first of each call, not retransmissions) with ``ContinuousClock`` just
/// before forwarding it to the daemon, the clock the board probe stamps the actuators with.
final class UDPRelay: Sendable {
  struct Stamp: Sendable {
    let callID: String
    let at: ContinuousClock.Instant
  }

  private struct State {
    var stopping = false
    var invites: [Stamp] = []
    var cancels: [String: ContinuousClock.Instant] = [:]
  }

  /// The relay's port, where SIPp sends.
  let port: Int
  private let state = Mutex(State())

  init(to target: Int) throws {
    let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    var address = Self.loopback(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
    }
    guard descriptor >= 0, bound == 0 else {
      close(descriptor)
      throw BenchError("sip: cannot bind the relay's UDP socket")
    }
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    port = Int(UInt16(bigEndian: address.sin_port))
    // Wakes every 100 ms to see whether it should stop.
    var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let thread = Thread { [self] in
      self.forward(descriptor, to: target)
      close(descriptor)
    }
    thread.name = "bench-sip-relay"
    thread.start()
  }

  /// Stops the relay (its thread ends within 100 ms and closes the socket).
  func stop() { state.withLock { $0.stopping = true } }

  /// The INVITEs in the order forwarded, and each call's CANCEL.
  func stamps() -> (invites: [Stamp], cancels: [String: ContinuousClock.Instant]) {
    state.withLock { ($0.invites, $0.cancels) }
  }

  private func forward(_ descriptor: Int32, to target: Int) {
    var buffer = [UInt8](repeating: 0, count: 65_536)
    var daemon = Self.loopback(port: target)
    var caller = sockaddr_in()
    var seen: Set<String> = []
    while !state.withLock({ $0.stopping }) {
      var from = sockaddr_in()
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      let count = withUnsafeMutablePointer(to: &from) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          recvfrom(descriptor, &buffer, buffer.count, 0, $0, &length)
        }
      }
      guard count > 0 else { continue }
      if Int(UInt16(bigEndian: from.sin_port)) == target {
        send(descriptor, buffer, count, to: &caller)
        continue
      }
      caller = from
      let now = ContinuousClock.now
      send(descriptor, buffer, count, to: &daemon)
      let head = String(decoding: buffer[..<min(count, 8)], as: UTF8.self)
      let method = head.hasPrefix("INVITE ") ? "INVITE" : head.hasPrefix("CANCEL ") ? "CANCEL" : nil
      guard let method, let callID = Self.callID(in: buffer[..<count]), seen.insert(method + callID).inserted
      else { continue }
      state.withLock {
        if method == "INVITE" { $0.invites.append(Stamp(callID: callID, at: now)) } else { $0.cancels[callID] = now }
      }
    }
  }

  private func send(_ descriptor: Int32, _ buffer: [UInt8], _ count: Int, to address: inout sockaddr_in) {
    _ = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        sendto(descriptor, buffer, count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
  }

  private static func callID(in message: ArraySlice<UInt8>) -> String? {
    let text = String(decoding: message, as: UTF8.self)
    for line in text.split(separator: "\r\n") where line.lowercased().hasPrefix("call-id:") {
      return line.dropFirst("call-id:".count).trimmingCharacters(in: .whitespaces)
    }
    return nil
  }

  static func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return address
  }
}
