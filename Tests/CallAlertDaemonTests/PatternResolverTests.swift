import CallAlertEngine
import CallAlertProtocol
import CallAlertValues
import Testing

@testable import CallAlertDaemon

/// What a PLAY carries for a named pattern.
@Suite struct PatternResolverTests {
  /// A push's `act: 4` hints `steady_vibration`. It was no pattern at all, so the call rang the default
  /// ring on the buzzer ("no pattern named ..."), the opposite of what the alert asks for.
  @Test func thePushPresetsContinuousVibrationIsABuiltInThatOnlyVibrates() throws {
    let resolution = PatternResolver().resolve(.named(PushPayload.continuousVibrationHint), options: [])
    #expect(resolution.fallback == nil, "\(String(describing: resolution.fallback))")
    guard case .inline(let pattern) = resolution.source else {
      Issue.record("expected the built-in pattern inline, got \(resolution.source)")
      return
    }
    #expect(pattern.steps.allSatisfy { !$0.isAudible })
    #expect(pattern.steps.contains { $0.motor > 0 })
  }
}
