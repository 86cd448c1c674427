import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Ports on 127.0.0.1 for the tests' own servers and real peers (SIPp, mosquitto, kamailio, openssl): the one
/// place the tests get a port to hand to a server they do not bind themselves. (A server the test binds itself
/// binds port 0 and keeps its socket, which no one can take.)
///
/// A port asked of the kernel (bind to 0, read it back, close) is only "free a moment ago": another test's bind
/// to 0, or a peer's own socket, may take it before the peer binds it, and the peer then cannot listen. So a
/// port is reserved, not guessed:
/// - it comes from below the kernel's ephemeral range, which bind to 0 and outgoing connections never use;
/// - within this process, from a counter that never repeats;
/// - across processes (every test process on the machine at once: the suites of other clones too), by a lock
///   on the port's byte of one shared file (`fcntl` record locks), held until this process ends and released by
///   the kernel however it ends; a port whose byte another process holds is skipped;
/// - and it is checked free for both TCP and UDP before it is handed out.
/// What remains is a program that is not a test binding such a port by number, which these ports do not guard.
public enum LoopbackPorts {
  /// Where test ports come from: below 32 768, where Linux's default ephemeral range starts.
  static let range = 20_000..<32_000
  private static let next = Atomic<Int>(Int(getpid()) &* 7_919 % (32_000 - 20_000))
  /// The shared file whose bytes are the reservations; opened once and never closed, since closing any
  /// descriptor of a file drops every record lock this process holds on it.
  private static let reservations: Int32 = {
    let path = "/tmp/callalert-test-ports.lock"
    let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
    if descriptor >= 0 { _ = fchmod(descriptor, 0o666) }  // shared by every user's test runs
    return descriptor
  }()

  /// A port on 127.0.0.1 that no socket of either kind holds now, that no other test process has reserved and
  /// that this process never handed out; it stays reserved until this process ends.
  public static func take() -> Int {
    for _ in 0..<range.count {
      let offset = next.add(1, ordering: .relaxed).oldValue % range.count
      let port = range.lowerBound + offset
      guard reserve(port) else { continue }
      if isFree(port, type: SOCK_STREAM) && isFree(port, type: SOCK_DGRAM) { return port }
    }
    preconditionFailure("every test port from \(range) is taken")
  }

  /// Whether a peer the test started (SIPp, a broker) has bound UDP `port` on 127.0.0.1 yet.
  public static func isTaken(udpPort port: Int) -> Bool { !isFree(port, type: SOCK_DGRAM) }

  /// Locks `port`'s byte of the shared file, without waiting; false when another process holds it. Without the
  /// file (an unwritable /tmp) every port counts as reserved and the other checks stand alone.
  private static func reserve(_ port: Int) -> Bool {
    guard reservations >= 0 else { return true }
    var lock = flock()
    lock.l_type = Int16(F_WRLCK)
    lock.l_whence = Int16(SEEK_SET)
    lock.l_start = off_t(port)
    lock.l_len = 1
    return fcntl(reservations, F_SETLK, &lock) == 0
  }

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
