@preconcurrency import Dispatch

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The daemon's signals other than SIGINT/SIGTERM (those stop it gracefully, through the service group).
enum SignalHandling {
  /// Ignores SIGPIPE for the whole process: a reader of standard output or a control client that goes away
  /// must cost a failed write (EPIPE, handled where it happens), never the daemon.
  static func ignoreBrokenPipes() {
    signal(SIGPIPE, SIG_IGN)
  }

  /// SIGHUP as a stream, one element per signal, from the moment this returns: the default action (death)
  /// is replaced at once, so a SIGHUP that comes before anyone reads the stream is kept, not fatal.
  static func hangups() -> AsyncStream<Void> {
    let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    signal(SIGHUP, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
    source.setEventHandler { continuation.yield() }
    source.resume()
    continuation.onTermination = { _ in source.cancel() }
    return stream
  }
}
