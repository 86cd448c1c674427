import CallAlertTestSupport
import CallAlertText
import CallAlertValues
import Testing

/// `history.keep_days`: how long calls stay in the history (default 90 days).
@Suite struct HistoryConfigTests {
  @Test func keepDaysDefaultsToNinetyAndIsRead() throws {
    #expect(testDefaults.historyKeepDays == 90)
    #expect(try parseConfig("history:\n  path: /var/h.sqlite\n").historyKeepDays == 90)
    #expect(try parseConfig("history:\n  keep_days: 30\n").historyKeepDays == 30)
  }

  @Test(arguments: ["0", "-3", "36501", "ninety", "1.5"])
  func aKeepDaysThatIsNotAWholeNumberOfDaysIsAnErrorWithItsPlace(_ value: String) {
    let errors = configErrors("history:\n  keep_days: \(value)\n")
    #expect(errors.count == 1)
    #expect(errors.first?.location == "/etc/callalert/config.yaml:2:14")
    #expect(errors.first?.field == "history.keep_days")
    #expect(errors.first?.message == "'\(value)' is not a whole number from 1 to 36500")
  }

  @Test func theDocumentedExampleKeepsThirtyDays() throws {
    let example = try #require(
      codeBlocks(try documentText("CONFIG.md"), language: "yaml").first { $0.heading == "The full example" })
    #expect(try parseBesideItsSecrets(example.text).0.historyKeepDays == 30)
  }
}
