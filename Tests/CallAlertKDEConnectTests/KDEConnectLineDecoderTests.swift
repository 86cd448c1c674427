import NIOCore
import NIOEmbedded
import Testing

@testable import CallAlertKDEConnect

/// The link's line decoder: whole lines however the bytes arrive (one at a time, all at once, in odd chunks),
/// never a partial one, and a line over the limit refused.
@Suite struct KDEConnectLineDecoderTests {
  static let text = Array("{\"id\":1,\"type\":\"kdeconnect.ping\"}\n{\"id\":2}\r\n{\"partial".utf8)

  @Test(arguments: [1, 5, text.count])
  func linesComeWholeHoweverTheBytesArrive(chunk: Int) throws {
    let channel = EmbeddedChannel(handler: ByteToMessageHandler(KDEConnectLineDecoder(limit: 64)))
    var start = 0
    while start < Self.text.count {
      let end = min(start + chunk, Self.text.count)
      try channel.writeInbound(ByteBuffer(bytes: Self.text[start..<end]))
      start = end
    }
    #expect(try channel.readInbound(as: [UInt8].self) == Array("{\"id\":1,\"type\":\"kdeconnect.ping\"}".utf8))
    #expect(try channel.readInbound(as: [UInt8].self) == Array("{\"id\":2}".utf8))
    #expect(try channel.readInbound(as: [UInt8].self) == nil)  // the partial line waits
  }

  @Test func aLineOverTheLimitIsRefused() {
    let channel = EmbeddedChannel(handler: ByteToMessageHandler(KDEConnectLineDecoder(limit: 16)))
    #expect(throws: KDEConnectLineDecoder.LineTooLong.self) {
      try channel.writeInbound(ByteBuffer(bytes: Array(repeating: UInt8(ascii: "x"), count: 40)))
    }
  }
}
