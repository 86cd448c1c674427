import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The connections the daemon's listeners hold, counted together: the control socket and the HTTP API (its
/// event streams included) share one budget, so a flood on one never takes the descriptors of the boards, the
/// history, SIP or MQTT, and the HTTP API can never take the control socket's last places.
///
/// The budget is `total` places, at most the process's soft descriptor limit less ``reservedDescriptors``. The
/// control socket may hold ``controlSocketLimit`` of them, the HTTP API ``httpLimit``; the HTTP API never takes
/// the last ``keptForControlSocket`` places the control socket is not using, so a local call always finds room.
public final class ConnectionBudget: Sendable {
  /// Who holds a place.
  public enum Listener: Sendable {
    /// The control socket (and so `callalert` commands).
    case controlSocket
    /// The HTTP API: requests, event streams, webhooks.
    case http
  }

  /// Descriptors always left to the rest of the daemon (boards, history, SIP, MQTT, children).
  public static let reservedDescriptors = 256

  /// The places in all.
  public let total: Int
  /// The most places the control socket holds.
  public let controlSocketLimit: Int
  /// The most places the HTTP API holds.
  public let httpLimit: Int
  /// Places the HTTP API leaves to the control socket.
  public let keptForControlSocket: Int
  private let used = Mutex((controlSocket: 0, http: 0))

  /// A budget of `controlSocket + http` places (fewer when the process may open fewer descriptors than that
  /// plus ``reservedDescriptors``), `keptForControlSocket` of them out of the HTTP API's reach.
  /// `descriptorLimit` is the process's soft `RLIMIT_NOFILE` unless given (tests give one).
  public init(
    controlSocket: Int = 64, http: Int = 256, keptForControlSocket kept: Int = 16, descriptorLimit: Int? = nil
  ) {
    let soft = descriptorLimit ?? Self.softDescriptorLimit()
    let wanted = controlSocket + http
    total = max(2, soft == Int.max ? wanted : min(wanted, soft - Self.reservedDescriptors))
    controlSocketLimit = controlSocket
    httpLimit = http
    keptForControlSocket = max(0, min(kept, controlSocket, total - 1))
  }

  /// The process's soft `RLIMIT_NOFILE`; `Int.max` when unlimited or unknown.
  static func softDescriptorLimit() -> Int {
    var limits = rlimit()
    #if canImport(Glibc)
      let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
      let resource = RLIMIT_NOFILE
    #endif
    // rlim_cur is unsigned; "unlimited" is its largest value, which clamps to Int.max.
    return getrlimit(resource, &limits) == 0 ? Int(clamping: limits.rlim_cur) : Int.max
  }

  /// Takes a place for `listener`; false when it may take none now (the connection is then refused).
  public func take(_ listener: Listener) -> Bool {
    used.withLock { used in
      let inUse = used.controlSocket + used.http
      switch listener {
      case .controlSocket:
        guard used.controlSocket < controlSocketLimit, inUse < total else { return false }
        used.controlSocket += 1
      case .http:
        let kept = max(0, keptForControlSocket - used.controlSocket)
        guard used.http < httpLimit, inUse + kept < total else { return false }
        used.http += 1
      }
      return true
    }
  }

  /// Gives `listener`'s place back.
  public func give(_ listener: Listener) {
    used.withLock { used in
      switch listener {
      case .controlSocket: used.controlSocket = max(0, used.controlSocket - 1)
      case .http: used.http = max(0, used.http - 1)
      }
    }
  }

  /// The places `listener` holds now.
  public func inUse(_ listener: Listener) -> Int {
    used.withLock { listener == .controlSocket ? $0.controlSocket : $0.http }
  }
}
