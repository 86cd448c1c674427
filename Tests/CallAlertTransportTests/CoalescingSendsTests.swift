import CallAlertTransport
import SystemPackage
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A loop that coalesces sends (the bench's virtual boards): bytes handed over on its thread go out when its
/// turn ends, together and in order, and a write in the same turn goes behind them; off its thread, and on a
/// loop that does not coalesce, they go out at once.
@Suite(.timeLimit(.minutes(1))) struct CoalescingSendsTests {
  /// One loop for the suite: a loop's thread lives as long as the process.
  static let loop = DescriptorEventLoop(name: "test coalesce", coalescingSends: true)

  /// A channel on `loop` over one end of a socket pair, and the other end's raw descriptor.
  struct Pair {
    let channel: DescriptorChannel
    let peer: CInt

    init(loop: DescriptorEventLoop) throws {
      var descriptors: [CInt] = [-1, -1]
      #if canImport(Glibc)
        let streamType = Int32(SOCK_STREAM.rawValue)
      #else
        let streamType = SOCK_STREAM
      #endif
      guard socketpair(AF_UNIX, streamType, 0, &descriptors) == 0 else {
        throw TransportError.system("socketpair", port: "test", errno: Errno(rawValue: errno))
      }
      channel = try DescriptorChannel(taking: FileDescriptor(rawValue: descriptors[0]), name: "coalescing", loop: loop)
      peer = descriptors[1]
    }

    /// Whether a byte waits on the peer's side now (without taking it).
    var peerHasBytes: Bool {
      var byte: UInt8 = 0
      return recv(peer, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK)) == 1
    }

    /// Reads `count` bytes on the peer's side, waiting up to 5 s for each read; nil on a timeout.
    func read(_ count: Int) -> [UInt8]? {
      var bytes: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 64)
      while bytes.count < count {
        var ready = pollfd(fd: peer, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, 5_000) == 1 else { return nil }
        let got = recv(peer, &buffer, buffer.count, 0)
        guard got > 0 else { return nil }
        bytes += buffer[..<got]
      }
      return bytes
    }

    func close() {
      channel.close()
      try? FileDescriptor(rawValue: peer).close()
    }
  }

  @Test func sendsInOneTurnGoOutWhenItEndsInOneWrite() async throws {
    let pair = try Pair(loop: Self.loop)
    defer { pair.close() }
    let arrivedDuringTheTurn = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
      Self.loop.execute {
        _ = pair.channel.sendWithoutWaiting([1, 2])
        _ = pair.channel.sendWithoutWaiting([3])
        continuation.resume(returning: pair.peerHasBytes)
      }
    }
    #expect(!arrivedDuringTheTurn, "nothing goes out before the turn ends")
    #expect(pair.read(3) == [1, 2, 3])
    #expect(!pair.peerHasBytes, "nothing more")
  }

  @Test func aWriteInTheSameTurnGoesBehindWhatTheTurnGathered() async throws {
    let pair = try Pair(loop: Self.loop)
    defer { pair.close() }
    let channel = pair.channel
    try await Task(executorPreference: Self.loop) {
      _ = channel.sendWithoutWaiting([1])
      try await channel.write([2])  // takes [1] along, in front of its own bytes
      _ = channel.sendWithoutWaiting([3])
    }.value
    #expect(pair.read(3) == [1, 2, 3])
  }

  @Test func offTheLoopsThreadASendGoesOutAtOnce() throws {
    let pair = try Pair(loop: Self.loop)
    defer { pair.close() }
    #expect(pair.channel.sendWithoutWaiting([7]))
    #expect(pair.peerHasBytes, "written in the caller's thread, not at the end of some turn")
    #expect(pair.read(1) == [7])
  }

  @Test func onALoopThatDoesNotCoalesceASendGoesOutAtOnce() async throws {
    let pair = try Pair(loop: .shared)
    defer { pair.close() }
    let arrivedDuringTheTurn = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
      DescriptorEventLoop.shared.execute {
        _ = pair.channel.sendWithoutWaiting([4])
        continuation.resume(returning: pair.peerHasBytes)
      }
    }
    #expect(arrivedDuringTheTurn)
    #expect(pair.read(1) == [4])
  }

  @Test func aClosedChannelRefusesOnTheLoopToo() async throws {
    let pair = try Pair(loop: Self.loop)
    defer { pair.close() }
    pair.channel.close()
    let taken = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
      Self.loop.execute { continuation.resume(returning: pair.channel.sendWithoutWaiting([1])) }
    }
    #expect(!taken)
  }
}
