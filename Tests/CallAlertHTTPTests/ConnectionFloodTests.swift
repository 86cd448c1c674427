import CallAlertDaemon
import CallAlertTestSupport
import Foundation
import NIOHTTP1
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A stranger opens 1 000 idle connections to the HTTP API: the API holds at most its 256 (the rest are
/// closed at once, before a byte is read), so the daemon keeps its descriptors for the boards and the other
/// listeners: a call on the control socket rings meanwhile, and once the flood lets go the API serves again.
@Suite("HTTP connection flood", .serialized, .timeLimit(.minutes(1)))
struct ConnectionFloodTests {
  static let flood = 1_000

  /// A blocking TCP connection to 127.0.0.1:`port` with a 100 ms receive timeout; -1 when it failed.
  static func connect(to port: Int) -> Int32 {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return -1 }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
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
    var byte: UInt8 = 0
    let read = recv(descriptor, &byte, 1, Int32(MSG_DONTWAIT))
    return read == 0 || (read < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
  }

  @Test func aFloodOfIdleConnectionsNeverStopsACallAndTheAPIServesAgainAfterIt() async throws {
    let rig = try await HTTPDaemonRig.start()
    let port = rig.port
    let connections = (0..<Self.flood).map { _ in Self.connect(to: port) }
    defer { for descriptor in connections where descriptor >= 0 { close(descriptor) } }
    #expect(connections.allSatisfy { $0 >= 0 }, "the kernel refused some connections")
    // Those beyond the budget are closed by the server at once; the first 256 stay open, idle.
    let closed = try await answer(within: 10, every: .milliseconds(100)) {
      connections.filter(Self.isClosedByServer).count
    } until: {
      $0 >= Self.flood - 256
    }
    #expect(closed == Self.flood - 256)
    // The control socket and the board are untouched: a call rings.
    let socket = rig.directory.appendingPathComponent("control.sock").path
    let answer = try await ControlSocketClient.request(#"{"type":"call","id":"during-flood"}"#, path: socket)
    #expect(answer.contains(#""ok":true"#), "\(answer)")
    #expect(await rig.boardPlays(true))
    // The flood lets go: the API answers again.
    for descriptor in connections where descriptor >= 0 { shutdown(descriptor, Int32(SHUT_RDWR)) }
    let status = try await CallAlertTestSupport.answer(within: 10, every: .milliseconds(100)) {
      (try? await rig.send(.GET, "/v1/status").status) ?? 0
    } until: {
      $0 == 200
    }
    #expect(status == 200)
    try await rig.stop()
  }
}
