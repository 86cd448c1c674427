import CallAlertEngine
import CallAlertProtocol
import CallAlertTestSupport
import CallAlertText
import CallAlertValues
import Foundation
import Testing

/// docs/CONFIG.md's full example is valid and means what its comments say.
@Suite struct DocumentedConfigTests {
  @Test func theFullExampleParsesToTheDocumentedConfiguration() throws {
    let markdown = try documentText("CONFIG.md")
    let example = try #require(codeBlocks(markdown, language: "yaml").first { $0.heading == "The full example" })
    let (config, folder) = try parseBesideItsSecrets(example.text)

    let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
    let expectedEngine = EngineConfiguration(
      capMs: 25_000, tombstoneMs: 300_000,
      boards: [
        AlertBoard(name: "desk", port: "auto"),
        AlertBoard(name: "bed", port: nil, serialNumber: "CA-0042", vibrateOnly: true),
      ],
      patternRules: [
        PatternRule(callers: ["+49301234567"], pattern: .named("family")),
        PatternRule(levels: [.critical], pattern: .slot(3), boards: ["desk", "bed"]),
        PatternRule(levels: [.passive, .active], boards: ["desk"]),
      ],
      defaultPattern: .named("ring"),
      doNotDisturb: DoNotDisturbConfiguration(
        mode: .scheduled,
        schedule: [
          QuietHoursWindow(weekdays: [2, 3, 4, 5, 6], startMinute: 22 * 60, endMinute: 7 * 60),
          QuietHoursWindow(weekdays: [7, 1], startMinute: 23 * 60 + 30, endMinute: 9 * 60),
        ],
        timeZone: berlin, allowedCallers: ["+49301234567"], repeatedCallerWindowMs: 180_000,
        allowTimeSensitive: true, silent: false),
      defaultRegion: "DE",
      missedIndicator: IndicatorSetting(led: 0, mode: .blink, onMs: 150, offMs: 1_850))
    #expect(config.engine == expectedEngine)
    #expect(config.patternsFile == "\(folder)/patterns.yaml")
    #expect(config.socketPath == "/run/user/1000/callalert.sock")
    #expect(config.socketMode == 0o660)
    #expect(config.historyPath == "/home/alice/.local/state/callalert/history.sqlite")
    #expect(config.eventsFormat == .text)
    #expect(
      config.pushRules == [
        PushRule(
          match: [PushRule.Match(path: "event", equals: "ring")], kind: .call, id: "data.call.id",
          caller: "data.call.from", name: "data.call.display_name", sentAt: "data.sent", level: "data.urgency",
          pattern: "data.tone"),
        PushRule(match: [PushRule.Match(path: "event", equals: "cancel")], kind: .hangup, id: "data.call.id"),
      ])
    // The sections a source or a listener needs: they were missing from "every section with every key".
    let http = try #require(config.http)
    #expect(http.listen.description == "127.0.0.1:8080")
    #expect(http.tokenFile == "\(folder)/http.token")
    #expect(http.twilioAuthTokenFile == "\(folder)/twilio.token")
    #expect(http.vonageSignatureSecretFile == "\(folder)/vonage.secret")
    #expect(http.publicURL == "https://example.org/callalert")
    #expect(config.sources.map(\.name) == ["fritzbox", "pbx"])
    #expect(config.sources.map(\.port) == [1012, 5038])
    #expect(config.sources[1].secretFile == "\(folder)/ami.secret")
    #expect(config.sources[1].endpoints == ["PJSIP/201"])
    let mqtt = try #require(config.mqtt)
    #expect(mqtt.host == "broker.home.arpa" && mqtt.tls && mqtt.port == 8883)
    #expect(mqtt.passwordFile == "\(folder)/mqtt.secret")
    #expect(mqtt.nodeID == "upstairs")
    #expect(config.sipAccounts.map(\.name) == ["office"])
    #expect(config.sipAccounts.first?.passwordFile == "\(folder)/sip.secret")
    #expect(config.kdeConnect?.name == "Bedroom" && config.kdeConnect?.muteOnAcknowledge == true)
  }

  /// The sections table has a row for every top-level key of the full example.
  @Test func theSectionsTableNamesEveryTopLevelKeyOfTheFullExample() throws {
    let markdown = try documentText("CONFIG.md")
    let example = try #require(codeBlocks(markdown, language: "yaml").first { $0.heading == "The full example" })
    let keys = example.text.split(separator: "\n").compactMap { line -> String? in
      guard let first = line.first, first != " ", first != "#", let colon = line.firstIndex(of: ":") else { return nil }
      return String(line[..<colon])
    }
    let rows = markdown.split(separator: "\n").filter { $0.hasPrefix("| `") }.map { String($0) }
    for key in keys {
      #expect(rows.contains { $0.hasPrefix("| `\(key)`") || $0.hasPrefix("| `\(key).") }, "no row for \(key)")
    }
  }

  /// Each section, removed from the full example, falls back to exactly its default: the example and the
  /// defaults table describe the same keys.
  @Test(arguments: ["cap", "tombstone", "region", "events"])
  func removingASectionGivesItsDefault(section: String) throws {
    let markdown = try documentText("CONFIG.md")
    let example = try #require(codeBlocks(markdown, language: "yaml").first { $0.heading == "The full example" })
    let lines = example.text.split(separator: "\n", omittingEmptySubsequences: false)
    var kept: [Substring] = []
    var skipping = false
    for line in lines {
      if let first = line.first, first != " ", first != "#" { skipping = line.hasPrefix("\(section):") }
      if !skipping { kept.append(line) }
    }
    let (config, _) = try parseBesideItsSecrets(kept.joined(separator: "\n"))
    switch section {
    case "cap": #expect(config.engine.capMs == 30_000)
    case "tombstone": #expect(config.engine.tombstoneMs == 300_000)
    case "region": #expect(config.engine.defaultRegion == "US")
    default: #expect(config.eventsFormat == .json)
    }
  }

  @Test func theDocumentedErrorsAreTheOnesReported() throws {
    let markdown = try documentText("CONFIG.md")
    let broken = try #require(codeBlocks(markdown, language: "yaml").first { $0.heading == "Errors" })
    let output = try #require(codeBlocks(markdown, language: "text").first { $0.heading == "Errors" })
    do {
      _ = try parseConfig(broken.text)
      Issue.record("the documented broken config parsed")
    } catch {
      #expect(error.description == output.text)
    }
  }
}
