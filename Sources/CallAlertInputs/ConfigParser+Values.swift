import CallAlertEngine
import CallAlertParsing
import CallAlertProtocol
import CallAlertText
import CallAlertValues
internal import Yams

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension [YAMLEntry] {
  /// The value of `key`, or nil when absent or YAML's null (`key:` with nothing after it).
  func value(_ key: String) -> Node? {
    guard let node = first(where: { $0.key == key })?.value else { return nil }
    if let scalar = node.scalar, scalar.style == .plain || scalar.style == .any,
      ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    {
      return nil
    }
    return node
  }
}

/// Readers for the values of a config file. Each returns nil after recording an error that names the
/// place (`file:line:column`), the field path and what to write instead.
extension ConfigParser {
  /// `file:line:column` of a node.
  func location(of node: Node) -> (String, Int, Int) {
    let (line, column) = YAMLProblem.position(of: node)
    return ("\(file):\(line):\(column)", line, column)
  }

  /// Records an error at a node.
  mutating func error(_ node: Node, _ field: String, _ message: String) {
    let (location, line, column) = location(of: node)
    found.append((line, column, InputError(location: location, field: field, message: message)))
  }

  /// Records an error at a line and column.
  mutating func error(line: Int, column: Int, _ field: String, _ message: String) {
    let line = max(line, 1)
    let column = max(column, 1)
    found.append((line, column, InputError(location: "\(file):\(line):\(column)", field: field, message: message)))
  }

  /// Records a Yams error at the place it names; a duplicated key is the error's field.
  mutating func yamlError(_ error: any Error, text: String) {
    let problem = YAMLProblem(error, text: text, displayKey: { DisplayText.excerpt($0) })
    self.error(line: problem.line, column: problem.column, problem.duplicateKeys.first ?? "", problem.message)
  }

  /// `path.key`, or `key` at the top.
  func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

  /// Whether a node is YAML's null (an empty value, `~` or `null`).
  func isNull(_ node: Node) -> Bool {
    guard let scalar = node.scalar, scalar.style == .plain || scalar.style == .any else { return false }
    return ["", "~", "null", "Null", "NULL"].contains(scalar.string)
  }

  private func kind(_ node: Node) -> String {
    switch node {
    case .mapping: "a mapping"
    case .sequence: "a list"
    case .scalar(let scalar): "'\(DisplayText.excerpt(scalar.string))'"
    case .alias: "an alias"
    }
  }

  /// The entries of a mapping, or nil (with an error) for anything else.
  mutating func mapping(_ node: Node, _ field: String, example: String) -> [YAMLEntry]? {
    guard let mapping = node.mapping else {
      let what = field.isEmpty ? "the file" : field
      error(node, field, "\(what) must be a mapping of \(example), not \(kind(node))")
      return nil
    }
    var entries: [YAMLEntry] = []
    for (key, value) in mapping {
      guard let text = key.scalar?.string else {
        error(key, field, "keys must be plain words, not lists or mappings")
        continue
      }
      entries.append(YAMLEntry(key: text, keyNode: key, value: value))
    }
    return entries
  }

  /// The items of a list, or nil (with an error) for anything else.
  mutating func sequence(_ node: Node, _ field: String, example: String) -> [Node]? {
    guard let sequence = node.sequence else {
      error(node, field, "\(field) must be \(example), not \(kind(node))")
      return nil
    }
    return Array(sequence)
  }

  /// The items of a list of named mappings (`sources:`, `sip.accounts:`), each read by `read` after its keys are
  /// checked against `allowed`, each name used once (`noun` says what the item is, in the error). `extra` checks
  /// more of an item (given its index and path). Nil (with errors recorded) when any is wrong.
  mutating func namedItems<Item>(
    _ node: Node, _ path: String, noun: String, example: (list: String, item: String), allowed: [String],
    name: (Item) -> String, read: (inout Self, [YAMLEntry], Node, String) -> Item?,
    extra: (inout Self, Item, _ index: Int, [YAMLEntry], Node, String) -> Bool = { _, _, _, _, _, _ in true }
  ) -> [Item]? {
    guard let items = sequence(node, path, example: example.list) else { return nil }
    var result: [Item] = []
    var seen: [String: Int] = [:]
    var valid = true
    for (index, item) in items.enumerated() {
      let itemPath = "\(path)[\(index)]"
      guard let fields = mapping(item, itemPath, example: example.item) else {
        valid = false
        continue
      }
      checkKeys(fields, allowed: allowed, itemPath)
      guard let value = read(&self, fields, item, itemPath) else {
        valid = false
        continue
      }
      let itemName = name(value)
      if let first = seen[itemName] {
        error(
          fields.value("name") ?? item, "\(itemPath).name",
          "\(noun) name '\(DisplayText.excerpt(itemName))' is already used by \(path)[\(first)]; names must be unique")
        valid = false
      }
      if !extra(&self, value, index, fields, item, itemPath) { valid = false }
      seen[itemName] = index
      result.append(value)
    }
    return valid ? result : nil
  }

