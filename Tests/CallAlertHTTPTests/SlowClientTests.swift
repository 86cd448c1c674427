import CallAlertControl
import CallAlertHTTP
import CallAlertTestSupport
import Foundation
import Logging
import ServiceLifecycle
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Clients that send slowly or not at all, against the HTTP service alone (a handler that answers `ok`), with
/// short limits: they are cut off with a problem or a closed connection, and the server answers others.
@Suite("Slow HTTP clients", .serialized, .timeLimit(.minutes(1)))
struct SlowClientTests {
  /// The service on a free port with short limits; its port once it listens.
  static func serve(
    idle: Duration = .milliseconds(300), body bodyTimeout: Duration = .milliseconds(300),
    _ body: @escaping @Sendable (Int) async throws -> Void
  ) async throws {
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let limits = HTTPLimits(idleTimeout: idle, bodyTimeout: bodyTimeout)
    let service = HTTPService(
      configuration: HTTPAPIConfiguration(port: 0, limits: limits),
      backend: HTTPBackend(handle: { _, _ in .ok }, events: AsyncStream { _ in }), logger: Logger(label: "slow"),
      onListening: { continuation.yield($0) })
    let group = ServiceGroup(services: [service], logger: Logger(label: "slow"))
    let running = Task { try await group.run() }
    let port = await finishing(within: 10) {
      var iterator = ports.makeAsyncIterator()
      return await iterator.next()
    }
    defer { running.cancel() }
    let found = try #require(port ?? nil)
    try await body(found)
    await group.triggerGracefulShutdown()
    _ = await running.result
  }

  /// A TCP connection to the port, with a receive timeout so no read waits forever.
  static func connect(_ port: Int) throws -> Int32 {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    try #require(connected == 0)
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    return descriptor
  }

  static func send(_ descriptor: Int32, _ text: String) {
    _ = text.withCString { write(descriptor, $0, strlen($0)) }
  }

  /// Everything the server sends until it closes (or 5 s pass without a byte).
  static func readAll(_ descriptor: Int32) -> String {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4_096)
    while true {
      let count = read(descriptor, &buffer, buffer.count)
      if count <= 0 { break }
      bytes += buffer[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// A body trickling in (a byte now and then keeps the connection from being idle) is cut off by the body's
  /// own time limit.
  @Test func aBodyThatDoesNotArriveIsAnsweredWithATimeoutProblem() async throws {
    try await Self.serve(idle: .seconds(3)) { port in
      let descriptor = try Self.connect(port)
      defer { close(descriptor) }
      Self.send(
        descriptor,
        "POST /v1/calls HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{\"id\":"
      )
      let answer = await onThread { Self.readAll(descriptor) }
      #expect(answer.hasPrefix("HTTP/1.1 408"), "\(answer)")
      #expect(answer.contains("application/problem+json") && answer.contains(#""location":"body""#))
    }
  }

  @Test func aConnectionThatSendsNothingIsClosedAndOthersAreServed() async throws {
    try await Self.serve { port in
      let idle = try Self.connect(port)
      defer { close(idle) }
      let start = ContinuousClock.now
      // Closed by the server, not by our 5 s receive timeout; read on a thread of its own (a blocking read on
      // the pool held one of its two threads for up to 5 s).
      #expect(await onThread { Self.readAll(idle) }.isEmpty)
      #expect(ContinuousClock.now - start < .seconds(4))
      let other = try Self.connect(port)
      defer { close(other) }
      Self.send(other, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
      #expect(await onThread { Self.readAll(other) }.hasPrefix("HTTP/1.1 200"))
    }
  }
}
