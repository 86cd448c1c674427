import CallAlertTestSupport
import CallAlertTransport
import SystemPackage

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// How a stream ended.
typealias StreamEnd = CallAlertTestSupport.StreamEnd<TransportError.Code>

extension AsyncThrowingStream.Iterator where Element == [UInt8], Failure == any Error {
  /// Reads to the end of the stream; a ``TransportError`` is a failure with its code.
  mutating func drain() async -> (bytes: [UInt8], end: StreamEnd) {
    await drain { error in (error as? TransportError).map { ($0.code, $0.port) } }
  }
}

/// Runs `body` and returns the ``TransportError`` it threw, or nil.
func transportError(_ body: () async throws -> Void) async -> TransportError? {
  do {
    try await body()
    return nil
  } catch {
    return error as? TransportError
  }
}

/// Two descriptor channels on the ends of a Unix stream socket pair.
func socketPairChannels(
  names: (String, String) = ("socket-a", "socket-b"), loop: DescriptorEventLoop = .shared
) throws -> (DescriptorChannel, DescriptorChannel) {
  // write(2) to a socket whose peer closed fails with EPIPE, a hang-up: the test process ignores SIGPIPE from
  // its start (CTestProcess), as the daemon does.
  var descriptors: [CInt] = [-1, -1]
  guard socketpair(AF_UNIX, socketStreamType, 0, &descriptors) == 0 else {
    throw TransportError.system("socketpair", port: names.0, errno: Errno(rawValue: errno))
  }
  let first = try DescriptorChannel(taking: FileDescriptor(rawValue: descriptors[0]), name: names.0, loop: loop)
  do {
    return (first, try DescriptorChannel(taking: FileDescriptor(rawValue: descriptors[1]), name: names.1, loop: loop))
  } catch {
    first.close()
    throw error
  }
}

/// A descriptor channel on one end of a Unix stream socket pair, and the other end as a bare descriptor.
func socketPairChannelAndDescriptor(name: String = "socket-a") throws -> (DescriptorChannel, FileDescriptor) {
  var descriptors: [CInt] = [-1, -1]
  guard socketpair(AF_UNIX, socketStreamType, 0, &descriptors) == 0 else {
    throw TransportError.system("socketpair", port: name, errno: Errno(rawValue: errno))
  }
  let peer = FileDescriptor(rawValue: descriptors[1])
  do {
    return (try DescriptorChannel(taking: FileDescriptor(rawValue: descriptors[0]), name: name), peer)
  } catch {
    try? peer.close()
    throw error
  }
}

/// Reads `count` bytes from a blocking descriptor, waiting at most `timeout` for each read (poll(2)); throws
/// a timeout as `ETIMEDOUT`, and an early end as `EPIPE`. For a thread of its own, not the task pool.
func readBlocking(_ descriptor: FileDescriptor, count: Int, timeout: Duration) throws -> [UInt8] {
  var bytes: [UInt8] = []
  bytes.reserveCapacity(count)
  var buffer = [UInt8](repeating: 0, count: 64 * 1024)
  let milliseconds = Int32(timeout.components.seconds * 1_000)
  while bytes.count < count {
    var ready = pollfd(fd: descriptor.rawValue, events: Int16(POLLIN), revents: 0)
    guard poll(&ready, 1, milliseconds) == 1 else { throw Errno.timedOut }
    let got = try buffer.withUnsafeMutableBytes { try descriptor.read(into: $0) }
    guard got > 0 else { throw Errno.brokenPipe }
    bytes += buffer[..<got]
  }
  return bytes
}

#if canImport(Glibc)
  private let socketStreamType = Int32(SOCK_STREAM.rawValue)
#else
  private let socketStreamType = SOCK_STREAM
#endif
