import CallAlertEngine
import CallAlertInputs
import CallAlertText
import Foundation
import Testing

/// The quiet hours as changed on the page: the `do_not_disturb:` section alone, read with the config file's
/// own checks and errors, written back as text that reads the same, kept in a file beside the history.
@Suite struct QuietHoursFileTests {
  static let berlin = TimeZone(identifier: "Europe/Berlin")!

  static let sections: [DoNotDisturbConfiguration] = [
    DoNotDisturbConfiguration(),
    DoNotDisturbConfiguration(
      mode: .scheduled,
      schedule: [
        QuietHoursWindow(weekdays: [2, 3, 4, 5, 6], startMinute: 22 * 60, endMinute: 7 * 60),
        QuietHoursWindow(weekdays: [1, 7], startMinute: 23 * 60 + 30, endMinute: 0),
        QuietHoursWindow(weekdays: [4], startMinute: 12 * 60, endMinute: 13 * 60 + 15),
        QuietHoursWindow(weekdays: Set(1...7), startMinute: 3 * 60, endMinute: 4 * 60),
        QuietHoursWindow(weekdays: [2, 7], startMinute: 9, endMinute: 10),
      ], timeZone: berlin, allowedCallers: ["+4930123456", "+14155550101"], repeatedCallerWindowMs: 5 * 60_000,
      allowTimeSensitive: false, silent: true),
    DoNotDisturbConfiguration(mode: .on, timeZone: berlin, repeatedCallerWindowMs: nil),
    DoNotDisturbConfiguration(mode: .off, timeZone: berlin, repeatedCallerWindowMs: 90_000),
  ]

  @Test(arguments: sections)
  func theTextOfASectionReadsBackAsIt(section: DoNotDisturbConfiguration) throws {
    let text = ConfigurationFile.doNotDisturbYAML(section)
    #expect(
      try ConfigurationFile.parseDoNotDisturb(text: text, file: "quiet-hours", region: "DE") == section, "\(text)")
  }

  /// The config file's errors, at their line and column in the text, with the field; callers in E.164.
  @Test func aSectionIsCheckedAsTheConfigFilesIs() throws {
    let text = """
      do_not_disturb:
        mode: scheduled
        quiet_hours:
          - {days: weekdays, from: "22:00", to: "7:0"}
        allowed_callers: ["030 123456", "not a number"]
        repeated_calers: 5m
      """
    let errors = try #require(throws: InputErrors.self) {
      try ConfigurationFile.parseDoNotDisturb(text: text, file: "quiet-hours", region: "DE")
    }.errors
    #expect(errors.map(\.location) == ["quiet-hours:4:43", "quiet-hours:5:35", "quiet-hours:6:3"], "\(errors)")
    #expect(
      errors.map(\.field) == [
        "do_not_disturb.quiet_hours[0].to", "do_not_disturb.allowed_callers[1]", "do_not_disturb.repeated_calers",
      ])
    #expect(errors[2].message.contains("did you mean 'repeated_callers'?"))
    let good = try ConfigurationFile.parseDoNotDisturb(
      text: "do_not_disturb:\n  allowed_callers: [\"030 123456\"]\n", file: "quiet-hours", region: "DE")
    #expect(good.allowedCallers == ["+4930123456"])
  }

  @Test(arguments: [
    ("", "quiet-hours:1:1", "empty; write the do_not_disturb: section"),
    ("cap: 20s\n", "quiet-hours:1:1", "unknown key 'cap'"),
    ("{}\n", "quiet-hours:1:1", "missing; this text holds the do_not_disturb: section and nothing else"),
    ("do_not_disturb: {}\ncap: 20s\n", "quiet-hours:2:1", "unknown key 'cap'"),
    ("do_not_disturb: [\n", "quiet-hours:2:1", ""),
  ])
  func anythingButTheSectionIsRefused(text: String, location: String, message: String) throws {
    let errors = try #require(throws: InputErrors.self) {
      try ConfigurationFile.parseDoNotDisturb(text: text, file: "quiet-hours", region: "DE")
    }.errors
    #expect(errors.first?.location == location, "\(errors)")
    #expect(errors.first?.message.hasPrefix(message) == true, "\(errors)")
  }

  /// Written only when good, private to the user; read back; removed.
  @Test func theFileIsWrittenOnlyWhenGoodAndReadBack() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("quiet-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = QuietHoursFile(historyPath: folder.appendingPathComponent("history.sqlite").path)
    #expect(file.path.hasSuffix("/history-quiet-hours.yaml"))
    #expect(try file.read(region: "DE") == nil)
    #expect(throws: InputErrors.self) {
      try file.write("do_not_disturb:\n  mode: sometimes\n", region: "DE", errorsNamed: "q")
    }
    #expect(!file.exists)
    let text = "do_not_disturb:\n  mode: on\n  silent: true\n"
    try file.write(text, region: "DE", errorsNamed: "q")
    let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
    #expect(mode == 0o600)
    #expect(try file.read(region: "DE") == DoNotDisturbConfiguration(mode: .on, timeZone: .current, silent: true))
    try Data("do_not_disturb:\n  mode: sometimes\n".utf8).write(to: URL(fileURLWithPath: file.path))
    let errors = try #require(throws: InputErrors.self) { try file.read(region: "DE") }.errors
    #expect(errors.first?.location == "\(file.path):2:9")
    try file.remove()
    #expect(!file.exists)
  }
}
