import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A bare MQTT 3.1.1 publisher at QoS 0 on a blocking TCP socket: CONNECT, wait for CONNACK, then PUBLISH
/// packets written as fast as asked (from one thread at a time). The soak floods a broker with it; `mosquitto_pub`, one process per
/// message (each call needs its own topic), cannot publish thousands a second.
final class MQTTPublisher: Sendable {
  private let fd: CInt

  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  /// Connects to the broker at 127.0.0.1:`port` as `clientID` (a clean session, anonymous).
  init(port: Int, clientID: String) throws(Failure) {
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      close(fd)
      throw Failure(description: "connect to 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
    }
    var limit = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    // CONNECT: protocol "MQTT" level 4, clean session, keepalive 60 s, the client id.
    var body = Self.string("MQTT") + [4, 0x02, 0, 60]
    body += Self.string(clientID)
    guard write(Self.packet(0x10, body)) else {
      close(fd)
      throw Failure(description: "the broker closed the connection before CONNACK")
    }
    var connack = [UInt8](repeating: 0, count: 4)
    let read = connack.withUnsafeMutableBytes { recv(fd, $0.baseAddress, 4, Int32(MSG_WAITALL)) }
    guard read == 4, connack[0] == 0x20, connack[3] == 0 else {
      close(fd)
      throw Failure(description: "the broker refused the connection (CONNACK \(connack.prefix(max(0, read))))")
    }
  }

  deinit { close(fd) }

  /// One PUBLISH packet at QoS 0, to be handed to ``send(_:)`` alone or with others.
  static func publish(topic: String, payload: String) -> [UInt8] {
    packet(0x30, string(topic) + Array(payload.utf8))
  }

  /// Writes `bytes` whole; whether the broker took them.
  @discardableResult
  func send(_ bytes: [UInt8]) -> Bool { write(bytes) }

  /// DISCONNECT, so that the broker drops nothing it was sent.
  func disconnect() { _ = write([0xE0, 0]) }

  private func write(_ bytes: [UInt8]) -> Bool {
    var sent = 0
    while sent < bytes.count {
      let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      if n <= 0 { return false }
      sent += n
    }
    return true
  }

  /// A fixed header with its variable-length remaining length, then the body.
  private static func packet(_ type: UInt8, _ body: [UInt8]) -> [UInt8] {
    var header: [UInt8] = [type]
    var length = body.count
    repeat {
      var byte = UInt8(length % 128)
      length /= 128
      if length > 0 { byte |= 0x80 }
      header.append(byte)
    } while length > 0
    return header + body
  }

  /// A UTF-8 string with its 16-bit length first.
  private static func string(_ text: String) -> [UInt8] {
    let bytes = Array(text.utf8)
    return [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
  }
}
