import CallAlertDaemon
import CallAlertHTTPDaemon
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The HTTP API beside the control socket, in one daemon on one probed board: latency from `POST /v1/calls`
/// (and `POST /v1/calls/{id}/hangup`) to the board's actuators, the same trips over the control socket, and
/// `GET /v1/status` throughput under wrk.
enum HTTPBench {
  struct Figures: Sendable {
    /// The idle connections of the flood.
    static let floodConnections = 1_000
    /// HTTP call → first actuator change, ms, by series.
    let callSeries: [[Double]]
    /// Every series' calls.
    var call: Summary { Summary(callSeries.flatMap { $0 }) }
    /// HTTP hangup → all actuators off, ms.
    let hangup: Summary
    /// The same trips over the control socket, in the same daemon, ms.
    let socketCall: Summary
    let socketHangup: Summary
    /// Trips that did not finish within 5 s.
    let failures: Int
    /// wrk on `GET /v1/status`: requests per second and its latency line; nil when wrk is not installed.
    let statusRequestsPerSecond: Double?
    let statusLatency: String?
    /// 1 000 idle connections held open: how many the API closed at once, and a control-socket call's latency
    /// meanwhile (ms); the resident size before and during (KiB).
    var floodClosed = 0
    var floodSocketCall = Summary([])
    var floodResidentBeforeKiB = 0
    var floodResidentDuringKiB = 0
    /// The floor (C), before the first series and after each.
    var floors: FloorSeries?

    /// The HTTP calls against the floor series beside each.
    var callAgainstFloor: AgainstFloor? { floors.flatMap { AgainstFloor(daemon: callSeries, floors: $0.figures) } }

    var json: JSONValue {
      var members: [(String, JSONValue)] = [
        ("http_call_to_first_actuator", call.json(unit: "ms")), ("http_hangup_to_all_off", hangup.json(unit: "ms")),
        ("socket_call_to_first_actuator", socketCall.json(unit: "ms")),
        ("socket_hangup_to_all_off", socketHangup.json(unit: "ms")), ("failures", .int(failures)),
      ]
      members.append(("series", .int(callSeries.count)))
      if let floors, let floor = floors.pooled, let against = callAgainstFloor {
        members += [
          ("floor", floor.json), ("http_call_over_floor", against.medianRatiosJSON),
          ("http_call_against_floor", against.json), ("floor_series", floors.json),
        ]
      }
      if let statusRequestsPerSecond {
        members.append(("status_requests_per_second", .number(statusRequestsPerSecond)))
      }
      members.append(
        (
          "idle_connection_flood",
          .object([
            ("connections", .int(Self.floodConnections)), ("closed_at_once", .int(floodClosed)),
            ("socket_call_to_first_actuator", floodSocketCall.json(unit: "ms")),
            ("resident_before_kib", .int(floodResidentBeforeKiB)),
            ("resident_during_kib", .int(floodResidentDuringKiB)),
          ])
        ))
      return .object(members)
    }
  }

  struct HTTPFailure: Error, CustomStringConvertible { var description: String }

