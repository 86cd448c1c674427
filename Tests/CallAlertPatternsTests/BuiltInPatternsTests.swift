import CallAlertPatterns
import CallAlertProtocol
import Testing

@Suite struct BuiltInPatternsTests {
  @Test func namesCoverCadencesAndAndroidVibrations() {
    #expect(
      BuiltInPatterns.names == [
        "US", "UK", "DE", "FR", "JP", "AU", "ES", "IT", "IN", "android_default", "android_simple", "android_pulse",
        "steady_vibration",
      ])
  }

  @Test(arguments: BuiltInPatterns.names)
  func everyBuiltInFitsTheReferenceBoard(name: String) throws {
    let definition = try #require(BuiltInPatterns.named(name))
    #expect(definition.origins.count == definition.pattern.steps.count)
    #expect(definition.validate().isEmpty)
    #expect(BuiltInPatterns.named(name.lowercased())?.pattern == definition.pattern)
  }

  /// A push's `act: 4` asks for `steady_vibration`: before it was built in, the call rang the default ring
  /// on the buzzer instead of vibrating. It is felt, never heard, and stays within the motor guard (65 % on).
  @Test func continuousVibrationIsMotorOnlyAndWithinTheMotorGuard() throws {
    let definition = try #require(BuiltInPatterns.named("steady_vibration"))
    let steps = definition.pattern.steps
    #expect(steps.allSatisfy { $0.buzzerVolume == 0 })
    #expect(steps.contains { $0.motor == 255 })
    let on = steps.filter { $0.motor > 0 }.map { Int($0.durationMs) }.reduce(0, +)
    let all = steps.map { Int($0.durationMs) }.reduce(0, +)
    #expect(on * 100 <= all * 70, "\(on) ms on of \(all)")
    #expect(definition.pattern.repeatCount == Pattern.repeatForever)
  }

  @Test func unknownNamesGiveNothing() {
    #expect(BuiltInPatterns.named("XX") == nil)
  }

  @Test func theBuiltInFileCompilesAndFits() {
    let file = BuiltInPatterns.file
    #expect(file.patterns.map(\.slot) == Array(0..<13))
    #expect(file.validate().isEmpty)
    #expect(file.compileBytes().count < Int(Capabilities.referenceBoard.tableCapacity))
  }
}
