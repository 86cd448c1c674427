// What the transport and serial tests share about byte streams: a test pattern, and reading a transport's
// incoming chunks to a count or to the end.

/// Every byte value, then a run of NULs (the protocol's frame delimiter), then every value backwards.
public let everyByteValue: [UInt8] = Array(0...255) + [0, 0, 0] + Array((0...255).reversed())

/// How a byte stream ended: finished, failed with an error `failure` recognises (its code and port), or
/// failed with another error.
public enum StreamEnd<Code: Equatable & Sendable>: Equatable, Sendable {
  case finished
  case failed(Code, port: String)
  case otherError(String)
}

extension AsyncThrowingStream.Iterator where Element == [UInt8], Failure == any Error {
  /// Reads chunks until at least `count` bytes arrived (or the stream ended).
  public mutating func collect(_ count: Int) async throws -> [UInt8] {
    var bytes: [UInt8] = []
    while bytes.count < count, let chunk = try await next() {
      bytes += chunk
    }
    return bytes
  }

  /// Reads to the end of the stream; returns the bytes still delivered and how it ended, an error being
  /// `.failed` when `failure` gives its code and port.
  public mutating func drain<Code>(
    failure: (any Error) -> (code: Code, port: String)?
  ) async -> (bytes: [UInt8], end: StreamEnd<Code>) {
    var bytes: [UInt8] = []
    do {
      while let chunk = try await next() {
        bytes += chunk
      }
      return (bytes, .finished)
    } catch {
      guard let failed = failure(error) else { return (bytes, .otherError("\(error)")) }
      return (bytes, .failed(failed.code, port: failed.port))
    }
  }
}