  /// `calls` trips each way, alternating HTTP and socket so both see the same machine.
  /// A blocking TCP connection to 127.0.0.1:`port` that sends nothing; -1 when it failed.
  static func idleConnection(to port: Int) -> Int32 {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return -1 }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      close(descriptor)
      return -1
    }
    return descriptor
  }

  /// Whether the server closed the connection (end of stream or reset), without waiting.
  static func isClosedByServer(_ descriptor: Int32) -> Bool {
    guard descriptor >= 0 else { return false }
    var byte: UInt8 = 0
    let read = recv(descriptor, &byte, 1, Int32(MSG_DONTWAIT))
    return read == 0 || (read < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
  }

  static func measure(
    calls: Int, series: Int = 1, warmUpCalls: Int = 20, wrkSeconds: Int, between: () async -> Void = {}
  ) async throws -> Figures {
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let board = try ProbedBoard()
    let daemon = try await DaemonUnderTest.start(
      boardPaths: [board.slavePath], label: "http", addOns: [.http(onListening: { continuation.yield($0) })])
    defer { continuation.finish() }
    do {
      var iterator = ports.makeAsyncIterator()
      guard let port = await iterator.next() else { throw HTTPFailure(description: "the HTTP API did not listen") }
      let client = try KeepAliveClient(port: port)
      defer { client.close() }
      try await DaemonBench.warmUp(daemon, [board])
      var http: ([Double], [Double]) = ([], [])
      var socket: ([Double], [Double]) = ([], [])
      var callSeries: [[Double]] = []
      var failures = 0
      let perSeries = max(1, calls / max(1, series))
      for seriesIndex in 0..<(series + 1) {
        await between()
        guard seriesIndex < series else { break }
        let skip = seriesIndex == 0 ? warmUpCalls : 0
        var calls: [Double] = []
        for index in 0..<(skip + perSeries) {
          let id = "http-\(seriesIndex)-\(index)"
          let overHTTP = try await trip(board, id: id) {
            try await client.post("/v1/calls", body: #"{"id":"\#(id)"}"#)
          } hangup: {
            try await client.post("/v1/calls/\(id)/hangup", body: "")
          }
          let overSocket = try await trip(board, id: "s" + id) {
            _ = try await daemon.request(#"{"type":"call","id":"s\#(id)"}"#)
          } hangup: {
            _ = try await daemon.request(#"{"type":"hangup","id":"s\#(id)"}"#)
          }
          guard let overHTTP, let overSocket else {
            failures += 1
            continue
          }
          if index >= skip {
            calls.append(overHTTP.0)
            http.1.append(overHTTP.1)
            socket.0.append(overSocket.0)
            socket.1.append(overSocket.1)
          }
          if index % 100 == 0 { board.probe.clear() }
        }
        callSeries.append(calls)
      }
      let wrk = await Self.wrk(port: port, seconds: wrkSeconds)
      var figures = Figures(
        callSeries: callSeries, hangup: Summary(http.1), socketCall: Summary(socket.0), socketHangup: Summary(socket.1),
        failures: failures, statusRequestsPerSecond: wrk?.0, statusLatency: wrk?.1)
      // A stranger holds 1 000 idle connections: the API keeps its budget, the control socket rings.
      figures.floodResidentBeforeKiB = ProcessStats.residentKiB
      let flood = (0..<Figures.floodConnections).map { _ in Self.idleConnection(to: port) }
      try? await Task.sleep(for: .seconds(1))
      figures.floodClosed = flood.filter(Self.isClosedByServer).count
      var during: [Double] = []
      for index in 0..<max(20, calls / 10) {
        let trip = try await trip(board, id: "flood-\(index)") {
          _ = try await daemon.request(#"{"type":"call","id":"flood-\#(index)"}"#)
        } hangup: {
          _ = try await daemon.request(#"{"type":"hangup","id":"flood-\#(index)"}"#)
        }
        if let trip { during.append(trip.0) }
      }
      figures.floodSocketCall = Summary(during)
      figures.floodResidentDuringKiB = ProcessStats.residentKiB
      for descriptor in flood where descriptor >= 0 { close(descriptor) }
      await daemon.stop()
      await board.stop()
      return figures
    } catch {
      await daemon.stop()
      await board.stop()
      throw error
    }
  }

  /// One call and its hangup through `call` and `hangup`: ms to the first alerting change and to all off.
  static func trip(
    _ board: ProbedBoard, id: String, call: () async throws -> Void, hangup: () async throws -> Void
  ) async throws -> (Double, Double)? {
    let clock = ContinuousClock()
    let mark = board.probe.mark
    let sent = clock.now
    try await call()
    guard let ring = await board.probe.first(from: mark, where: { $0.isAlerting }) else { return nil }
    let hangupMark = board.probe.mark
    let hungUp = clock.now
    try await hangup()
    guard let stopped = await board.probe.first(from: hangupMark, where: { $0.isSilent }) else { return nil }
    let off = board.probe.records(from: hangupMark).last { $0.isAllOff && $0.at <= stopped.at }
    return (sent.duration(to: ring.at).milliseconds, hungUp.duration(to: (off ?? stopped).at).milliseconds)
  }

  /// wrk, 2 threads and 16 connections on `GET /v1/status` for `seconds`: requests per second and its
  /// latency line, or nil when wrk is missing or failed.
  static func wrk(port: Int, seconds: Int) async -> (Double, String)? {
    guard seconds > 0 else { return nil }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["wrk", "-t2", "-c16", "-d\(seconds)s", "http://127.0.0.1:\(port)/v1/status"]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    guard let status = try? await ChildExit(starting: process).waitOrKill(after: .seconds(seconds + 30)), status == 0
    else { return nil }
    let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let lines = text.split(separator: "\n")
    guard let rate = lines.first(where: { $0.hasPrefix("Requests/sec:") }),
      let value = Double(rate.split(separator: " ").last ?? "")
    else { return nil }
    let latency = lines.first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("Latency") }
    return (value, latency.map { $0.split(separator: " ").joined(separator: " ") } ?? "")
  }
}

/// One keep-alive HTTP/1.1 connection; blocking reads and writes run on a queue of their own, never on the
/// cooperative pool.
final class KeepAliveClient: Sendable {
  private let descriptor: Int32
  private let port: Int
  private let queue = DispatchQueue(label: "bench-http")
  /// Bytes read and not yet taken by an answer; the lock also keeps one exchange whole against another.
  private let pending = Mutex<[UInt8]>([])

  init(port: Int) throws {
    self.port = port
    descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    var one: Int32 = 1
    setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    guard connected == 0 else { throw HTTPBench.HTTPFailure(description: "cannot connect to port \(port)") }
  }

  /// POSTs `body`; throws unless the answer is 200.
  func post(_ path: String, body: String) async throws {
    let request =
      "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\n"
      + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
    let status = await withCheckedContinuation { continuation in
      queue.async { continuation.resume(returning: self.exchange(Array(request.utf8))) }
    }
    guard status == 200 else { throw HTTPBench.HTTPFailure(description: "POST \(path) answered \(status)") }
  }

  /// Writes the request, reads one answer (headers, then Content-Length bytes); its status, or 0.
  private func exchange(_ request: [UInt8]) -> Int {
    pending.withLock { exchange(request, pending: &$0) }
  }

  private func exchange(_ request: [UInt8], pending: inout [UInt8]) -> Int {
    guard request.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == request.count else { return 0 }
    let separator: [UInt8] = Array("\r\n\r\n".utf8)
    var headerEnd: Int?
    while headerEnd == nil {
      headerEnd = pending.indices.dropLast(3).first { pending[$0..<($0 + 4)].elementsEqual(separator) }
      if headerEnd == nil, !readMore(into: &pending) { return 0 }
    }
    guard let end = headerEnd else { return 0 }
    let head = String(decoding: pending[..<end], as: UTF8.self)
    let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
    let length =
      head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
      .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
    while pending.count < end + 4 + length { if !readMore(into: &pending) { return 0 } }
    pending.removeFirst(end + 4 + length)
    return status
  }

  private func readMore(into pending: inout [UInt8]) -> Bool {
    var buffer = [UInt8](repeating: 0, count: 4_096)
    let count = read(descriptor, &buffer, buffer.count)
    guard count > 0 else { return false }
    pending += buffer[..<count]
    return true
  }

  func close() { _ = Glibc.close(descriptor) }
}
