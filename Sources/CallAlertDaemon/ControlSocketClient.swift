import CallAlertRuntime

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The client side, for `callalert notify` and `status`: one request line, one answer line.
public enum ControlSocketClient {
  /// Connects to the daemon's socket; returns the descriptor.
  public static func connect(_ path: String) throws(ControlSocketError) -> CInt {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
      throw .pathTooLong(path: path, limit: MemoryLayout.size(ofValue: address.sun_path) - 1)
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in bytes.enumerated() { raw[index] = byte }
    }
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw .system("socket", path: path, errno: errno) }
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        systemConnect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard result == 0 else {
      let error = errno
      close(fd)
      if error == ENOENT || error == ECONNREFUSED { throw .noDaemon(path: path) }
      throw .system("connect", path: path, errno: error)
    }
    // Before a byte is sent: the listener must be us (or root), not another user who bound the name first.
    let peer = PeerCredentials.of(fd)
    guard let peer, trusts(peer, userID: geteuid()) else {
      close(fd)
      throw .foreignDaemon(path: path, userID: peer?.userID ?? uid_t.max)
    }
    return fd
  }

  /// Whether a client run by `userID` may talk to the listener `peer`: only its own user's daemon, or root's.
  public static func trusts(_ peer: PeerCredentials, userID: uid_t) -> Bool {
    peer.userID == userID || peer.userID == 0
  }

  /// Sends one request line and returns the answer line.
  ///
  /// The exchange, connect(2) included (it waits while the daemon's listen queue is full), runs with blocking
  /// calls on a thread of its own, off the concurrency pool.
  public static func request(_ line: String, path: String) async throws(ControlSocketError) -> String {
    let result = await withCheckedContinuation {
      (done: CheckedContinuation<Result<String, ControlSocketError>, Never>) in
      DetachedThread.start(name: "callalert control client") {
        done.resume(
          returning: Result { () throws(ControlSocketError) in try exchange(try connect(path), line, path: path) })
      }
    }
    return try result.get()
  }

  /// Sends one request line on a fresh connection and returns the answer line, blocking the calling thread
  /// throughout: for a thread of its own (the bench's client), never for a task on the concurrency pool.
  public static func requestBlocking(_ line: String, path: String) throws(ControlSocketError) -> String {
    try exchange(try connect(path), line, path: path)
  }

  /// Sends `line` on `descriptor`, a connected socket, and reads the answer line; closes the descriptor.
  ///
  /// A daemon that refuses the client (not allowed, too many connections) sends its reason and closes, maybe
  /// before the request is out: the send then fails, but the reason is still there to read, and is returned.
  static func exchange(_ descriptor: CInt, _ line: String, path: String) throws(ControlSocketError) -> String {
    defer { close(descriptor) }
    let request = Array((line + "\n").utf8)
    var sent = 0
    while sent < request.count {
      let count = request.withUnsafeBytes { systemSend(descriptor, $0.baseAddress! + sent, $0.count - sent) }
      if count < 0 {
        if errno == EINTR { continue }
        break  // EPIPE or ECONNRESET: read what the daemon said before it closed
      }
      sent += count
    }
    var splitter = LineSplitter(maxLength: 64 * 1024 * 1024)
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      if count < 0, errno == EINTR { continue }
      let lines = count > 0 ? splitter.feed(buffer[..<count]) : splitter.finish()
      if let first = lines.first {
        guard let answer = first.text else { throw .answerTooLong(path: path) }
        return answer
      }
      if count <= 0 { throw .noDaemon(path: path) }
    }
  }
}

/// connect(2), named apart from ``ControlSocketClient/connect(_:)``.
private func systemConnect(_ fd: CInt, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> CInt {
  #if canImport(Glibc)
    Glibc.connect(fd, address, length)
  #else
    Darwin.connect(fd, address, length)
  #endif
}
