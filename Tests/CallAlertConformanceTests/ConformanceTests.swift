import CallAlertText
import Testing

// One conformance suite, run against both boards: every check in ``ConformanceChecks`` takes the board kind.
// Each kind has its own suite so that the QEMU one can be skipped, visibly, where QEMU or the firmware
// image is missing (`make test` builds the image first when qemu-system-arm and ld.lld are present).
// Serialized, both kinds included: each check boots its own board, and boards running side by side would
// disturb each other's timing on a small machine.
@Suite("Conformance", .serialized)
struct ConformanceTests {}

/// Protocol/vectors/link.json on the board core in virtual time: deterministic, to the millisecond, no pseudo-
/// terminal; the same scenarios run in real time on both boards below.
@Suite("link.json on the virtual board in virtual time")
struct LinkScenariosInVirtualTime {
  /// A link.json that does not read leaves the scenario tests below without arguments (skipped, not failed):
  /// this test fails instead, naming the step.
  @Test func theScenarioFileReads() throws {
    #expect(try !LinkScenarios.load().isEmpty)
  }

  /// A host that sends its PING only once BOOT has stalled (600 ms after the HELLO's answer) cannot show that
  /// a command leaves events in flight alone: the premise step says so, where the count would blame the board
  /// (a correct board resends at that PING, ten BOOTs in all).
  @Test func aLateHostBreaksThePremiseInsteadOfFailingTheBoard() async throws {
    let original = try #require(LinkScenarios.scenario("command_acted_on_leaves_events_in_flight_alone"))
    var steps = original.steps
    guard case .await = steps[2] else {
      Issue.record("step 2 is no longer the await before the PING")
      return
    }
    steps[2] = .wait(ms: 600)
    let late = LinkScenarios.Scenario(name: original.name, spec: original.spec, acknowledgesEvents: false, steps: steps)
    let verdict = try await LinkScenarios.play(late, on: VirtualTimeLine(acknowledgesEvents: false), label: "late")
    guard case .premiseFailed(let why) = verdict else {
      Issue.record("expected the premise to fail, got \(verdict)")
      return
    }
    #expect(why.contains("between steps 1 and 4"))
  }

  /// Steps that count from another step's frame must name an `expect` step before them.
  @Test func aCountFromAStepThatIsNoExpectIsAFormatError() throws {
    let steps = try #require(
      try JSONParser.parse(
        Array(#"[{"wait":{"ms":1}},{"await":{"type":"BOOT","flags_byte":0},"count":1,"counted_from_step":0}]"#.utf8)
      ).elements)
    let step = try LinkScenarios.parse(steps[1])
    #expect(throws: LinkScenarios.FormatError.self) { try LinkScenarios.checkReferences(of: step, at: 1, in: steps) }
    #expect(throws: LinkScenarios.FormatError.self) { try LinkScenarios.checkReferences(of: step, at: 0, in: steps) }
  }

  @Test(arguments: LinkScenarios.all.map(\.name)) func scenario(_ name: String) async throws {
    let scenario = try #require(LinkScenarios.scenario(name))
    let line = VirtualTimeLine(acknowledgesEvents: scenario.acknowledgesEvents)
    try await LinkScenarios.run(scenario, on: line, label: "virtual time: link.json/\(name)")
  }
}

