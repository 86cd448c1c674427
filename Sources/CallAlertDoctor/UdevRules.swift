#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A small udev rules matcher: enough of udev(7) to tell what a rules file does to a device (the keys
/// CallAlert's rule and rules like it use), so the rule is tested without a kernel device and
/// `callalert doctor` can say whether the installed rule covers the board.
///
/// Understood: `ACTION`, `SUBSYSTEM`, `KERNEL`, `DRIVER`, `ATTR{}`, `ENV{}`, `TAG` and the parent keys
/// `SUBSYSTEMS`, `KERNELS`, `DRIVERS`, `ATTRS{}` (all of a rule's parent keys must match one and the same
/// device of the chain) with `==` and `!=`, globs (`*`, `?`, `[…]`, `|`); assignments `ENV{}=`, `TAG+=`,
/// `GROUP=`, `OWNER=`, `MODE=`, `SYMLINK+=` with `$attr{}`, `$env{}`, `%k`, `$kernel`; `GOTO` and
/// `LABEL`. Other keys (`RUN`, `IMPORT`, `TEST`, …) are ignored: a rule using them is evaluated on the rest.
public struct UdevRules: Equatable, Sendable {
  /// One `KEY op "value"` of a rule.
  public struct Entry: Equatable, Sendable {
    /// The key, e.g. `ATTRS{idVendor}`.
    public var key: String
    /// `==`, `!=`, `=`, `+=`, `-=` or `:=`.
    public var operation: String
    /// The value, without its quotes.
    public var value: String
  }

  /// A rule (one line, continuations joined) and where it is.
  public struct Rule: Equatable, Sendable {
    /// Its line number in the file.
    public var line: Int
    /// Its entries in order.
    public var entries: [Entry]
  }

  /// What the rules did to a device.
  public struct Outcome: Equatable, Sendable {
    /// The properties after the rules (`ENV{ID_MM_DEVICE_IGNORE}` …).
    public var properties: [String: String]
    /// Tags added (`uaccess`, …).
    public var tags: [String] = []
    /// Links under /dev (`callalert/CA-0042`).
    public var symlinks: [String] = []
    /// `GROUP=`, when set.
    public var group: String?
    /// `OWNER=`, when set.
    public var owner: String?
    /// `MODE=`, when set.
    public var mode: String?
    /// The line numbers of the rules that matched.
    public var matchedLines: [Int] = []
  }

  /// The rules in file order.
  public var rules: [Rule]
  /// Lines that could not be read, as `line: text`.
  public var unreadable: [String]

