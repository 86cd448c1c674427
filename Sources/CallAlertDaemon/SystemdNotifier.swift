#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Tells the service manager how the daemon is doing: systemd's `sd_notify` protocol, one datagram per
/// state to the Unix socket named by `NOTIFY_SOCKET` (a path, or `@name` in the abstract namespace).
///
/// With `Type=notify` systemd waits for ``ready()`` before it considers the service started, so units
/// ordered after CallAlert start only once its config is loaded and its control socket listens. Without
/// `NOTIFY_SOCKET` (a terminal, launchd) every call does nothing.
public struct SystemdNotifier: Sendable {
  /// The socket's address as systemd gave it; nil: no service manager listens.
  public let socketPath: String?

  /// A notifier that writes to `socketPath` (nil: does nothing).
  public init(socketPath: String?) {
    self.socketPath = socketPath.flatMap { $0.isEmpty ? nil : $0 }
  }

  /// The notifier for this process: `NOTIFY_SOCKET` from the environment.
  public static func fromEnvironment() -> SystemdNotifier {
    SystemdNotifier(socketPath: getenv("NOTIFY_SOCKET").map { String(cString: $0) })
  }

  /// The daemon is serving: its config is loaded and its control socket listens.
  @discardableResult public func ready(status: String? = nil) -> Bool {
    send(["READY=1"] + (status.map { ["STATUS=\($0)"] } ?? []))
  }

  /// The daemon re-reads its config (SIGHUP); follow with ``ready(status:)`` once it serves again.
  /// `MONOTONIC_USEC` is what `Type=notify-reload` wants, harmless for `Type=notify`.
  @discardableResult public func reloading() -> Bool {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    let micros = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
    return send(["RELOADING=1", "MONOTONIC_USEC=\(micros)"])
  }

  /// The daemon is shutting down.
  @discardableResult public func stopping() -> Bool { send(["STOPPING=1"]) }

  /// A line for `systemctl status`.
  @discardableResult public func status(_ text: String) -> Bool { send(["STATUS=\(text)"]) }

  /// Sends the assignments as one datagram; false when there is no socket or sending failed (the service
  /// manager then times the start out, which `systemctl status` reports: nothing else is worth doing).
  @discardableResult public func send(_ assignments: [String]) -> Bool {
    guard let socketPath, var address = Self.address(socketPath) else { return false }
    #if canImport(Glibc)
      let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
    #else
      let fd = socket(AF_UNIX, SOCK_DGRAM, 0)
    #endif
    guard fd >= 0 else { return false }
    defer { close(fd) }
    let message = Array(assignments.joined(separator: "\n").utf8)
    let length = socklen_t(MemoryLayout<sa_family_t>.size + address.length)
    let sent = message.withUnsafeBytes { bytes in
      withUnsafePointer(to: &address.storage) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          sendto(fd, bytes.baseAddress, bytes.count, 0, $0, length)
        }
      }
    }
    return sent == message.count
  }

  /// `sockaddr_un` for a path or an abstract name (`@` becomes the leading NUL); nil when too long or relative.
  private static func address(_ path: String) -> (storage: sockaddr_un, length: Int)? {
    var bytes = Array(path.utf8)
    if bytes.first == UInt8(ascii: "@") {
      bytes[0] = 0
    } else if bytes.first != UInt8(ascii: "/") {
      return nil
    }
    var storage = sockaddr_un()
    storage.sun_family = sa_family_t(AF_UNIX)
    guard bytes.count < MemoryLayout.size(ofValue: storage.sun_path) else { return nil }
    withUnsafeMutableBytes(of: &storage.sun_path) { raw in
      for (index, byte) in bytes.enumerated() { raw[index] = byte }
    }
    // A path counts its terminating NUL; an abstract name is exactly its bytes.
    return (storage, bytes[0] == 0 ? bytes.count : bytes.count + 1)
  }
}
