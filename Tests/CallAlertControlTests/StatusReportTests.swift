import CallAlertControl
import CallAlertEngine
import Testing

/// The status as the control socket, the HTTP API and MQTT report it.
@Suite struct StatusReportTests {
  private func report(configured: DoNotDisturbMode, override: DoNotDisturbMode?) -> StatusReport {
    let snapshot = EngineSnapshot(
      activeCalls: [], missedCalls: [],
      doNotDisturb: .init(
        configuredMode: configured, override: override, isActive: (override ?? configured) == .on, silent: false,
        silentOverride: nil),
      boards: [], nextDeadlineMs: nil)
    return StatusReport(snapshot, boardInfos: [:])
  }

  /// `PUT /v1/dnd {"mode":"on"}` read back `"mode":"off","override":"on"`: `mode` was the config's. It is the
  /// mode in force now; the config's is `configured`.
  @Test func modeIsTheModeInForceAndConfiguredIsTheConfigs() {
    let switched = report(configured: .off, override: .on).doNotDisturb
    #expect(switched.mode == "on")
    #expect(switched.configured == "off")
    #expect(switched.override == "on")
    let plain = report(configured: .scheduled, override: nil).doNotDisturb
    #expect(plain.mode == "scheduled")
    #expect(plain.configured == "scheduled")
    #expect(plain.override == nil)
  }
}
