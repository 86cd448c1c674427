import CallAlertRuntime

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Standard input as lines, read on a thread of its own with blocking reads: no CPU while idle, and the
/// descriptor is never switched to non-blocking mode (it may be a terminal the shell shares).
enum StandardInputReader {
  /// Lines of standard input until end of file.
  static func lines() -> AsyncStream<LineSplitter.Line> {
    let (stream, continuation) = AsyncStream.makeStream(of: LineSplitter.Line.self)
    DetachedThread.start(name: "callalert stdin") {
      var splitter = LineSplitter()
      var buffer = [UInt8](repeating: 0, count: 16 * 1024)
      while true {
        let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        if count <= 0 { break }
        for line in splitter.feed(buffer[0..<count]) { continuation.yield(line) }
      }
      for line in splitter.finish() { continuation.yield(line) }
      continuation.finish()
    }
    return stream
  }
}
