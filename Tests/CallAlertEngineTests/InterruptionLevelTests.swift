import CallAlertEngine
import Testing

@Test func levelsOrderByUrgency() {
  #expect(InterruptionLevel.allCases.sorted() == [.passive, .active, .timeSensitive, .critical])
  #expect(InterruptionLevel(rawValue: "time-sensitive") == .timeSensitive)
}
