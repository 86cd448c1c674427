import CallAlertRuntime
import CallAlertTransport

/// One transport of a ``BoardClient``: the task that reads it and the one write path to it.
///
/// Bytes go straight to the line when the writer task holds nothing (a descriptor channel writes them at
/// once, or queues them behind what waits), else through the writer task, behind its chunks: the straight
/// way spares a task hop per frame, the writer keeps frames in order on a transport that can only write
/// with a wait. Chunks of an earlier output epoch still waiting in the writer are dropped.
struct BoardLine {
  /// The transport read and written.
  let transport: any ByteTransport
  private let writer: AsyncStream<(epoch: Int, bytes: [UInt8])>.Continuation
  /// Chunks handed to the writer task and not yet written (or dropped) by it.
  private let backlog = WriterBacklog()
  private let reader: Task<Void, Never>

  /// Starts reading `transport` (each chunk to `received`; its end, with why, to `ended`) and its writer.
  init(
    transport: any ByteTransport, epoch: OutputEpoch, received: @escaping @Sendable ([UInt8]) async -> Void,
    ended: @escaping @Sendable (String) async -> Void
  ) {
    self.transport = transport
    let (stream, writer) = AsyncStream.makeStream(of: (epoch: Int, bytes: [UInt8]).self)
    self.writer = writer
    let backlog = self.backlog
    Task(executorPreference: DescriptorEventLoop.shared) {
      for await chunk in stream {
        defer { backlog.taken() }
        guard chunk.epoch == epoch.current else { continue }
        do { try await transport.write(chunk.bytes) } catch { break }
      }
    }
    reader = Task(executorPreference: DescriptorEventLoop.shared) {
      do {
        for try await chunk in transport.incoming { await received(chunk) }
        await ended("the port was closed")
      } catch {
        await ended("\(error)")
      }
    }
  }

  /// Writes `bytes` of output epoch `epoch`, in order behind what was sent before.
  func send(_ bytes: [UInt8], epoch: Int) {
    if backlog.isEmpty, transport.sendWithoutWaiting(bytes) { return }
    backlog.handed()
    writer.yield((epoch, bytes))
  }

  /// Stops reading and writing, and closes the transport.
  func close() {
    reader.cancel()
    writer.finish()
    transport.close()
  }
}
