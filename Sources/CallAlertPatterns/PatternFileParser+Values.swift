import CallAlertProtocol
import CallAlertText
internal import Yams

/// One key of a YAML mapping with its value.
struct MappingEntry {
  /// The key's text.
  var key: String
  /// The key node, for its location.
  var keyNode: Node
  /// The value.
  var value: Node
}

/// Readers for the values of a pattern file: each returns nil after recording an error that names the
/// place and says what to write instead. `prefix` starts every message ("pattern 'office': step 3: ").
extension PatternFileParser {
  mutating func error(_ node: Node, _ message: String) {
    diagnostics.append(.error(at: source.location(of: node), message))
  }

  mutating func warning(_ node: Node, _ message: String) {
    diagnostics.append(.warning(at: source.location(of: node), message))
  }

  /// The text of a scalar, or nil (with an error) for a list or mapping.
  mutating func text(_ node: Node, _ what: String, _ prefix: String) -> String? {
    guard let scalar = node.scalar else {
      error(node, "\(prefix)\(what) must be a single value, not a list or mapping")
      return nil
    }
    return scalar.string
  }

  /// Whether a scalar is YAML's null (an empty value, `~` or `null`).
  func isNull(_ node: Node) -> Bool {
    guard let scalar = node.scalar, scalar.style == .plain || scalar.style == .any else { return false }
    return ["", "~", "null", "Null", "NULL"].contains(scalar.string)
  }

  /// The entries of a mapping, or nil (with an error) for anything else.
  mutating func mapping(
    _ node: Node, _ what: String, _ prefix: String, example: String = "keys such as 'ms: 400'"
  ) -> [MappingEntry]? {
    guard let mapping = node.mapping else {
      error(node, "\(prefix)\(what) must be a mapping of \(example)")
      return nil
    }
    var entries: [MappingEntry] = []
    for (key, value) in mapping {
      guard let text = key.scalar?.string else {
        error(key, "\(prefix)keys must be plain words, not lists or mappings")
        continue
      }
      entries.append(MappingEntry(key: text, keyNode: key, value: value))
    }
    return entries
  }

  /// Records an error for every key not in `allowed`, suggesting the closest allowed key.
  mutating func checkKeys(_ entries: [MappingEntry], allowed: [String], _ prefix: String) {
    for entry in entries where !allowed.contains(entry.key) {
      let suggestion = allowed.min { Suggestion.distance($0, entry.key) < Suggestion.distance($1, entry.key) }
      let hint = suggestion.flatMap { Suggestion.distance($0, entry.key) <= 2 ? " (did you mean '\($0)'?)" : nil } ?? ""
      error(
        entry.keyNode,
        "\(prefix)unknown key '\(entry.key)'\(hint); expected \(allowed.map { "'\($0)'" }.joined(separator: ", "))")
    }
  }

  /// A whole number in `range`: decimal (with optional `_` separators) or `0x` hexadecimal.
  mutating func integer(
    _ node: Node, _ what: String, in range: ClosedRange<Int>, _ prefix: String, hint: String? = nil
  ) -> Int? {
    guard let raw = text(node, what, prefix) else { return nil }
    guard !isNull(node) else {
      error(node, "\(prefix)\(what) has no value; use \(hint ?? "\(range.lowerBound)-\(range.upperBound)")")
      return nil
    }
    guard let value = PatternFileParser.parseInteger(raw) else {
      error(
        node,
        "\(prefix)\(what) '\(raw)' is not a whole number; use \(hint ?? "\(range.lowerBound)-\(range.upperBound)")")
      return nil
    }
    guard range.contains(value) else {
      error(node, "\(prefix)\(what) \(value) is out of range; use \(hint ?? "\(range.lowerBound)-\(range.upperBound)")")
      return nil
    }
    return value
  }

