import Foundation
import Logging

@testable import CallAlertDaemon

#if canImport(Glibc)
  import Glibc
#endif

/// A private temporary directory for one test's socket, removed with everything in it when the test is done.
final class SocketFolder: Sendable {
  let path: String

  init() {
    var template = Array("/tmp/callalert-test-XXXXXX".utf8CString)
    path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  var socket: String { path + "/control.sock" }
}

/// A control socket server under test, stopped by ``stop()``.
struct RunningServer {
  let server: ControlSocketServer
  let task: Task<Void, Never>

  init(
    at path: String, limits: ControlSocketLimits = .standard, policy: PeerPolicy = .current(),
    handler: @escaping ControlSocketServer.Handler = RunningServer.echo,
    accept: @escaping @Sendable (CInt) -> CInt = { systemAccept($0) }
  ) throws {
    let server = try ControlSocketServer(
      path: path, mode: 0o600, group: nil, limits: limits, policy: policy, logger: Logger(label: "test"),
      accept: accept)
    self.server = server
    task = Task { await server.run(clock: ContinuousClock(), handler: handler) }
  }

  func stop() async {
    task.cancel()
    await task.value
  }

  /// Answers `{"echo":"<line>"}`.
  static let echo: ControlSocketServer.Handler = { line, _, _ in
    #"{"echo":"\#(String(decoding: line, as: UTF8.self))"}"#
  }
}

/// A plain blocking client socket, as `socat` or a script would use, with every wait bounded by a timeout.
/// Its calls block, so tests make them through ``onThread(_:)``, off the concurrency pool.
final class RawClient: Sendable {
  let descriptor: CInt

  /// Connects to `path`; waits up to `timeout` for each send and receive.
  init(_ path: String, timeout: Duration = .seconds(10)) throws {
    descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
    }
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard connected == 0 else {
      let error = errno
      Glibc.close(descriptor)
      throw POSIXError(POSIXErrorCode(rawValue: error) ?? .EIO)
    }
    setTimeout(timeout)
  }

  /// Sets how long one send or receive may block.
  func setTimeout(_ timeout: Duration) {
    let (seconds, attoseconds) = timeout.components
    var value = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
    for option in [SO_RCVTIMEO, SO_SNDTIMEO] {
      setsockopt(descriptor, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
    }
  }

  /// Sends as much of `bytes` as goes through before an error or the timeout; the count and the errno.
  @discardableResult
  func send(_ bytes: [UInt8]) -> (sent: Int, errno: Int32) {
    var sent = 0
    while sent < bytes.count {
      let count = bytes.withUnsafeBytes {
        Glibc.send(descriptor, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
      }
      if count < 0 {
        if errno == EINTR { continue }
        return (sent, errno)
      }
      sent += count
    }
    return (sent, 0)
  }

  /// No more requests: shutdown(SHUT_WR), the client still reads.
  func shutdownWrite() { _ = Glibc.shutdown(descriptor, Int32(SHUT_WR)) }

  /// Everything until the end, or until a receive times out or fails; and whether the end was reached: the
  /// server closed the connection, with an end of file, or with a reset when it closed before reading what
  /// the client had sent (a Unix socket closed with unread data resets its peer; an idle close on a loaded
  /// machine can come before the server read the line). A timeout is not the end.
  func readToEnd() -> (text: String, reachedEnd: Bool) {
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      if count > 0 {
        received += buffer[..<count]
        continue
      }
      let failure = errno
      if count < 0, failure == EINTR { continue }
      return (String(decoding: received, as: UTF8.self), count == 0 || failure == ECONNRESET)
    }
  }

  /// The next line, or nil when the end or the timeout comes first.
  func readLine() -> String? {
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while true {
      let count = recv(descriptor, &byte, 1, 0)
      if count < 0, errno == EINTR { continue }
      guard count == 1 else { return nil }
      if byte == 0x0A { return String(decoding: line, as: UTF8.self) }
      line.append(byte)
    }
  }

  func close() { Glibc.close(descriptor) }
}
