import CallAlertDaemon
import CallAlertTransport
import Foundation
import Logging
import NIOCore
import NIOPosix

#if canImport(Glibc)
  import Glibc
#endif
// clock_gettime's timespec reaches this module through Dispatch's C module as well; with member import
// visibility, its members are found only where that module is imported.
#if canImport(CDispatch)
  import CDispatch
#endif

/// The control socket two ways, side by side in one process: ours (`ControlSocketServer` on the epoll loop,
/// `DescriptorEventLoop`) and SwiftNIO's (`ServerBootstrap` on a Unix domain socket, one NIO event loop). Each
/// takes the same JSON line and answers it after a hop to an actor of our loop, as the daemon's handler hops
/// to `AlertService`; the client connects, sends one line and reads the answer, as `callalert notify` does,
/// blocking on a thread of its own. Series alternate between the two, so that what else the machine does
/// weighs on both alike.
enum ControlSocketNIOBench {
  /// One series of requests on one implementation.
  struct Series: Sendable {
    /// `epoll` (ours) or `nio`.
    let implementation: String
    /// From connect(2) to the answer's last byte read, ms.
    let latency: Summary
    /// CPU time of the process per request, less the client thread's own, ms: the server's work.
    let serverCPUMsPerRequest: Double
    /// Requests that got no answer.
    let failures: Int

    var json: JSONValue {
      .object([
        ("implementation", .string(implementation)), ("latency", latency.json(unit: "ms")),
        ("server_cpu_ms_per_request", .number(serverCPUMsPerRequest)), ("failures", .int(failures)),
      ])
    }
  }

  /// The engine's stand-in: an actor of our loop, as `AlertService` is; every answer passes through it.
  actor Engine {
    nonisolated var unownedExecutor: UnownedSerialExecutor { DescriptorEventLoop.shared.asUnownedSerialExecutor() }
    private var answered = 0

    func answer(_ line: [UInt8]) -> String {
      answered += 1
      return #"{"ok":true,"result":"ringing","id":"c\#(answered)","bytes":\#(line.count)}"#
    }
  }

  /// `series` series of `requests` requests on each implementation, alternating; nil when a server could not
  /// be started (the reason is printed).
  static func run(requests: Int, series: Int) async -> [Series]? {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("callalert-nio-\(getpid())").path
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let engine = Engine()
    let ours = folder + "/epoll.sock"
    let theirs = folder + "/nio.sock"

    let server: ControlSocketServer
    do {
      server = try ControlSocketServer(path: ours, logger: Logger(label: "bench"))
    } catch {
      progress("control socket: \(error)")
      return nil
    }
    let serving = Task(executorPreference: DescriptorEventLoop.shared) {
      await server.run(clock: ContinuousClock()) { line, _, _ in await engine.answer(line) }
    }
    defer { serving.cancel() }

    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let channel: any Channel
    do {
      channel = try await ServerBootstrap(group: group)
        .childChannelInitializer { channel in
          channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineDecoder()))
            try channel.pipeline.syncOperations.addHandler(AnswerHandler(engine: engine))
          }
        }
        .bind(unixDomainSocketPath: theirs, cleanupExistingSocketFile: true).get()
    } catch {
      progress("NIO server: \(error)")
      try? await group.shutdownGracefully()
      return nil
    }

    var results: [Series] = []
    for _ in 0..<series {
      for (name, path) in [("epoll", ours), ("nio", theirs)] {
        results.append(await onThread { measure(name, path: path, requests: requests) })
      }
    }
    try? await channel.close()
    try? await group.shutdownGracefully()
    return results
  }

  /// One series on the client's own thread: each request on a fresh connection, timed from before connect(2)
  /// to its answer.
  private static func measure(_ name: String, path: String, requests: Int) -> Series {
    let clock = ContinuousClock()
    var samples: [Double] = []
    var failures = 0
    let processBefore = processCPU()
    let threadBefore = threadCPU()
    for index in 0..<requests {
      let start = clock.now
      let line = #"{"type":"call","id":"b\#(index)","caller":"+14155550101"}"#
      if (try? ControlSocketClient.requestBlocking(line, path: path)) != nil {
        samples.append(start.duration(to: clock.now).milliseconds)
      } else {
        failures += 1
      }
    }
    let server = (processCPU() - processBefore) - (threadCPU() - threadBefore)
    return Series(
      implementation: name, latency: Summary(samples),
      serverCPUMsPerRequest: server.milliseconds / Double(max(1, requests)), failures: failures)
  }

  /// User and system CPU time of the whole process.
  private static func processCPU() -> Duration {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let micros =
      Int64(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000
      + Int64(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
    return .microseconds(micros)
  }

  /// CPU time of the calling thread.
  private static func threadCPU() -> Duration {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return .seconds(Int64(time.tv_sec)) + .nanoseconds(Int64(time.tv_nsec))
  }

  /// Whole lines, the newline dropped; a partial line waits for the rest.
  private struct LineDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
      guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else { return .needMoreData }
      let length = newline - buffer.readerIndex
      let line = buffer.readSlice(length: length)!
      buffer.moveReaderIndex(forwardBy: 1)
      context.fireChannelRead(Self.wrapInboundOut(line))
      return .continue
    }
  }

  /// Answers each line after the hop to the engine on our loop, and back to NIO's loop for the write.
  private final class AnswerHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private let engine: Engine

    init(engine: Engine) { self.engine = engine }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      let line = Array(Self.unwrapInboundIn(data).readableBytesView)
      let promise = context.eventLoop.makePromise(of: String.self)
      let engine = engine
      // Straight to our loop, where the engine lives: no hop through the concurrency pool on the way.
      Task(executorPreference: DescriptorEventLoop.shared) { promise.succeed(await engine.answer(line)) }
      let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
      promise.futureResult.whenSuccess { answer in
        let context = bound.value
        context.writeAndFlush(Self.wrapOutboundOut(ByteBuffer(string: answer + "\n")), promise: nil)
      }
    }
  }
}
