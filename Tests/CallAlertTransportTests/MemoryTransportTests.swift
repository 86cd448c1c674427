import CallAlertTestSupport
import CallAlertTransport
import Testing

@Suite("In-memory transport and the shared ByteTransport semantics", .timeLimit(.minutes(1)))
struct MemoryTransportTests {
  @Test("bytes cross both ways in the chunks they were written")
  func bytesFlow() async throws {
    let (a, b) = MemoryTransport.pair(names: ("host", "board"))
    defer {
      a.close()
      b.close()
    }
    try await a.write([1, 2])
    try await a.write([])  // nothing to deliver: no empty chunk either
    try await a.write([0, 3])
    try await b.write(everyByteValue)
    var atB = b.incoming.makeAsyncIterator()
    var atA = a.incoming.makeAsyncIterator()
    #expect(try await atB.next() == [1, 2])
    #expect(try await atB.next() == [0, 3])
    #expect(try await atA.next() == everyByteValue)
  }

  @Test("closing one end ends its stream normally and the other's with .disconnected after the data")
  func closeSemantics() async throws {
    let (a, b) = MemoryTransport.pair(names: ("host", "board"))
    try await a.write([9])
    a.close()
    a.close()
    var atA = a.incoming.makeAsyncIterator()
    var atB = b.incoming.makeAsyncIterator()
    #expect(await atA.drain().end == .finished)
    let (bytes, end) = await atB.drain()
    #expect(bytes == [9])
    #expect(end == .failed(.disconnected, port: "board"))
    #expect(await transportError { try await a.write([1]) }?.code == .closed)
    #expect(await transportError { try await b.write([1]) }?.code == .disconnected)
    b.close()
  }

  enum Kind: String, CaseIterable, CustomTestStringConvertible {
    case memory, socketPair
    var testDescription: String { rawValue }
  }

  /// Two connected transports as the link layer sees them: existentials, whatever is underneath.
  static func connectedPair(_ kind: Kind) throws -> (any ByteTransport, any ByteTransport) {
    switch kind {
    case .memory:
      return MemoryTransport.pair()
    case .socketPair:
      return try socketPairChannels()
    }
  }

  @Test("every transport keeps the same semantics", arguments: Kind.allCases)
  func sharedSemantics(kind: Kind) async throws {
    let (near, far) = try Self.connectedPair(kind)
    defer { far.close() }
    var atFar = far.incoming.makeAsyncIterator()
    var atNear = near.incoming.makeAsyncIterator()
    try await near.write(everyByteValue)
    #expect(try await atFar.collect(everyByteValue.count) == everyByteValue)
    try await far.write([0, 1, 0])
    #expect(try await atNear.collect(3) == [0, 1, 0])

    near.close()
    near.close()
    #expect(await atNear.drain().end == .finished)
    let end = await atFar.drain().end
    guard case .failed(.disconnected, _) = end else {
      Issue.record("the far end should see a disconnect, saw \(end)")
      return
    }
    #expect(await transportError { try await near.write([1]) }?.code == .closed)
    #expect(await transportError { try await far.write([1]) }?.code == .disconnected)
  }
}