  /// Records an error for every key not in `allowed`, suggesting the closest allowed key.
  mutating func checkKeys(_ entries: [YAMLEntry], allowed: [String], _ path: String) {
    for entry in entries where !allowed.contains(entry.key) {
      let hint =
        Suggestion.closest(to: entry.key, in: allowed).map { "did you mean '\(DisplayText.excerpt($0))'?" }
        ?? "expected one of \(allowed.joined(separator: ", "))"
      let place = path.isEmpty ? "at the top" : "in \(path)"
      error(entry.keyNode, join(path, entry.key), "unknown key '\(DisplayText.excerpt(entry.key))' \(place); \(hint)")
    }
  }

  /// The text of a scalar, or nil (with an error) for a list or mapping.
  mutating func text(_ node: Node, _ field: String) -> String? {
    guard let scalar = node.scalar else {
      error(node, field, "must be a single value, not \(kind(node))")
      return nil
    }
    return scalar.string
  }

  /// The text of a scalar that is not empty or null.
  mutating func nonEmptyText(_ node: Node, _ field: String) -> String? {
    guard let text = text(node, field) else { return nil }
    guard !isNull(node), !text.trimmingWhitespace().isEmpty else {
      error(node, field, "is empty; give a value or remove the key")
      return nil
    }
    return text
  }

  /// `true`/`false` (also `yes`/`no`, `on`/`off`).
  mutating func bool(_ node: Node, _ field: String) -> Bool? {
    guard let text = text(node, field) else { return nil }
    switch text.lowercased() {
    case "true", "yes", "on": return true
    case "false", "no", "off": return false
    default:
      error(node, field, "'\(DisplayText.excerpt(text))' is not true or false")
      return nil
    }
  }

  /// A whole number in `range`.
  mutating func integer(_ node: Node, _ field: String, in range: ClosedRange<Int>) -> Int? {
    guard let text = nonEmptyText(node, field) else { return nil }
    guard let value = Int(text), range.contains(value) else {
      error(
        node, field,
        "'\(DisplayText.excerpt(text))' is not a whole number from \(range.lowerBound) to \(range.upperBound)")
      return nil
    }
    return value
  }

  /// A duration, in milliseconds with the text as written (for messages such as "cap 45s is above ...").
  mutating func duration(_ node: Node, _ field: String) -> (ms: UInt64, text: String)? {
    guard let text = nonEmptyText(node, field) else { return nil }
    guard let ms = Durations.milliseconds(text) else {
      error(
        node, field,
        "'\(DisplayText.excerpt(text))' is not a duration; write e.g. 30s, 2500ms or 3m (a bare number is seconds)")
      return nil
    }
    return (ms, text)
  }

  /// One of a fixed set of words, with a suggestion when it is close to one.
  mutating func choice<Value>(_ node: Node, _ field: String, _ options: [(String, Value)]) -> Value? {
    guard let text = nonEmptyText(node, field) else { return nil }
    if let match = options.first(where: { $0.0 == text }) { return match.1 }
    let names = options.map(\.0)
    error(
      node, field,
      "'\(DisplayText.excerpt(text))' is not one of \(names.joined(separator: ", "))\(Suggestion.hint(for: text, in: names))"
    )
    return nil
  }

  /// A list of single values with their nodes.
  mutating func stringList(_ node: Node, _ field: String, example: String) -> [(text: String, node: Node)]? {
    guard let items = sequence(node, field, example: "a list such as \(example)") else { return nil }
    var result: [(String, Node)] = []
    for (index, item) in items.enumerated() {
      if let text = nonEmptyText(item, "\(field)[\(index)]") { result.append((text, item)) }
    }
    return result.count == items.count ? result : nil
  }

  /// A pattern: a slot number of the boards' table, or a name.
  mutating func patternReference(_ node: Node, _ field: String) -> PatternReference? {
    guard let text = nonEmptyText(node, field) else { return nil }
    if text.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) {
      guard let slot = Int(text), slot < PatternTable.maxSlots else {
        error(node, field, "slot \(text) is out of range; a table has slots 0-\(PatternTable.maxSlots - 1)")
        return nil
      }
      return .slot(UInt8(slot))
    }
    patternNameUses.append(PatternNameUse(name: text, location: location(of: node).0, field: field))
    return .named(text)
  }

  /// A file path: `~` is the home directory, and a relative path is relative to the config file's folder.
  mutating func path(_ node: Node, _ field: String) -> String? {
    guard let text = nonEmptyText(node, field) else { return nil }
    if text == "~" { return DaemonConfiguration.homeDirectory(environment: environment) }
    if text.hasPrefix("~/") {
      return DaemonConfiguration.homeDirectory(environment: environment) + "/" + text.dropFirst(2)
    }
    if text.hasPrefix("/") { return text }
    guard let slash = file.lastIndex(of: "/") else { return text }
    return String(file[...slash]) + text
  }
}
