import CallAlertControl
import CallAlertTransport
@preconcurrency import Dispatch
import Logging

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The daemon's control socket: a Unix stream socket (mode 0600 by default) that takes one JSON request
/// per line and answers each with one JSON line. Accepting and every connection are event-driven.
///
/// Nothing a client does can grow the daemon without bound or make it spin (see ``ControlSocketLimits``): lines
/// are read only as fast as they are answered, a line over the limit is dropped while it is read, a client that
/// does not read its answers is disconnected, connections are limited in number and in idle time, and running
/// out of descriptors makes accepting pause, leaving descriptors for the boards. Only the daemon's user, root
/// and the members of `socket.group` are answered (``PeerPolicy``).
public final class ControlSocketServer: Sendable {
  /// Answers one request line (its bytes as received); the answer is sent back as a line.
  public typealias Handler = @Sendable (_ line: [UInt8], _ lineNumber: Int, _ connection: String) async -> String

  /// The socket's path.
  public let path: String
  /// The limits applied to clients.
  public let limits: ControlSocketLimits
  /// The places the socket's clients take, shared with the HTTP API in the daemon.
  public let connections: ConnectionBudget
  private let descriptor: CInt
  private let logger: Logger
  private let policy: PeerPolicy
  private let acceptConnection: @Sendable (CInt) -> CInt

  /// Binds and listens at `path` with permission `mode`, in a directory only the user controls (created 0700
  /// when missing). A stale socket left by a daemon that died is replaced; a live one (another daemon answers)
  /// or a non-socket file at `path` is an error. With `group`, the socket file is given to that group and its
  /// members are answered too (the mode must let the group in, e.g. 0660).
  ///
  /// `connections` is the budget its clients take places of: the daemon's, shared with the HTTP API; nil, one
  /// of its own with room for `limits.maxConnections`.
  public convenience init(
    path: String, mode: mode_t = 0o600, group: gid_t? = nil, limits: ControlSocketLimits = .standard,
    connections: ConnectionBudget? = nil, logger: Logger
  ) throws(ControlSocketError) {
    try self.init(
      path: path, mode: mode, group: group, limits: limits, connections: connections, policy: .current(group: group),
      logger: logger, accept: { listening in systemAccept(listening) })
  }

