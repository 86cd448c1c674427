import CallAlertEngine
import CallAlertInputs
import CallAlertText
import CallAlertValues
import Foundation
import Testing

/// A typo never passes silently, and a huge config is refused before parsing.
@Suite struct ConfigCheckTests {
  @Test(arguments: ["AQ", "ZZ", "XK"])
  func aRegionWhoseCallingCodeIsUnknownIsAnError(region: String) {
    let errors = configErrors("region: \(region)\n")
    #expect(errors.count == 1)
    #expect(errors.first?.location == "/etc/callalert/config.yaml:1:9")
    #expect(errors.first?.message.contains("calling code") == true)
  }

  @Test(arguments: ["UK", "uk", "GB", "gb"])
  func ukAndGBAreTheSame(region: String) throws {
    let config = try parseConfig("region: \(region)\n")
    #expect(config.engine.defaultRegion == "GB")
    #expect(PhoneNumber.e164("020 7946 0000", defaultRegion: region) == "+442079460000")
    #expect(PhoneNumber.callingCode(forRegion: region) == "44")
  }

  @Test func callerNumbersAreReadIntoE164AtLoad() throws {
    let config = try parseConfig(
      """
      patterns:
        rules:
          - callers: ["030 1234567", "+49 (0)30 7654321"]
            pattern: family
      do_not_disturb:
        allowed_callers: ["0170 1234567"]
      region: DE
      """)
    #expect(config.engine.patternRules.first?.callers == ["+49301234567", "+49307654321"])
    #expect(config.engine.doNotDisturb.allowedCallers == ["+491701234567"])
  }

  @Test func anUnreadableCallerIsAnErrorAtItsPlace() {
    let errors = configErrors(
      """
      patterns:
        rules:
          - callers: ["+4930123", "mum"]
            pattern: family
      do_not_disturb:
        allowed_callers: ["anonymous"]
      """)
    #expect(errors.map(\.location) == ["/etc/callalert/config.yaml:3:29", "/etc/callalert/config.yaml:6:21"])
    #expect(errors.map(\.field) == ["patterns.rules[0].callers[1]", "do_not_disturb.allowed_callers[0]"])
    #expect(errors.first?.message.contains("'mum' is not a phone number") == true)
  }

  @Test func aConfigOverTheLimitIsRefusedBeforeParsing() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("big-\(UUID().uuidString).yaml").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let text = "cap: 30s\n# " + String(repeating: "x", count: ConfigurationFile.maximumBytes) + "\n"
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    #expect(throws: InputErrors.self) { try ConfigurationFile.load(path: path, environment: testEnvironment) }
    do {
      _ = try ConfigurationFile.load(path: path, environment: testEnvironment)
    } catch {
      #expect(error.errors.map(\.message) == ["the config file is larger than 1 MiB, the most CallAlert reads"])
    }
  }

  @Test func aHugeValueIsQuotedBrieflyAndQuickly() {
    let huge = String(repeating: "z", count: 400_000)
    let clock = ContinuousClock()
    var errors: [InputError] = []
    let elapsed = clock.measure { errors = configErrors("cap: \(huge)\nevents:\n  format: \(huge)\n") }
    #expect(errors.count == 2)
    for error in errors { #expect(error.description.utf8.count < 300, "\(error.description.prefix(300))") }
    #expect(elapsed < .seconds(10))
  }
}
