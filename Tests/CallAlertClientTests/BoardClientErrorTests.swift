import CallAlertProtocol
import Testing

@testable import CallAlertClient

/// What a refusal says to the person who reads it.
@Suite struct BoardClientErrorTests {
  /// It read "the board refused PLAY: badSlot (detail 9)": a Swift case name and a number to look up.
  @Test func aNAKSaysWhatItMeansWithItsDetail() {
    let slot = BoardClientError.nak(command: .play, Nak(.badSlot, detail: 9)).description
    #expect(slot.hasPrefix("the board refused PLAY: slot 9 holds no pattern"), "\(slot)")
    #expect(!slot.contains("badSlot") && !slot.contains("detail"))
    let versions = BoardClientError.nak(command: .hello, Nak(unsupportedVersions: 2, max: 3)).description
    #expect(versions.contains("protocol versions 2-3"), "\(versions)")
    let unknown = BoardClientError.nak(command: .play, Nak(rawCode: 0x7E, detail: 5)).description
    #expect(unknown.contains("code 0x7e (detail 5)"), "\(unknown)")
  }

  /// Every code has its own words (none falls back to the raw form).
  @Test(arguments: ErrorCode.allCases)
  func everyCodeIsExplained(code: ErrorCode) {
    let reason = BoardClientError.reason(Nak(code, detail: 1))
    #expect(!reason.isEmpty && !reason.contains("\(code)") && !reason.contains("this host does not know"))
  }
}
