import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Ports on 127.0.0.1 for the tests' own servers and real peers (SIPp, mosquitto, kamailio), each handed out
/// once per process.
///
/// A port asked of the kernel (bind to 0, read it back, close) was "free a moment ago", and in the parallel
/// suite another test's bind to 0, or a peer's own socket, took it before the test bound it again: the SIP
/// extension then could not listen ("Address already in use") and the test waited out its limit. These ports
/// come from below the kernel's ephemeral range, which bind to 0 never hands out, from a counter that never
/// repeats within the process (starting at a place drawn from the process id, so that two test processes at
/// once rarely meet), and each is checked free for both TCP and UDP before it is handed out.
public enum LoopbackPorts {
  /// Where test ports come from: below 32 768, where Linux's default ephemeral range starts.
  static let range = 20_000..<32_000
  private static let next = Atomic<Int>(Int(getpid()) &* 7_919 % (32_000 - 20_000))

  /// A port on 127.0.0.1 that no socket of either kind holds now and that this process never handed out.
  public static func take() -> Int {
    for _ in 0..<range.count {
      let offset = next.add(1, ordering: .relaxed).oldValue % range.count
      let port = range.lowerBound + offset
      if isFree(port, type: SOCK_STREAM) && isFree(port, type: SOCK_DGRAM) { return port }
    }
    preconditionFailure("every test port from \(range) is taken")
  }

  /// Whether a peer the test started (SIPp, a broker) has bound UDP `port` on 127.0.0.1 yet.
  public static func isTaken(udpPort port: Int) -> Bool { !isFree(port, type: SOCK_DGRAM) }

  private static func isFree(_ port: Int, type: __socket_type) -> Bool {
    let descriptor = socket(AF_INET, Int32(type.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
  }
}