  /// Parses rules text: comments and blank lines skipped, `\` continuations joined.
  public init(text: String) {
    rules = []
    unreadable = []
    var pending = ""
    var pendingLine = 0
    for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      var line = String(rawLine.trimmingWhitespace())
      if pending.isEmpty {
        pendingLine = index + 1
        if line.isEmpty || line.hasPrefix("#") { continue }
      }
      if line.hasSuffix("\\") {
        line.removeLast()
        pending += line + " "
        continue
      }
      pending += line
      if let entries = Self.entries(pending) {
        rules.append(Rule(line: pendingLine, entries: entries))
      } else {
        unreadable.append("\(pendingLine): \(pending)")
      }
      pending = ""
    }
  }

  /// Runs the rules on `device` for an event `action` (`add`, `change`, `remove`…).
  public func evaluate(_ device: UdevDevice, action: String = "add") -> Outcome {
    var outcome = Outcome(properties: device.properties)
    var skippingTo: String?
    for rule in rules {
      if let label = skippingTo {
        if rule.entries.contains(where: { $0.key == "LABEL" && $0.value == label }) { skippingTo = nil }
        continue
      }
      guard let parent = match(rule, device: device, action: action, properties: outcome.properties) else { continue }
      outcome.matchedLines.append(rule.line)
      for entry in rule.entries {
        apply(entry, to: &outcome, device: device, parent: parent, skippingTo: &skippingTo)
      }
    }
    return outcome
  }

  /// The index in the chain the rule's parent keys matched (0 when it has none), or nil: no match.
  private func match(_ rule: Rule, device: UdevDevice, action: String, properties: [String: String]) -> Int? {
    let node = device.chain.first ?? UdevDevice.Node(kernel: "", subsystem: "")
    for entry in rule.entries where entry.operation == "==" || entry.operation == "!=" {
      let actual: String?
      switch entry.key {
      case "ACTION": actual = action
      case "SUBSYSTEM": actual = node.subsystem
      case "KERNEL": actual = node.kernel
      case "DRIVER": actual = node.driver
      case "TAG": actual = nil
      default:
        if let name = Self.argument(entry.key, "ENV") {
          actual = properties[name] ?? ""
        } else if let name = Self.argument(entry.key, "ATTR") {
          actual = node.attributes[name] ?? ""
        } else {
          continue  // a parent key (below) or one this matcher does not know
        }
      }
      guard let actual else { continue }
      if Self.glob(entry.value, matches: actual) != (entry.operation == "==") { return nil }
    }
    let parentKeys = rule.entries.filter {
      ($0.operation == "==" || $0.operation == "!=")
        && (["SUBSYSTEMS", "KERNELS", "DRIVERS"].contains($0.key) || Self.argument($0.key, "ATTRS") != nil)
    }
    if parentKeys.isEmpty { return 0 }
    return device.chain.indices.first { index in
      let candidate = device.chain[index]
      return parentKeys.allSatisfy { entry in
        let actual: String? =
          switch entry.key {
          case "SUBSYSTEMS": candidate.subsystem
          case "KERNELS": candidate.kernel
          case "DRIVERS": candidate.driver
          default: candidate.attributes[Self.argument(entry.key, "ATTRS") ?? ""]
          }
        // udev: ATTRS{x}=="…" does not match a device without x; != matches it.
        guard let actual else { return entry.operation == "!=" }
        return Self.glob(entry.value, matches: actual) == (entry.operation == "==")
      }
    }
  }

  private func apply(
    _ entry: Entry, to outcome: inout Outcome, device: UdevDevice, parent: Int, skippingTo: inout String?
  ) {
    guard entry.operation != "==" && entry.operation != "!=" else { return }
    let value = substitute(entry.value, device: device, parent: parent, properties: outcome.properties)
    switch entry.key {
    case "GOTO": skippingTo = entry.value
    case "GROUP": outcome.group = value
    case "OWNER": outcome.owner = value
    case "MODE": outcome.mode = value
    case "TAG":
      if entry.operation == "-=" {
        outcome.tags.removeAll { $0 == value }
      } else {
        if entry.operation == "=" || entry.operation == ":=" { outcome.tags = [] }
        if !outcome.tags.contains(value) { outcome.tags.append(value) }
      }
    case "SYMLINK":
      if entry.operation == "=" || entry.operation == ":=" { outcome.symlinks = [] }
      if entry.operation != "-=" { outcome.symlinks += value.split(separator: " ").map(String.init) }
    default:
      if let name = Self.argument(entry.key, "ENV") { outcome.properties[name] = value }
    }
  }

  /// `$attr{x}` (the device's, else the matched parent's), `$env{x}`, `%k`/`$kernel`, `%%`, `$$`.
  private func substitute(_ value: String, device: UdevDevice, parent: Int, properties: [String: String]) -> String {
    guard value.contains("$") || value.contains("%") else { return value }
    var result = ""
    var rest = Substring(value)
    func take(_ prefix: String) -> Bool {
      guard rest.hasPrefix(prefix) else { return false }
      rest = rest.dropFirst(prefix.count)
      return true
    }
    func braced() -> String {
      guard rest.first == "{", let close = rest.firstIndex(of: "}") else { return "" }
      defer { rest = rest[rest.index(after: close)...] }
      return String(rest[rest.index(after: rest.startIndex)..<close])
    }
    while let first = rest.first {
      if take("$attr") || take("%s") {
        let name = braced()
        let nodes = [device.chain.first, device.chain.indices.contains(parent) ? device.chain[parent] : nil]
        result += nodes.lazy.compactMap { $0?.attributes[name] }.first ?? ""
      } else if take("$env") || take("%E") {
        result += properties[braced()] ?? ""
      } else if take("$kernel") || take("%k") {
        result += device.chain.first?.kernel ?? ""
      } else if take("$$") || take("%%") {
        result.append(first)
      } else {
        result.append(first)
        rest = rest.dropFirst()
      }
    }
    return result
  }

  /// `ENV{NAME}` with `kind` ENV gives `NAME`; nil for other keys.
  static func argument(_ key: String, _ kind: String) -> String? {
    guard key.hasPrefix(kind + "{"), key.hasSuffix("}") else { return nil }
    return String(key.dropFirst(kind.count + 1).dropLast())
  }

  /// udev's patterns: shell globs, alternatives separated by `|`.
  static func glob(_ pattern: String, matches value: String) -> Bool {
    pattern.split(separator: "|", omittingEmptySubsequences: false).contains { fnmatch(String($0), value, 0) == 0 }
  }

  /// `NAME` or `NAME{argument}`, NAME in capitals.
  private static func isKey(_ key: Substring) -> Bool {
    let name = key.prefix { $0 != "{" }
    guard !name.isEmpty, name.allSatisfy({ ($0.isLetter && $0.isUppercase) || $0 == "_" }) else { return false }
    let argument = key.dropFirst(name.count)
    return argument.isEmpty || (argument.hasPrefix("{") && argument.hasSuffix("}") && argument.count > 2)
  }

  /// Splits `KEY op "value", …`; nil when the line is not in that form.
  static func entries(_ line: String) -> [Entry]? {
    var entries: [Entry] = []
    var rest = Substring(line)
    while true {
      rest = rest.trimmingWhitespace()
      while rest.first == "," { rest = rest.dropFirst().trimmingWhitespace() }
      if rest.isEmpty { break }
      guard let quote = rest.firstIndex(of: "\"") else { return nil }
      let head = rest[..<quote].trimmingWhitespace()
      var operation = ""
      for candidate in ["==", "!=", "+=", "-=", ":=", "="] where head.hasSuffix(candidate) {
        operation = candidate
        break
      }
      guard !operation.isEmpty else { return nil }
      let key = head.dropLast(operation.count).trimmingWhitespace()
      let afterQuote = rest.index(after: quote)
      guard isKey(key), let close = rest[afterQuote...].firstIndex(of: "\"") else { return nil }
      entries.append(Entry(key: String(key), operation: operation, value: String(rest[afterQuote..<close])))
      rest = rest[rest.index(after: close)...]
    }
    return entries.isEmpty ? nil : entries
  }
}
