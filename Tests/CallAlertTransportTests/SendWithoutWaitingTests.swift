import CallAlertTestSupport
import CallAlertTransport
import SystemPackage
import Testing

/// `sendWithoutWaiting`, the way a board client and the virtual board send frames without a task hop: bytes
/// go out now, or queue behind what waits when the kernel's buffer is full, always in the order handed over,
/// mixed with `write`; nothing is lost when the reader catches up, and a closed channel refuses.
@Suite(.timeLimit(.minutes(1))) struct SendWithoutWaitingTests {
  @Test func chunksKeepTheirOrderThroughAFullBufferAndMixedWithWrites() async throws {
    // The reading end is a bare descriptor that nobody reads until every chunk is handed over: a channel
    // reading it on the loop could keep up with the writer, and the buffer would never fill.
    let (sender, peer) = try socketPairChannelAndDescriptor()
    defer {
      sender.close()
      try? peer.close()
    }
    // 2 MB without reading: far more than a socket's buffer, so most of it queues in the channel.
    var expected: [UInt8] = []
    for index in 0..<512 {
      let chunk = [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: 4_096)
      expected += chunk
      #expect(sender.sendWithoutWaiting(chunk))
    }
    #expect(sender.wouldBlockCount > 0, "the buffer filled up: later chunks were queued")
    let tail = Array("the end".utf8)
    expected += tail
    async let written: Void = sender.write(tail)  // goes behind the queued chunks
    let count = expected.count
    let received = try await Task.detached { try readBlocking(peer, count: count, timeout: .seconds(10)) }.value
    try await written
    #expect(received == expected)
  }

  @Test func aClosedChannelRefuses() throws {
    let (sender, receiver) = try socketPairChannels()
    defer { receiver.close() }
    sender.close()
    #expect(!sender.sendWithoutWaiting([1, 2, 3]))
  }

  @Test func aTransportWithoutItRefusesSoItsOwnerWrites() {
    let (a, b) = MemoryTransport.pair()
    defer {
      a.close()
      b.close()
    }
    #expect(!a.sendWithoutWaiting([1]))
  }
}
