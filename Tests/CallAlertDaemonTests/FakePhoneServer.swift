import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A phone system on loopback that replays a call flow from Tests/CallAlertBridgesTests/Fixtures: a FRITZ!Box
/// call monitor or an Asterisk Manager Interface, as far as a client can tell.
///
/// It listens on 127.0.0.1 at a free port (bound to port 0) and plays the flow on its own thread: protocol lines
/// are sent as written, `!login` reads the client's Login action, `!close` closes the connection (a restart) and
/// takes the next one, and at each `? ...` or `!cap` line it stops until the test has seen the daemon act on
/// it (``checkpoints`` and ``proceed()``). Every wait is bounded (10 s), so a broken client fails, never hangs.
final class FakePhoneServer: Sendable {
  /// A step of a flow.
  enum Step: Equatable, Sendable {
    case data([UInt8])
    case expect(String)
    case login
    case close
    case cap(String)
  }

  /// The port it listens on.
  let port: Int
  /// The checkpoints reached (`? ...` and `!cap` lines), in order; finishes when the flow is done (or broken).
  let checkpoints: AsyncStream<Step>
  /// What went wrong on the server's side, if anything.
  var failure: String? { state.withLock { $0.failure } }
  /// The Login actions the clients sent.
  var logins: [String] { state.withLock { $0.logins } }
  /// How many connections it accepted.
  var connections: Int { state.withLock { $0.connections } }

  private let listener: CInt
  private let announce: AsyncStream<Step>.Continuation
  private let gate = DispatchSemaphore(value: 0)
  private let stopped = DispatchSemaphore(value: 0)
  private let state = Mutex<(failure: String?, logins: [String], connections: Int)>((nil, [], 0))

  /// The folder of the fixture files.
  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("CallAlertBridgesTests/Fixtures")

  /// Reads a fixture file into steps; AMI lines end with `\r\n`, the FRITZ!Box's with `\n`.
  static func steps(_ file: String) throws -> [Step] {
    let text = try String(contentsOf: fixtures.appendingPathComponent(file), encoding: .utf8)
    let ending = file.hasPrefix("ami") ? "\r\n" : "\n"
    var steps: [Step] = []
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if lines.last == "" { lines.removeLast() }
    for line in lines where !line.hasPrefix("#") {
      if line.hasPrefix("? ") {
        steps.append(.expect(String(line.dropFirst(2))))
      } else if line == "!login" {
        steps.append(.login)
      } else if line == "!close" {
        steps.append(.close)
      } else if line.hasPrefix("!cap ") {
        steps.append(.cap(String(line.dropFirst(5))))
      } else if case .data(let bytes) = steps.last {
        steps[steps.count - 1] = .data(bytes + Array((line + ending).utf8))
      } else {
        steps.append(.data(Array((line + ending).utf8)))
      }
    }
    return steps
  }

  /// Listens on a free loopback port and starts playing `steps` for the first client that connects.
  init(playing steps: [Step]) throws {
    let listener = socket(AF_INET, CInt(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
    }
    guard listener >= 0, bound == 0, listen(listener, 4) == 0 else {
      throw POSIXError(.init(rawValue: errno) ?? .EIO)
    }
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
    }
    self.listener = listener
    port = Int(UInt16(bigEndian: address.sin_port))
    (checkpoints, announce) = AsyncStream.makeStream(of: Step.self)
    let thread = Thread { [self] in play(steps) }
    thread.start()
  }

  /// Lets the flow go on past the checkpoint it waits at.
  func proceed() { gate.signal() }

  /// Ends the flow (closing the connection) and stops listening.
  func stop() {
    stopped.signal()
    gate.signal()
  }

  private func fail(_ text: String) {
    state.withLock { if $0.failure == nil { $0.failure = text } }
  }

  private func play(_ steps: [Step]) {
    defer {
      announce.finish()
      close(listener)
    }
    guard var connection = accept() else { return fail("no client connected within 10 s") }
    for step in steps {
      switch step {
      case .data(let bytes):
        guard send(bytes, on: connection) else { close(connection); return fail("the client went away") }
      case .login:
        guard let login = readFrame(connection) else { close(connection); return fail("no Login action within 10 s") }
        state.withLock { $0.logins.append(login) }
      case .close:
        close(connection)
        guard let next = accept() else { return fail("the client did not reconnect within 10 s") }
        connection = next
      case .expect, .cap:
        announce.yield(step)
        guard gate.wait(timeout: .now() + 10) == .success else {
          close(connection)
          return fail("the test did not see \(step) within 10 s")
        }
      }
    }
    announce.finish()
    _ = stopped.wait(timeout: .now() + 30)  // the connection stays open, as a real box's does
    close(connection)
  }

  private func accept() -> CInt? {
    var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
    guard poll(&entry, 1, 10_000) == 1 else { return nil }
    let connection = Glibc.accept(listener, nil, nil)
    guard connection >= 0 else { return nil }
    state.withLock { $0.connections += 1 }
    return connection
  }

  private func send(_ bytes: [UInt8], on connection: CInt) -> Bool {
    var sent = 0
    while sent < bytes.count {
      let count = bytes[sent...].withUnsafeBytes {
        Glibc.send(connection, $0.baseAddress, $0.count, CInt(MSG_NOSIGNAL))
      }
      guard count > 0 else { return false }
      sent += count
    }
    return true
  }

  /// Reads up to a blank line (`\r\n\r\n`).
  private func readFrame(_ connection: CInt) -> String? {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 512)
    while !bytes.suffix(4).elementsEqual([13, 10, 13, 10]) {
      var entry = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
      guard poll(&entry, 1, 10_000) == 1 else { return nil }
      let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
      guard count > 0 else { return nil }
      bytes += buffer[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
