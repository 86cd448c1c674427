import CallAlertTransport
import Dispatch
import Synchronization
import SystemPackage

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Why a connection to a phone system could not be made.
public struct BridgeConnectError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What went wrong, naming the host and port.
  public let description: String

  /// Creates an error.
  public init(_ description: String) { self.description = description }
}

/// Opens TCP connections to phone systems: non-blocking, event-driven (the event loop reports the connect's
/// end through a ``DescriptorWatch``, ``DescriptorChannel`` carries the bytes; nothing polls), with TCP keepalive so a box that vanished
/// without a FIN (power cut, cable pulled) is noticed within about a minute and a half.
public enum TCPConnector {
  /// Seconds of silence before the first keepalive probe.
  public static let keepaliveIdle: CInt = 60
  /// Seconds between probes.
  public static let keepaliveInterval: CInt = 10
  /// Unanswered probes before the connection counts as dead.
  public static let keepaliveCount: CInt = 3

  /// Connects to `host:port` (a name is resolved first; each address is tried in turn).
  ///
  /// Cancelling the calling task abandons the attempt at once. The corresponding C functions are
  /// `getaddrinfo`, `socket`, `setsockopt` and `connect`.
  public static func connect(host: String, port: Int) async throws(BridgeConnectError) -> DescriptorChannel {
    ignoreBrokenPipe
    let name = "\(host):\(port)"
    let addresses = try await resolve(host: host, port: port)
    var lastError = BridgeConnectError("\(name): no address")
    for address in addresses {
      if Task.isCancelled { throw BridgeConnectError("\(name): cancelled") }
      do throws(BridgeConnectError) {
        let descriptor = try await connect(address, name: name)
        do {
          return try DescriptorChannel(taking: FileDescriptor(rawValue: descriptor), name: name)
        } catch {
          throw BridgeConnectError("\(name): \(error)")
        }
      } catch {
        lastError = error
      }
    }
    throw lastError
  }

  /// A resolved address.
  private struct Address: Sendable {
    var family: CInt
    var bytes: [UInt8]
  }

  /// SIGPIPE would kill the daemon when it writes to a connection the far end reset; the write's EPIPE is
  /// handled instead.
  private static let ignoreBrokenPipe: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

  /// getaddrinfo blocks, so it runs on a dispatch worker rather than a task's thread.
  private static func resolve(host: String, port: Int) async throws(BridgeConnectError) -> [Address] {
    let result: Result<[Address], BridgeConnectError> = await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
          hints.ai_socktype = SOCK_STREAM
        #else
          hints.ai_socktype = CInt(SOCK_STREAM.rawValue)
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
          let reason = String(cString: gai_strerror(status))
          continuation.resume(returning: .failure(BridgeConnectError("\(host):\(port): cannot resolve: \(reason)")))
          return
        }
        var addresses: [Address] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
          if let address = current.pointee.ai_addr {
            let bytes = Array(UnsafeRawBufferPointer(start: address, count: Int(current.pointee.ai_addrlen)))
            addresses.append(Address(family: current.pointee.ai_family, bytes: bytes))
          }
          entry = current.pointee.ai_next
        }
        freeaddrinfo(first)
        continuation.resume(returning: .success(addresses))
      }
    }
    return try result.get()
  }

  private static func connect(_ address: Address, name: String) async throws(BridgeConnectError) -> CInt {
    #if canImport(Darwin)
      let descriptor = socket(address.family, SOCK_STREAM, 0)
    #else
      let descriptor = socket(
        address.family, CInt(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
    #endif
    guard descriptor >= 0 else { throw BridgeConnectError("\(name): socket: \(String(cString: strerror(errno)))") }
    _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    setKeepalive(descriptor)
    let status = address.bytes.withUnsafeBytes { buffer in
      systemConnect(descriptor, buffer.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(buffer.count))
    }
    if status == 0 { return descriptor }
    guard errno == EINPROGRESS else {
      let reason = String(cString: strerror(errno))
      close(descriptor)
      throw BridgeConnectError("\(name): \(reason)")
    }
    let error = await waitUntilConnected(descriptor)
    guard error == 0 else {
      close(descriptor)
      throw BridgeConnectError("\(name): \(error < 0 ? "cancelled" : String(cString: strerror(error)))")
    }
    return descriptor
  }

  /// Waits for the connect's outcome: the descriptor turns writable; its SO_ERROR then says how it went
  /// (0: connected). Cancellation returns -1 at once. It returns only after the event loop let go of the
  /// descriptor (the watch is cancelled), so the caller may close it or hand it on.
  private static func waitUntilConnected(_ descriptor: CInt) async -> CInt {
    // The outcome is decided once, under the lock, and SO_ERROR is read under it too: a report that comes
    // after a cancellation finds the outcome decided and never touches a descriptor the caller may have closed.
    let state = Mutex<(continuation: CheckedContinuation<CInt, Never>?, value: CInt?)>((nil, nil))
    // The waiting task is resumed after the lock is let go: cancelling it holds the runtime's task lock while
    // it runs `onCancel`, which takes this lock, so resuming under this lock could deadlock against it.
    let decide: @Sendable (_ readError: Bool) -> Void = { readError in
      let decided: (CheckedContinuation<CInt, Never>, CInt)? = state.withLock { current in
        guard current.value == nil else { return nil }
        var error: CInt = -1
        if readError {
          error = 0
          var length = socklen_t(MemoryLayout<CInt>.size)
          if getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length) != 0 { error = errno }
        }
        current.value = error
        defer { current.continuation = nil }
        return current.continuation.map { ($0, error) }
      }
      if let (continuation, error) = decided { continuation.resume(returning: error) }
    }
    let watch = DescriptorWatch(FileDescriptor(rawValue: descriptor)) { _ in decide(true) }
    defer { watch.cancel() }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<CInt, Never>) in
        let decided: CInt? = state.withLock { current in
          if let value = current.value { return value }
          current.continuation = continuation
          return nil
        }
        if let decided { return continuation.resume(returning: decided) }
        do {
          try watch.arm(readable: false, writable: true)
        } catch {
          decide(false)  // epoll refused the socket: report it as cancelled rather than wait for ever
        }
      }
    } onCancel: {
      decide(false)
    }
  }

  /// SO_KEEPALIVE with short timings: the defaults (two hours) would leave a dead box unnoticed all night.
  private static func setKeepalive(_ descriptor: CInt) {
    var on: CInt = 1
    _ = setsockopt(descriptor, SOL_SOCKET, SO_KEEPALIVE, &on, socklen_t(MemoryLayout<CInt>.size))
    #if os(Linux)
      var idle = keepaliveIdle
      var interval = keepaliveInterval
      var count = keepaliveCount
      _ = setsockopt(descriptor, CInt(IPPROTO_TCP), TCP_KEEPIDLE, &idle, socklen_t(MemoryLayout<CInt>.size))
      _ = setsockopt(descriptor, CInt(IPPROTO_TCP), TCP_KEEPINTVL, &interval, socklen_t(MemoryLayout<CInt>.size))
      _ = setsockopt(descriptor, CInt(IPPROTO_TCP), TCP_KEEPCNT, &count, socklen_t(MemoryLayout<CInt>.size))
    #endif
  }
}

#if canImport(Glibc)
  private let systemConnect = Glibc.connect
#elseif canImport(Musl)
  private let systemConnect = Musl.connect
#elseif canImport(Darwin)
  private let systemConnect = Darwin.connect
#endif
