import CallAlertValues
import Testing

@Test func outcomesHaveStableNames() {
  #expect(
    CallOutcome.allCases.map(\.rawValue) == [
      "ringing", "hung-up", "answered", "acknowledged", "missed", "suppressed", "refused",
    ])
}
