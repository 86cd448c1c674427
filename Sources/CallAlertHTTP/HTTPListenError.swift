internal import NIOCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The HTTP API could not listen where it was told to: the address, in words, and what to do. SwiftNIO's own
/// error read "bind(descriptor:ptr:bytes:): Address already in use) (errno: 98)": a Swift signature, an
/// unbalanced parenthesis, and no address.
public struct HTTPListenError: Error, CustomStringConvertible, Sendable {
  /// What was asked for, `host:port`.
  public let address: String
  /// Why not, with what to do.
  public let reason: String

  /// The whole message, as the daemon logs it and stops with.
  public var description: String { "http: cannot listen on \(address): \(reason)" }

  /// The error for `error`, thrown when binding `host`:`port`.
  init(host: String, port: Int, error: any Error) {
    let shown = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    address = shown
    guard let io = error as? IOError else {
      reason = "\(error)"
      return
    }
    switch io.errnoCode {
    case EADDRINUSE:
      reason =
        "another program listens there (`ss -ltnp 'sport = :\(port)'` names it); stop it, or choose another port "
        + "with `--http ADDR:PORT` or http.listen in the config"
    case EACCES:
      reason = "permission denied: ports below 1024 need privileges; choose a port of 1024 or more"
    case EADDRNOTAVAIL:
      reason = "\(host) is not an address of this machine; use 127.0.0.1, ::1, 0.0.0.0 or one of its own"
    default:
      reason = String(cString: strerror(io.errnoCode))
    }
  }
}
