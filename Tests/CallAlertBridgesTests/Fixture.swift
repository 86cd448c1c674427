import CallAlertBridges
import Foundation
import Testing

/// A call flow written from the AVM and Asterisk documentation (Fixtures/*.txt): protocol lines to send,
/// `? ...` lines saying what the tracker reports after them, and `!` directives for the fake servers.
struct Fixture: CustomTestStringConvertible, Sendable {
  enum Step: Equatable, Sendable {
    /// Bytes the phone system sends.
    case data([UInt8])
    /// What the tracker reports next, rendered by ``Fixture/render(_:)``.
    case expect(String)
    /// The server reads the client's Login action before going on.
    case login
    /// The server closes the connection (a restart) and takes the next one.
    case close
    /// The call rings to its cap before the flow goes on.
    case cap(String)
  }

  let name: String
  let steps: [Step]

  var testDescription: String { name }

  /// The folder of the fixture files.
  static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

  /// Every fixture whose name starts with `prefix`.
  static func all(_ prefix: String) -> [Fixture] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".txt") }.sorted().map { load($0) }
  }

  /// Loads one file; protocol lines end with `\r\n` for AMI and `\n` for the FRITZ!Box, as each sends them.
  static func load(_ file: String) -> Fixture {
    let text = (try? String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)) ?? ""
    let ending = file.hasPrefix("ami") ? "\r\n" : "\n"
    var steps: [Step] = []
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if lines.last == "" { lines.removeLast() }
    for line in lines {
      if line.hasPrefix("#") { continue }
      if line.hasPrefix("? ") {
        steps.append(.expect(String(line.dropFirst(2))))
      } else if line == "!login" {
        steps.append(.login)
      } else if line == "!close" {
        steps.append(.close)
      } else if line.hasPrefix("!cap ") {
        steps.append(.cap(String(line.dropFirst(5))))
      } else if case .data(let bytes) = steps.last {
        steps[steps.count - 1] = .data(bytes + Array((line + ending).utf8))
      } else {
        steps.append(.data(Array((line + ending).utf8)))
      }
    }
    return Fixture(name: String(file.dropLast(4)), steps: steps)
  }

  /// Every byte the phone system sends, across its connections.
  var allData: [UInt8] {
    steps.flatMap { step -> [UInt8] in if case .data(let bytes) = step { bytes } else { [] } }
  }

  /// The expectations in order.
  var expectations: [String] { steps.compactMap { if case .expect(let text) = $0 { text } else { nil } } }

  /// A notification as the fixtures write it.
  static func render(_ notification: BridgeNotification) -> String {
    switch notification {
    case .ringing(let call):
      var text = "ringing \(call.id)"
      if let caller = call.callerNumber { text += " from \(caller)" }
      if let name = call.callerName { text += " name \(name)" }
      if let called = call.calledNumber { text += " to \(called)" }
      if let line = call.line { text += " line \(line)" }
      if let ext = call.extension { text += " extension \(ext)" }
      return text
    case .answered(let id): return "answered \(id)"
    case .ended(let id, let outcome): return "ended \(id) \(outcome.rawValue)"
    }
  }
}