extension ConformanceTests {
  @Suite("virtual board")
  struct VirtualBoard {
    @Test("handshake: INFO fields, GET_INFO") func handshake() async throws {
      try await ConformanceChecks.handshake(.virtual)
    }
    @Test("PING up to the largest payload") func ping() async throws { try await ConformanceChecks.ping(.virtual) }
    @Test("GET_STATUS when idle") func idleStatus() async throws { try await ConformanceChecks.idleStatus(.virtual) }
    @Test("PLAY inline, GET_STATUS, STOP, supersede, mute") func play() async throws {
      try await ConformanceChecks.playStatusStop(.virtual)
    }
    @Test("refusals: NAK codes and details") func refusals() async throws {
      try await ConformanceChecks.refusals(.virtual)
    }
    @Test("SET_INDICATOR on, blink timing, off") func indicator() async throws {
      try await ConformanceChecks.indicator(.virtual)
    }
    @Test("cap: PLAY cap 300 ms ends with PLAY_ENDED cap, outputs off") func cap() async throws {
      try await ConformanceChecks.cap(.virtual)
    }
    @Test("lease: LEASE 200 ms then silence ends with PLAY_ENDED lease") func lease() async throws {
      try await ConformanceChecks.lease(.virtual)
    }
    @Test("pattern timing: step boundaries within the tolerance of board time") func timing() async throws {
      try await ConformanceChecks.patternTiming(.virtual)
    }
    @Test("table: BEGIN, DATA, READ, COMMIT, ABORT, PLAY by slot") func table() async throws {
      try await ConformanceChecks.tableTransfer(.virtual)
    }
    @Test("table filling the flash, read back, kept across RESET") func fullTable() async throws {
      try await ConformanceChecks.fullTable(.virtual)
    }
    @Test("RESET: new nonce, BOOT, the table survives") func reboot() async throws {
      try await ConformanceChecks.reboot(.virtual)
    }
    @Test("a host that stops reading does not stall the board") func hostStopsReading() async throws {
      try await ConformanceChecks.hostStopsReading(.virtual)
    }
    @Test("tick overrun: a 250 ms hold-up is reported with FAULT tick_overrun (§13.8)") func tickOverrun() async throws
    {
      try await ConformanceChecks.tickOverrun(.virtual)
    }
    @Test("STATUS's indicator_mode is LED 0's (§10.5)") func statusIndicator() async throws {
      try await ConformanceChecks.statusIndicator(.virtual)
    }
    @Test("link.json", arguments: LinkScenarios.all.map(\.name)) func link(_ scenario: String) async throws {
      try await ConformanceChecks.linkScenario(scenario, .virtual)
    }
  }

  @Suite(
    "QEMU firmware (mps2-an386)",
    .enabled(if: QemuFirmware.hasQemu, "qemu-system-arm not installed (make deps installs it as root)"),
    .enabled(
      if: QemuFirmware.hasImage, "no firmware image at firmware/build/callalert-mps2-an386.elf (run make firmware)"))
  struct QemuFirmwareBoard {
    @Test("handshake: INFO fields, GET_INFO") func handshake() async throws {
      try await ConformanceChecks.handshake(.qemu)
    }
    @Test("PING up to the largest payload") func ping() async throws { try await ConformanceChecks.ping(.qemu) }
    @Test("GET_STATUS when idle") func idleStatus() async throws { try await ConformanceChecks.idleStatus(.qemu) }
    @Test("PLAY inline, GET_STATUS, STOP, supersede, mute") func play() async throws {
      try await ConformanceChecks.playStatusStop(.qemu)
    }
    @Test("refusals: NAK codes and details") func refusals() async throws {
      try await ConformanceChecks.refusals(.qemu)
    }
    @Test("SET_INDICATOR on, blink timing, off") func indicator() async throws {
      try await ConformanceChecks.indicator(.qemu)
    }
    @Test("cap: PLAY cap 300 ms ends with PLAY_ENDED cap, outputs off") func cap() async throws {
      try await ConformanceChecks.cap(.qemu)
    }
    @Test("lease: LEASE 200 ms then silence ends with PLAY_ENDED lease") func lease() async throws {
      try await ConformanceChecks.lease(.qemu)
    }
    @Test("pattern timing: step boundaries within the tolerance of board time") func timing() async throws {
      try await ConformanceChecks.patternTiming(.qemu)
    }
    @Test("table: BEGIN, DATA, READ, COMMIT, ABORT, PLAY by slot") func table() async throws {
      try await ConformanceChecks.tableTransfer(.qemu)
    }
    @Test("table filling the flash, read back, kept across RESET") func fullTable() async throws {
      try await ConformanceChecks.fullTable(.qemu)
    }
    @Test("RESET: new nonce, BOOT, the table survives") func reboot() async throws {
      try await ConformanceChecks.reboot(.qemu)
    }
    @Test("a host that stops reading does not stall the board") func hostStopsReading() async throws {
      try await ConformanceChecks.hostStopsReading(.qemu)
    }
    @Test("tick overrun: a 250 ms hold-up is reported with FAULT tick_overrun (§13.8)") func tickOverrun() async throws
    {
      try await ConformanceChecks.tickOverrun(.qemu)
    }
    @Test("STATUS's indicator_mode is LED 0's (§10.5)") func statusIndicator() async throws {
      try await ConformanceChecks.statusIndicator(.qemu)
    }
    @Test("link.json", arguments: LinkScenarios.all.map(\.name)) func link(_ scenario: String) async throws {
      try await ConformanceChecks.linkScenario(scenario, .qemu)
    }
  }

