import CallAlertEngine
import CallAlertLights
import CallAlertTestSupport
import CallAlertValues
import Testing

/// Boards that are USB lights: `kind:` and how each shows calls.
@Suite struct ConfigLightsTests {
  @Test func aLightBoardReadsItsKindColoursRingtoneAndPatternLooks() throws {
    let config = try parseConfig(
      """
      boards:
        - name: desk
        - name: lamp
          kind: kuando
          serial: KB-1
          color: "#00ff00"
          ringtone: telephoneNordic
          volume: 6
          indicator_color: purple
          timeline: /tmp/lamp.jsonl
          patterns:
            UK: {color: red, ringtone: buzz}
            US: {color: blue}
      """)
    let desk = config.engine.boards[0]
    #expect(desk.kind == .serial)
    let lamp = config.engine.boards[1]
    #expect(lamp.kind == .light(.kuando))
    #expect(lamp.serialNumber == "KB-1")
    #expect(lamp.light.color == LightColor(red: 0, green: 255, blue: 0))
    #expect(lamp.light.ringtone == .telephoneNordic)
    #expect(lamp.light.volume == 6)
    #expect(lamp.light.indicatorColor == LightColor(text: "purple"))
    #expect(lamp.timeline == "/tmp/lamp.jsonl")
    #expect(lamp.light.look(for: "uk").color == LightColor(text: "red"))
    #expect(lamp.light.look(for: "UK").ringtone == .buzz)
    #expect(lamp.light.look(for: "US").ringtone == .telephoneNordic)
    #expect(lamp.light.look(for: "office").color == LightColor(red: 0, green: 255, blue: 0))
  }

  @Test(arguments: LightKind.allCases)
  func everyKindIsAccepted(_ kind: LightKind) throws {
    let config = try parseConfig("boards:\n  - name: lamp\n    kind: \(kind.rawValue)\n")
    #expect(config.engine.boards[0].kind == .light(kind))
    #expect(config.engine.boards[0].port == "auto")
  }

  @Test func theExampleInLightsDocParses() throws {
    let example = try #require(codeBlocks(try documentText("LIGHTS.md"), language: "yaml").first)
    let config = try parseConfig(example.text)
    #expect(config.engine.boards.map(\.kind) == [.serial, .light(.kuando), .light(.luxafor)])
    #expect(config.engine.boards[1].light.look(for: "US").ringtone == .quiet)
  }
}
