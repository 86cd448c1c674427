import CallAlertLights
import Foundation
import Testing

/// Every report CallAlert builds for a light equals the one PyPI busylight-core (an independent
/// implementation) builds for the same command: the vectors in Fixtures/busylight-core-reports.txt were
/// printed by Tools/scripts/light-reports-reference.py, and where busylight-core is installed the script is
/// run again and must print the same lines, so the vectors cannot drift from it.
@Suite("Light reports against busylight-core")
struct BusylightCoreReferenceTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  static let vectorsPath = root.appendingPathComponent("Tests/CallAlertLightsTests/Fixtures/busylight-core-reports.txt")

  /// One reference line: the command's words and the bytes busylight-core made for it.
  struct Vector: CustomTestStringConvertible, Sendable {
    var words: [String]
    var hex: String
    var testDescription: String { words.joined(separator: " ") }
  }

  static let vectors: [Vector] = {
    guard let text = try? String(contentsOf: vectorsPath, encoding: .utf8) else { return [] }
    return text.split(separator: "\n").compactMap { line in
      let halves = line.split(separator: "=", maxSplits: 1)
      guard halves.count == 2 else { return nil }
      return Vector(
        words: halves[0].split(separator: " ").map(String.init),
        hex: halves[1].trimmingCharacters(in: .whitespaces))
    }
  }()

  @Test func theVectorsCoverEveryKindAndCommand() {
    let commands = Set(Self.vectors.map { $0.words.prefix(2).joined(separator: " ") })
    #expect(
      commands == [
        "kuando show", "kuando ring", "kuando keepalive", "kuando off", "blink1 fade", "blink1 set", "blink1 play",
        "blink1 tickle", "luxafor color", "luxafor fade", "embrava show", "embrava flash", "embrava dim",
      ])
    #expect(Self.vectors.count > 150)
  }

  @Test(arguments: vectors)
  func reportEqualsBusylightCore(_ vector: Vector) throws {
    let report = try #require(Self.report(for: vector.words), "no report for \(vector.words)")
    #expect(report.hex == vector.hex)
  }

  @Test(
    .enabled("python3 with busylight-core is not installed (Tools/scripts/install-deps.sh)") {
      await ReferenceScript.isAvailable.value
    },
    .timeLimit(.minutes(1)))
  func busylightCorePrintsTheCheckedInVectors() async throws {
    let printed = try await ReferenceScript.run()
    let checkedIn = try String(contentsOf: Self.vectorsPath, encoding: .utf8)
    #expect(printed == checkedIn)
  }

  /// Our report for a reference line's command.
  static func report(for words: [String]) -> LightReport? {
    let numbers = words.dropFirst(2).compactMap { UInt32($0) }
    func color(_ at: Int = 0) -> LightColor {
      LightColor(red: UInt8(numbers[at]), green: UInt8(numbers[at + 1]), blue: UInt8(numbers[at + 2]))
    }
    switch (words[0], words[1]) {
    case ("kuando", "show"): return LightEncoder(kind: .kuando).show(color(), sound: nil)
    case ("kuando", "ring"):
      guard let tone = KuandoRingtone(name: words[5]) else { return nil }
      return LightEncoder(kind: .kuando).show(color(), sound: KuandoSound(ringtone: tone, volume: UInt8(words[6])!))
    case ("kuando", "keepalive"):
      return KuandoProgram(steps: [.keepAlive(timeoutSeconds: UInt8(numbers[0]))]).report(meaning: "")
    case ("kuando", "off"): return LightEncoder(kind: .kuando).off()
    case ("blink1", "fade"):
      return Blink1Command.fade(color: color(), centiseconds: UInt16(numbers[3]), led: UInt8(numbers[4])).report
    case ("blink1", "set"): return Blink1Command.set(color: color()).report
    case ("blink1", "play"):
      return Blink1Command.play(
        on: numbers[0] == 1, start: UInt8(numbers[1]), end: UInt8(numbers[2]), count: UInt8(numbers[3])
      ).report
    case ("blink1", "tickle"):
      return Blink1Command.serverTickle(
        on: numbers[0] == 1, centiseconds: UInt16(numbers[1]), stayLit: numbers[2] == 1, start: UInt8(numbers[3]),
        end: UInt8(numbers[4])
      ).report
    case ("luxafor", "color"): return LuxaforCommand.color(led: .all, color: color()).report
    case ("luxafor", "fade"): return LuxaforCommand.fade(led: .all, color: color(), speed: UInt8(numbers[3])).report
    case ("embrava", "show"): return EmbravaCommand(color: color()).report
    case ("embrava", "flash"):
      guard let speed = EmbravaCommand.FlashSpeed(rawValue: UInt8(numbers[3])) else { return nil }
      return EmbravaCommand(color: color(), flashes: true, speed: speed).report
    case ("embrava", "dim"): return EmbravaCommand(color: color(), dim: true).report
    default: return nil
    }
  }
}