  static func parseInteger(_ raw: String) -> Int? {
    var text = Substring(raw.trimming(" \t")).filter { $0 != "_" }[...]
    var negative = false
    if let sign = text.first, sign == "-" || sign == "+" {
      negative = sign == "-"
      text = text.dropFirst()
    }
    var value: Int?
    if text.hasPrefix("0x") || text.hasPrefix("0X") {
      value = Int(text.dropFirst(2), radix: 16)
    } else if !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) {
      value = Int(text)
    }
    return value.map { negative ? -$0 : $0 }
  }

  /// A level such as a volume or motor intensity: 0-255, or a percentage `0%`-`100%` scaled to 0-255.
  mutating func level(_ node: Node, _ what: String, _ prefix: String) -> UInt8? {
    guard let raw = text(node, what, prefix) else { return nil }
    let hint = "0-255 or a percentage such as 80%"
    let trimmed = raw.trimming(" \t")
    if trimmed.hasSuffix("%") {
      let number = String(trimmed.dropLast()).trimming(" \t")
      guard let percent = PatternFileParser.parseInteger(number), (0...100).contains(percent) else {
        error(node, "\(prefix)\(what) '\(raw)' is not a percentage from 0% to 100%; use \(hint)")
        return nil
      }
      return UInt8((percent * 255 + 50) / 100)
    }
    if trimmed.lowercased() == "on" { return 255 }
    if trimmed.lowercased() == "off" { return 0 }
    return integer(node, what, in: 0...255, prefix, hint: hint).map(UInt8.init)
  }

  /// LEDs: `on` (LED 0), `off`, or a list of LED numbers 0-7 such as `[0, 1]`.
  mutating func leds(_ node: Node, _ what: String, _ prefix: String) -> UInt8? {
    let hint = "use on (LED 0), off, or a list of LED numbers such as [0, 1]"
    if let sequence = node.sequence {
      var bits: UInt8 = 0
      var valid = true
      for item in sequence {
        guard let led = integer(item, "LED number", in: 0...7, prefix, hint: "0-7") else {
          valid = false
          continue
        }
        bits |= 1 << UInt8(led)
      }
      return valid ? bits : nil
    }
    guard let raw = text(node, what, prefix) else { return nil }
    switch raw.trimming(" \t").lowercased() {
    case "on", "true", "yes": return 1
    case "off", "false", "no", "": return 0
    default:
      let number = PatternFileParser.parseInteger(raw).map { "; write [\($0)] to light LED \($0)" } ?? ""
      error(node, "\(prefix)\(what) '\(raw)' is not understood; \(hint)\(number)")
      return nil
    }
  }

  /// A repeat count: 0-254 extra passes, or `forever` (until the board's cap).
  mutating func repeatCount(_ node: Node, _ prefix: String) -> UInt8? {
    guard let raw = text(node, "repeat", prefix) else { return nil }
    let word = raw.trimming(" \t").lowercased()
    if word == "forever" || word == "until_cap" { return Pattern.repeatForever }
    if PatternFileParser.parseInteger(raw) == 255 {
      error(node, "\(prefix)repeat 255 means 'until the cap' on the wire; write 'repeat: forever' or use 0-254")
      return nil
    }
    return integer(node, "repeat", in: 0...254, prefix, hint: "a count of extra passes 0-254, or forever")
      .map(UInt8.init)
  }

  /// One of a fixed set of words.
  mutating func choice<Choice: RawRepresentable & CaseIterable>(
    _ node: Node, _ what: String, _ prefix: String, as type: Choice.Type
  ) -> Choice? where Choice.RawValue == String {
    guard let raw = text(node, what, prefix) else { return nil }
    if let value = Choice(rawValue: raw.trimming(" \t").lowercased()) { return value }
    let choices = Choice.allCases.map { "'\($0.rawValue)'" }.joined(separator: " or ")
    error(node, "\(prefix)\(what) '\(raw)' is not understood; use \(choices)")
    return nil
  }
}

extension String {
  func trimming(_ characters: String) -> String {
    var slice = self[...]
    while let first = slice.first, characters.contains(first) { slice.removeFirst() }
    while let last = slice.last, characters.contains(last) { slice.removeLast() }
    return String(slice)
  }
}
