import ArgumentParser
import CallAlertLights
import Testing

@testable import callalert

/// `board light` and `board simulate --kind`: their options, and the mistakes they refuse before touching a light.
@Suite struct BoardLightCommandTests {
  @Test func aLightsKindColourAndRingtoneAreRead() throws {
    let light = try CallAlertCommand.Board.Light.parse(
      ["--kind", "kuando", "--color", "#00ff00", "--ringtone", "quiet", "--volume", "6"])
    #expect(light.kind == .kuando && light.color == "#00ff00" && light.ringtone == "quiet" && light.volume == 6)
  }

  @Test(arguments: [
    (["--kind", "kuandoo"], "kuandoo"),
    (["--kind", "kuando", "--color", "rde"], "--color 'rde' is not a colour"),
    (["--kind", "luxafor", "--ringtone", "quiet"], "--ringtone is for a Kuando (--kind kuando)"),
    (["--kind", "kuando", "--volume", "8"], "--volume must be 0 to 7"),
  ])
  func mistakesAreRefused(_ arguments: [String], _ message: String) {
    do {
      _ = try CallAlertCommand.Board.Light.parse(arguments)
      Issue.record("took \(arguments)")
    } catch {
      #expect(CallAlertCommand.Board.Light.message(for: error).contains(message))
    }
  }

  @Test func simulateTakesAKind() throws {
    let simulate = try CallAlertCommand.Board.Simulate.parse(["--kind", "blink1", "--pattern", "US", "--seconds", "5"])
    #expect(simulate.kind == .blink1 && simulate.pattern == "US" && simulate.seconds == 5)
    #expect(throws: (any Error).self) {
      try CallAlertCommand.Board.Simulate.parse(["--kind", "kuando", "--seconds", "31"])
    }
  }
}
