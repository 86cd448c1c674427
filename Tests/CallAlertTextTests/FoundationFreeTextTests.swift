import CallAlertText
import Foundation
import Testing

/// The text helpers that stand in for full Foundation give what Foundation gave, byte for byte: each case is
/// checked against Foundation itself (the tests may link it; the daemon's modules need not).
@Suite struct FoundationFreeTextTests {
  static let padded = [
    "", " ", "\t", "a", " a ", "\ta b\t", "\u{00A0}x\u{3000}", "\u{2009}thin\u{200A}", "\n a \n", "\r\nx\r\n",
    "\u{85}x\u{2028}", "\u{2029} y", "\u{200B}zero width\u{200B}", " \u{1F600} ", "e\u{301} ", " \u{301}x",
    "\u{0B}\u{0C}v", "  \t  ", "\u{180E}m\u{180E}", "\u{FEFF}bom\u{FEFF}", "\u{1680}o\u{202F}\u{205F}",
  ]

  @Test(arguments: padded)
  func whitespaceIsTrimmedAsFoundationTrimsIt(text: String) {
    #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces))
    #expect(Substring(text).trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces))
    #expect(text.trimmingWhitespaceAndNewlines() == text.trimmingCharacters(in: .whitespacesAndNewlines))
  }

  @Test func printfFormatsAsStringFormat() {
    #expect(PrintfText.format("%8.3f s", 1.5) == String(format: "%8.3f s", 1.5))
    #expect(PrintfText.format("%9.3f s", 12_345.678) == String(format: "%9.3f s", 12_345.678))
    #expect(PrintfText.format(", rang %.1f s", 0.25) == String(format: ", rang %.1f s", 0.25))
    #expect(PrintfText.format(", rang %.1f s", 0.35) == String(format: ", rang %.1f s", 0.35))
    #expect(PrintfText.format("%02ld:%02ld", 7, 5) == String(format: "%02ld:%02ld", 7, 5))
    #expect(PrintfText.format("%04ld-%02ld-%02ld ", 2026, 12, 24) == String(format: "%04ld-%02ld-%02ld ", 2026, 12, 24))
    #expect(PrintfText.format("%02d:%02d", 23, 59) == "23:59")
    #expect(PrintfText.format("  %04x:%04x", 0x2E8A, 0x000A) == "  2e8a:000a")
    #expect(PrintfText.format("buzzer %5d Hz vol %3d", 2_700, 200) == "buzzer  2700 Hz vol 200")
    #expect(PrintfText.format("%3d", -7) == String(format: "%3d", -7))
    // Longer than the first buffer: the second pass is sized by vsnprintf.
    #expect(PrintfText.format("%200d|", 1) == String(repeating: " ", count: 199) + "1|")
  }

  @Test(arguments: [
    0, 1, 250, 999, 1_000, 1_500, 4_000, 30_000, 59_999, 60_000, 61_500, 125_000, 3_600_000, 3_723_500,
    1_234_567_890,
  ])
  func retryDurationsAsFoundationFormattedThem(milliseconds: Int64) {
    let duration = Duration.milliseconds(milliseconds)
    #expect(
      DurationText.secondsAndMilliseconds(duration)
        == duration.formatted(.units(allowed: [.seconds, .milliseconds], width: .narrow)))
  }

  @Test func retryDurationsRoundToTheNearestMillisecond() {
    #expect(DurationText.secondsAndMilliseconds(.microseconds(1_499)) == "1ms")
    #expect(DurationText.secondsAndMilliseconds(.microseconds(1_501)) == "2ms")
    #expect(DurationText.secondsAndMilliseconds(.microseconds(2_500)) == "2ms")
    #expect(DurationText.secondsAndMilliseconds(.microseconds(3_500)) == "4ms")
    #expect(DurationText.secondsAndMilliseconds(.milliseconds(-5)) == "0ms")
  }

  @Test(arguments: [
    "abc", "a%20b", "%41%62%63", "caf%C3%A9", "call%2Fone", "a+b", "%", "%4", "%zz", "%4g", "%FF", "%C3",
    "100%25", "", "%e2%82%ac",
  ])
  func percentDecodingAsFoundation(text: String) {
    #expect(PercentDecoding.decoded(text) == text.removingPercentEncoding)
  }
}
