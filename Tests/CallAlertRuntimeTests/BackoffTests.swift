import CallAlertRuntime
import Testing

@Suite struct BackoffTests {
  @Test func doublesUpToTheMaximumAndStartsOver() {
    var backoff = Backoff(initial: .milliseconds(200), maximum: .seconds(1))
    let pauses = (0..<5).map { _ in backoff.next() }
    #expect(pauses == [.milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1)])
    backoff.reset()
    #expect(backoff.next() == .milliseconds(200))
  }

  @Test func aMaximumBelowTheFirstPauseIsTheFirstPause() {
    var backoff = Backoff(initial: .seconds(2), maximum: .seconds(1))
    #expect(backoff.next() == .seconds(2))
    #expect(backoff.next() == .seconds(2))
  }
}