  /// The designated initialiser; tests pass their own peer policy and accept(2).
  init(
    path: String, mode: mode_t, group: gid_t?, limits: ControlSocketLimits, connections: ConnectionBudget? = nil,
    policy: PeerPolicy, logger: Logger, accept: @escaping @Sendable (CInt) -> CInt
  ) throws(ControlSocketError) {
    self.path = path
    self.logger = logger
    self.limits = limits
    self.connections = connections ?? ConnectionBudget(controlSocket: limits.maxConnections, http: 0)
    self.policy = policy
    acceptConnection = accept
    try SocketDirectory.prepare(forSocketAt: path, userID: geteuid())
    try ControlSocketServer.clearStale(path)
    var address = try ControlSocketServer.address(path)
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw .system("socket", path: path, errno: errno) }
    // Create it private from the start (umask), then set the configured mode.
    let previous = umask(0o177)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    umask(previous)
    guard bound == 0 else {
      let error = errno
      close(fd)
      throw .system("bind", path: path, errno: error)
    }
    guard group.map({ chown(path, uid_t.max, $0) == 0 }) ?? true, chmod(path, mode) == 0, listen(fd, 64) == 0 else {
      let error = errno
      close(fd)
      unlink(path)
      throw .system("listen", path: path, errno: error)
    }
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    descriptor = fd
  }

  /// Serves connections until cancelled, timing idleness and accept back-off on `clock`; then closes the
  /// socket and removes its file. Isolated to the event loop, as its connections are: a request is read,
  /// handed to `handler` and answered on the loop's thread.
  @EventLoopActor
  public func run<C: Clock<Duration>>(clock: C, handler: @escaping Handler) async {
    let (accepted, continuation) = AsyncStream.makeStream(of: (CInt, Int).self)
    let acceptor = ControlSocketAcceptor(
      descriptor: descriptor, limits: limits, connections: self.connections, policy: policy, logger: logger,
      accept: acceptConnection, clock: clock, accepted: continuation)
    let sweeper = ControlIdleSweeper(timeout: limits.idleTimeout, clock: clock)
    await withTaskCancellationHandler {
      // Discarding: a long-running daemon must not keep a finished task per client it ever served.
      await withDiscardingTaskGroup { group in
        group.addTask { await sweeper.run() }
        for await (client, number) in accepted {
          let connection = ControlConnection(
            taking: client, name: "socket#\(number)", outputLimit: limits.maxUnsentBytes, clock: clock
          ) { [logger] reason in
            acceptor.connectionDidClose()
            sweeper.remove(number: number)
            switch reason {
            case .finished: break
            case .outputFull: logger.notice("control socket: socket#\(number) did not read its answers; disconnected")
            case .idle: logger.info("control socket: socket#\(number) idle; disconnected")
            }
          }
          sweeper.add(connection, number: number)
          group.addTask { [limits] in
            await ControlSocketServer.serve(connection, limits: limits, handler: handler)
          }
        }
        group.cancelAll()
      }
    } onCancel: {
      Task { @EventLoopActor in acceptor.stop() }
    }
    unlink(path)
  }

  /// Answers a client's lines in order until it is done, then sends what is left and closes.
  @EventLoopActor
  static func serve<C: Clock<Duration>>(
    _ connection: ControlConnection<C>, limits: ControlSocketLimits, handler: Handler
  ) async {
    // Cancellation (the daemon stopping) closes the connection, which ends a read that waits.
    await withTaskCancellationHandler {
      await serveLines(connection, limits: limits, handler: handler)
    } onCancel: {
      Task { @EventLoopActor in connection.close() }
    }
  }

  @EventLoopActor
  private static func serveLines<C: Clock<Duration>>(
    _ connection: ControlConnection<C>, limits: ControlSocketLimits, handler: Handler
  ) async {
    var splitter = LineSplitter(maxLength: limits.maxLineLength)
    reading: while true {
      let received = await connection.receive()
      let lines: [LineSplitter.Line]
      switch received {
      case .bytes(let bytes): lines = splitter.feed(bytes)
      case .end: lines = splitter.finish()  // a last line without its newline is still a line
      }
      for line in lines {
        let answer: String
        switch line {
        case .line(let bytes, let number):
          if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
          connection.setBusy(true)
          answer = await handler(bytes, number, connection.name)
          connection.setBusy(false)
        case .tooLong(let number):
          answer =
            ControlResponse.failure(
              "\(connection.name):\(number):1: line longer than \(limits.maxLineLength / 1024) KiB; it was skipped"
            ).line
        }
        guard connection.send(Array((answer + "\n").utf8)) else { break reading }
      }
      if received == .end { break }
    }
    // After a half-close (shutdown(SHUT_WR)) the client still reads: its answers go out before the close.
    await connection.drain()
    connection.close()
  }

  private static func address(_ path: String) throws(ControlSocketError) -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard bytes.count < capacity else { throw .pathTooLong(path: path, limit: capacity - 1) }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in bytes.enumerated() { raw[index] = byte }
    }
    return address
  }

  private static func clearStale(_ path: String) throws(ControlSocketError) {
    var status = stat()
    guard lstat(path, &status) == 0 else { return }
    guard status.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(path: path) }
    do throws(ControlSocketError) {
      close(try ControlSocketClient.connect(path))
    } catch .foreignDaemon(let path, let userID) {
      throw .foreignDaemon(path: path, userID: userID)  // another user's listener: never remove it
    } catch {
      unlink(path)  // nobody answers: a socket left by a daemon that died
      return
    }
    throw .inUse(path: path)
  }
}

/// Why the control socket could not be opened.
public enum ControlSocketError: Error, Equatable, CustomStringConvertible {
  /// Another daemon answers on the path.
  case inUse(path: String)
  /// Something that is not a socket is at the path; it is left alone.
  case notASocket(path: String)
  /// The path does not fit a Unix socket address.
  case pathTooLong(path: String, limit: Int)
  /// A system call failed.
  case system(String, path: String, errno: Int32)
  /// Nothing listens at the path.
  case noDaemon(path: String)
  /// The socket's directory could be tampered with by another user; the reason says how.
  case unsafeDirectory(path: String, reason: String)
  /// The process listening at the path belongs to another user: nothing was sent to it.
  case foreignDaemon(path: String, userID: uid_t)
  /// The daemon's answer did not fit the client's line limit.
  case answerTooLong(path: String)

  /// A message naming the path and what to do.
  public var description: String {
    switch self {
    case .inUse(let path): "another callalert daemon is listening on \(path); stop it or pass --socket"
    case .notASocket(let path): "\(path) exists and is not a socket; not replacing it (pass --socket)"
    case .pathTooLong(let path, let limit): "socket path \(path) is longer than \(limit) bytes"
    case .system(let call, let path, let errno): "\(call) on \(path): \(String(cString: strerror(errno)))"
    case .noDaemon(let path): "no callalert daemon listens on \(path); start one with `callalert run`"
    case .unsafeDirectory(let path, let reason): "refusing to use \(path) for the control socket: \(reason)"
    case .foreignDaemon(let path, let userID):
      "\(path) is served by uid \(userID), not by you (uid \(geteuid())); nothing was sent (is someone else's "
        + "process listening there?)"
    case .answerTooLong(let path): "the answer on \(path) is longer than the client accepts"
    }
  }
}
