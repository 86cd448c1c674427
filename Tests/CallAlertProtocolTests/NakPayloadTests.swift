import CallAlertProtocol
import Testing

/// NAK payloads are read once, through the codec: the detail of a gap NAK, and the version range an
/// UNSUPPORTED_VERSION NAK carries (the board writes it and the host reads it with the same pair of calls).
@Suite struct NakPayloadTests {
  @Test func aPayloadDecodesToItsCodeAndDetail() {
    #expect(Nak(payload: [0x06, 0x34, 0x12, 0x00, 0x00]) == Nak(rawCode: 0x06, detail: 0x1234))
    #expect(Nak(payload: [0x06, 0x34]) == nil)  // short
    #expect(Nak(payload: [0x06, 0, 0, 0, 0, 0]) == nil)  // trailing byte
  }

  @Test func theVersionRangeRoundTrips() {
    let nak = Nak(unsupportedVersions: 2, max: 5)
    #expect(nak.code == .unsupportedVersion)
    #expect(nak.detail == 0x0502)
    #expect(nak.supportedVersions?.min == 2)
    #expect(nak.supportedVersions?.max == 5)
    #expect(Nak(.badSlot, detail: 0x0502).supportedVersions == nil)
  }
}