  @Suite(
    "QEMU firmware (micro:bit v1)",
    .enabled(if: QemuFirmware.hasQemu, "qemu-system-arm not installed (make deps installs it as root)"),
    .enabled(
      if: QemuFirmware.hasMicrobitImage,
      "no firmware image at firmware/build/callalert-microbit-v1.elf (run make firmware)"))
  struct MicrobitFirmwareBoard {
    @Test("handshake: INFO fields, GET_INFO") func handshake() async throws {
      try await ConformanceChecks.handshake(.microbit)
    }
    @Test("PING up to the largest payload") func ping() async throws { try await ConformanceChecks.ping(.microbit) }
    @Test("GET_STATUS when idle") func idleStatus() async throws { try await ConformanceChecks.idleStatus(.microbit) }
    @Test("PLAY inline, GET_STATUS, STOP, supersede, mute") func play() async throws {
      try await ConformanceChecks.playStatusStop(.microbit)
    }
    @Test("refusals: NAK codes and details") func refusals() async throws {
      try await ConformanceChecks.refusals(.microbit)
    }
    @Test("SET_INDICATOR on, blink timing, off") func indicator() async throws {
      try await ConformanceChecks.indicator(.microbit)
    }
    @Test("cap: PLAY cap 300 ms ends with PLAY_ENDED cap, outputs off") func cap() async throws {
      try await ConformanceChecks.cap(.microbit)
    }
    @Test("lease: LEASE 200 ms then silence ends with PLAY_ENDED lease") func lease() async throws {
      try await ConformanceChecks.lease(.microbit)
    }
    @Test("pattern timing: step boundaries within the tolerance of board time") func timing() async throws {
      try await ConformanceChecks.patternTiming(.microbit)
    }
    @Test("table: BEGIN, DATA, READ, COMMIT, ABORT, PLAY by slot") func table() async throws {
      try await ConformanceChecks.tableTransfer(.microbit)
    }
    @Test("table filling the flash, read back, kept across RESET") func fullTable() async throws {
      try await ConformanceChecks.fullTable(.microbit)
    }
    @Test("RESET: new nonce, BOOT, the table survives") func reboot() async throws {
      try await ConformanceChecks.reboot(.microbit)
    }
    @Test("a host that stops reading does not stall the board") func hostStopsReading() async throws {
      try await ConformanceChecks.hostStopsReading(.microbit)
    }
    @Test("tick overrun: a 250 ms hold-up is reported with FAULT tick_overrun (§13.8)") func tickOverrun() async throws
    {
      try await ConformanceChecks.tickOverrun(.microbit)
    }
    @Test("STATUS's indicator_mode is LED 0's (§10.5)") func statusIndicator() async throws {
      try await ConformanceChecks.statusIndicator(.microbit)
    }
    @Test("link.json", arguments: LinkScenarios.all.map(\.name)) func link(_ scenario: String) async throws {
      try await ConformanceChecks.linkScenario(scenario, .microbit)
    }
  }
}
