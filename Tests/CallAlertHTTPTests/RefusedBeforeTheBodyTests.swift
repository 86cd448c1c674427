import CallAlertControl
import CallAlertHTTP
import CallAlertTestSupport
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Requests judged from their head alone, over a raw TCP connection to the HTTP service: a stranger's, and one
/// that declares more than the limit, are answered at once, their bodies never read (the connection ends
/// after the answer, while the client still holds the rest); a chunked body over the limit gets 413 like a
/// declared one; a request whose body came whole keeps its connection.
@Suite("Refused before the body", .serialized, .timeLimit(.minutes(1)))
struct RefusedBeforeTheBodyTests {
  /// The service on a free port, with `token`; `body` gets the port and how many requests reached the handler.
  static func serve(
    token: String? = nil, _ body: @escaping @Sendable (Int, @Sendable () -> Int) async throws -> Void
  ) async throws {
    let handled = Mutex(0)
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let service = HTTPService(
      configuration: HTTPAPIConfiguration(port: 0, token: token),
      backend: HTTPBackend(
        handle: { _, _ in
          handled.withLock { $0 += 1 }
          return .ok
        }, events: AsyncStream { _ in }), logger: Logger(label: "before-body"),
      onListening: { continuation.yield($0) })
    let group = ServiceGroup(services: [service], logger: Logger(label: "before-body"))
    let running = Task { try await group.run() }
    let port = await finishing(within: 10) {
      var iterator = ports.makeAsyncIterator()
      return await iterator.next()
    }
    defer { running.cancel() }
    let found = try #require(port ?? nil)
    try await body(found) { handled.withLock { $0 } }
    await group.triggerGracefulShutdown()
    _ = await running.result
  }

  /// What the server sends until it closes the connection (or resets it), and whether it did within the
  /// receive timeout (5 s).
  static func readUntilClosed(_ descriptor: Int32) -> (text: String, closed: Bool) {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4_096)
    while true {
      let count = read(descriptor, &buffer, buffer.count)
      if count > 0 {
        bytes += buffer[..<count]
        continue
      }
      let closed = count == 0 || errno == ECONNRESET
      return (String(decoding: bytes, as: UTF8.self), closed)
    }
  }

  /// Sends `head` and `start` of a body, then waits for the answer without sending more: its status line and
  /// headers must come, and the connection must end, within the bound.
  static func answerWithoutTheBody(port: Int, head: String, start: String) async throws -> (String, Bool, Duration) {
    let descriptor = try SlowClientTests.connect(port)
    defer { close(descriptor) }
    let began = ContinuousClock.now
    SlowClientTests.send(descriptor, head + "\r\n" + start)
    let (text, closed) = await onThread { Self.readUntilClosed(descriptor) }
    return (text, closed, ContinuousClock.now - began)
  }

  static let gigabyte = "Content-Length: 1000000000\r\n"

  @Test func aStrangerIsAnswered401WithoutTheBodyBeingRead() async throws {
    try await Self.serve(token: "s3cret") { port, handled in
      let (answer, closed, took) = try await Self.answerWithoutTheBody(
        port: port,
        head: "POST /v1/calls HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\(Self.gigabyte)",
        start: #"{"id":"#)
      #expect(answer.hasPrefix("HTTP/1.1 401"), "\(answer)")
      #expect(answer.lowercased().contains("connection: close"), "\(answer)")
      #expect(closed, "the server kept the connection to read the gigabyte: \(answer)")
      #expect(took < .seconds(4))
      // A webhook with a wrong token in its URL, the same.
      let (webhook, webhookClosed, _) = try await Self.answerWithoutTheBody(
        port: port,
        head: "POST /v1/webhooks/twilio?token=nope HTTP/1.1\r\nHost: 127.0.0.1\r\n"
          + "Content-Type: application/x-www-form-urlencoded\r\n\(Self.gigabyte)",
        start: "CallSid=CA1&")
      #expect(webhook.hasPrefix("HTTP/1.1 401") && webhookClosed, "\(webhook)")
      #expect(handled() == 0)
      // The server goes on serving others.
      let other = try SlowClientTests.connect(port)
      defer { close(other) }
      SlowClientTests.send(other, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
      #expect(await onThread { SlowClientTests.readAll(other) }.hasPrefix("HTTP/1.1 200"))
    }
  }

  @Test func aDeclaredBodyOverTheLimitIsAnswered413BeforeItIsRead() async throws {
    try await Self.serve(token: "s3cret") { port, handled in
      for path in ["/v1/calls", "/v1/push", "/v1/webhooks/vonage?token=s3cret", "/v1/status"] {
        let (answer, closed, took) = try await Self.answerWithoutTheBody(
          port: port,
          head: "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer s3cret\r\n"
            + "Content-Type: application/json\r\n\(Self.gigabyte)",
          start: "{")
        #expect(answer.hasPrefix("HTTP/1.1 413"), "\(path): \(answer)")
        #expect(answer.contains("application/problem+json") && answer.contains(#""status":413"#), "\(answer)")
        #expect(closed, "\(path): the server kept the connection to read the gigabyte")
        #expect(took < .seconds(4))
      }
      #expect(handled() == 0)
    }
  }

  @Test func aChunkedBodyOverTheLimitIsAnswered413() async throws {
    try await Self.serve { port, handled in
      let descriptor = try SlowClientTests.connect(port)
      defer { close(descriptor) }
      SlowClientTests.send(
        descriptor,
        "POST /v1/calls HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          + "Transfer-Encoding: chunked\r\n\r\n")
      // 80 KiB in 8 KiB chunks, over the 64 KiB limit; the last chunk (0) never comes.
      let chunk = "2000\r\n" + String(repeating: " ", count: 8_192) + "\r\n"
      let (answer, closed) = await onThread { () -> (String, Bool) in
        for _ in 0..<10 { SlowClientTests.send(descriptor, chunk) }
        return Self.readUntilClosed(descriptor)
      }
      #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer)")
      #expect(answer.contains(#""status":413"#) && answer.contains("64 KiB"), "\(answer)")
      #expect(closed)
      #expect(handled() == 0)
    }
  }

  @Test func aRequestWhoseBodyCameWholeKeepsItsConnection() async throws {
    try await Self.serve { port, handled in
      let descriptor = try SlowClientTests.connect(port)
      defer { close(descriptor) }
      let call = #"{"id":"k1"}"#
      SlowClientTests.send(
        descriptor,
        "POST /v1/calls HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          + "Content-Length: \(call.utf8.count)\r\n\r\n\(call)"
          + "POST /v1/calls HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          + "Transfer-Encoding: chunked\r\n\r\n\(String(call.utf8.count, radix: 16))\r\n\(call)\r\n0\r\n\r\n"
          + "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
      // Three answers on the one connection: neither call's answer closed it.
      let (answers, _) = await onThread { Self.readUntilClosed(descriptor) }
      let each = answers.components(separatedBy: "HTTP/1.1 ").dropFirst()
      #expect(each.count == 3 && each.allSatisfy { $0.hasPrefix("200") }, "\(answers)")
      #expect(each.prefix(2).allSatisfy { !$0.lowercased().contains("connection: close") }, "\(answers)")
      #expect(handled() == 2)
    }
  }
}
