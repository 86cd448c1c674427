import CallAlertTransport
import SystemPackage

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Every byte value, then a run of NULs (the protocol's frame delimiter), then every value backwards.
let everyByteValue: [UInt8] = Array(0...255) + [0, 0, 0] + Array((0...255).reversed())

/// How a stream ended.
enum StreamEnd: Equatable {
  case finished
  case failed(TransportError.Code, port: String)
  case otherError(String)
}

extension AsyncThrowingStream.Iterator where Element == [UInt8], Failure == any Error {
  /// Reads chunks until at least `count` bytes arrived (or the stream ended).
  mutating func collect(_ count: Int) async throws -> [UInt8] {
    var bytes: [UInt8] = []
    while bytes.count < count, let chunk = try await next() {
      bytes += chunk
    }
    return bytes
  }

  /// Reads to the end of the stream; returns the bytes still delivered and how it ended.
  mutating func drain() async -> (bytes: [UInt8], end: StreamEnd) {
    var bytes: [UInt8] = []
    do {
      while let chunk = try await next() {
        bytes += chunk
      }
      return (bytes, .finished)
    } catch let error as TransportError {
      return (bytes, .failed(error.code, port: error.port))
    } catch {
      return (bytes, .otherError("\(error)"))
    }
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
  names: (String, String) = ("socket-a", "socket-b")
) throws -> (DescriptorChannel, DescriptorChannel) {
  // write(2) to a socket whose peer closed raises SIGPIPE, which would end the test process; the daemon
  // ignores it the same way, and the channel then sees EPIPE, a hang-up.
  signal(SIGPIPE, SIG_IGN)
  var descriptors: [CInt] = [-1, -1]
  guard socketpair(AF_UNIX, socketStreamType, 0, &descriptors) == 0 else {
    throw TransportError.system("socketpair", port: names.0, errno: Errno(rawValue: errno))
  }
  let first = try DescriptorChannel(taking: FileDescriptor(rawValue: descriptors[0]), name: names.0)
  do {
    return (first, try DescriptorChannel(taking: FileDescriptor(rawValue: descriptors[1]), name: names.1))
  } catch {
    first.close()
    throw error
  }
}

#if canImport(Glibc)
  private let socketStreamType = Int32(SOCK_STREAM.rawValue)
#else
  private let socketStreamType = SOCK_STREAM
#endif
