import CallAlertSerial
@preconcurrency import Dispatch
import Logging

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The daemon's control socket: a Unix stream socket (mode 0600 by default) that takes one JSON request
/// per line and answers each with one JSON line. Accepting and every connection are event-driven.
public final class ControlSocketServer: Sendable {
  /// Answers one request line; the answer is sent back as a line.
  public typealias Handler = @Sendable (_ line: String, _ lineNumber: Int, _ connection: String) async -> String

  /// The socket's path.
  public let path: String
  private let descriptor: CInt
  private let logger: Logger

  /// Binds and listens at `path` with permission `mode`. A stale socket left by a daemon that died is
  /// replaced; a live one (another daemon answers) or a non-socket file at `path` is an error.
  public init(path: String, mode: mode_t = 0o600, logger: Logger) throws(ControlSocketError) {
    self.path = path
    self.logger = logger
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
    guard chmod(path, mode) == 0, listen(fd, 16) == 0 else {
      let error = errno
      close(fd)
      unlink(path)
      throw .system("listen", path: path, errno: error)
    }
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    descriptor = fd
  }

  /// Serves connections until cancelled, then closes the socket and removes its file.
  public func run(handler: @escaping Handler) async {
    let (connections, continuation) = AsyncStream.makeStream(of: CInt.self)
    let queue = DispatchQueue(label: "CallAlertDaemon.ControlSocketServer")
    let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
    let listening = descriptor
    source.setEventHandler {
      while true {
        let client = accept(listening, nil, nil)
        if client < 0 { break }
        continuation.yield(client)
      }
    }
    source.setCancelHandler {
      close(listening)
      continuation.finish()
    }
    source.resume()
    await withTaskCancellationHandler {
      await withTaskGroup(of: Void.self) { group in
        var count = 0
        for await client in connections {
          count += 1
          let name = "socket#\(count)"
          group.addTask { [logger] in
            await ControlSocketServer.serve(client, name: name, handler: handler, logger: logger)
          }
        }
        group.cancelAll()
      }
    } onCancel: {
      source.cancel()
    }
    unlink(path)
  }

  private static func serve(_ client: CInt, name: String, handler: Handler, logger: Logger) async {
    let channel: DescriptorChannel
    do {
      channel = try DescriptorChannel(taking: FileDescriptor(rawValue: client), name: name)
    } catch {
      logger.warning("control socket: \(error)")
      return
    }
    var splitter = LineSplitter()
    do {
      for try await chunk in channel.incoming {
        for line in splitter.feed(chunk) {
          let answer: String
          switch line {
          case .line(let text, let number):
            if text.allSatisfy(\.isWhitespace) { continue }
            answer = await handler(text, number, name)
          case .tooLong(let number):
            answer = #"{"ok":false,"error":"\#(name):\#(number):1: line longer than 256 KiB"}"#
          }
          try await channel.write(Array((answer + "\n").utf8))
        }
      }
    } catch {
      // The client went away; nothing to answer.
    }
    channel.close()
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
    if (try? ControlSocketClient.connect(path)).map({ close($0) }) != nil { throw .inUse(path: path) }
    unlink(path)
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

  /// A message naming the path and what to do.
  public var description: String {
    switch self {
    case .inUse(let path): "another callalert daemon is listening on \(path); stop it or pass --socket"
    case .notASocket(let path): "\(path) exists and is not a socket; not replacing it (pass --socket)"
    case .pathTooLong(let path, let limit): "socket path \(path) is longer than \(limit) bytes"
    case .system(let call, let path, let errno): "\(call) on \(path): \(String(cString: strerror(errno)))"
    case .noDaemon(let path): "no callalert daemon listens on \(path); start one with `callalert run`"
    }
  }
}

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
    return fd
  }

  /// Sends one request line and returns the answer line.
  public static func request(_ line: String, path: String) async throws -> String {
    let fd = try connect(path)
    let channel = try DescriptorChannel(taking: FileDescriptor(rawValue: fd), name: path)
    defer { channel.close() }
    try await channel.write(Array((line + "\n").utf8))
    var splitter = LineSplitter()
    for try await chunk in channel.incoming {
      for case .line(let answer, _) in splitter.feed(chunk) { return answer }
    }
    throw ControlSocketError.noDaemon(path: path)
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
