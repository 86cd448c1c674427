import CallAlertText
import CallAlertValues
internal import Yams

/// The `push_rules:` section.
extension ConfigParser {
  /// The keys of a push rule.
  static let pushRuleKeys = ["match", "kind", "id", "caller", "name", "sent_at", "level", "pattern"]

  mutating func pushRules(_ node: Node) -> [PushRule]? {
    guard let items = sequence(node, "push_rules", example: "a list of rules such as '- match: {event: ring}'") else {
      return nil
    }
    var rules: [PushRule] = []
    for (index, item) in items.enumerated() {
      let path = "push_rules[\(index)]"
      guard let fields = mapping(item, path, example: "'match:', 'kind:' and 'id:'") else { continue }
      checkKeys(fields, allowed: ConfigParser.pushRuleKeys, path)
      let match = fields.value("match").map { matches($0, "\(path).match") }
      if fields.value("match") == nil {
        error(
          item, "\(path).match",
          "a rule needs 'match:' (e.g. match: {event: ring}); without it, it would take every payload")
      }
      var kind: PushRule.Kind?
      if let kindNode = fields.value("kind") {
        kind = choice(kindNode, "\(path).kind", PushRule.Kind.allCases.map { ($0.rawValue, $0) })
      } else {
        error(item, "\(path).kind", "a rule needs 'kind: call' or 'kind: hangup'")
      }
      func optionalPath(_ key: String) -> JSONPath?? {
        guard let node = fields.value(key) else { return .some(nil) }
        return jsonPath(node, "\(path).\(key)").map { .some($0) }
      }
      // Without 'id:' the rule reads calls and hangups without an id, matched by caller (docs/PUSH.md).
      let id = optionalPath("id")
      let caller = optionalPath("caller")
      let name = optionalPath("name")
      let sentAt = optionalPath("sent_at")
      let level = optionalPath("level")
      let pattern = optionalPath("pattern")
      guard let match = match ?? nil, let kind, let id, let caller, let name, let sentAt, let level, let pattern
      else { continue }
      rules.append(
        PushRule(
          match: match, kind: kind, id: id, caller: caller, name: name, sentAt: sentAt, level: level, pattern: pattern))
    }
    return rules.count == items.count ? rules : nil
  }

  /// `match:`, either `{path: value, ...}` or `[{path: p, equals: v}, ...]`; at least one condition.
  private mutating func matches(_ node: Node, _ field: String) -> [PushRule.Match]? {
    var result: [PushRule.Match] = []
    var valid = true
    if node.mapping != nil {
      guard let entries = mapping(node, field, example: "conditions such as 'event: ring'") else { return nil }
      for entry in entries {
        let path = jsonPath(entry.keyNode, "\(field).\(entry.key)")
        let value = text(entry.value, "\(field).\(entry.key)")
        if let path, let value { result.append(PushRule.Match(path: path, equals: value)) } else { valid = false }
      }
    } else if let items = sequence(
      node, field, example: "a mapping such as {event: ring} or a list of {path:, equals:}")
    {
      for (index, item) in items.enumerated() {
        let itemField = "\(field)[\(index)]"
        guard let entries = mapping(item, itemField, example: "'path: event' and 'equals: ring'") else {
          valid = false
          continue
        }
        checkKeys(entries, allowed: ["path", "equals"], itemField)
        guard let pathNode = entries.value("path"), let equalsNode = entries.first(where: { $0.key == "equals" })?.value
        else {
          error(item, itemField, "a condition needs 'path:' and 'equals:'")
          valid = false
          continue
        }
        let path = jsonPath(pathNode, "\(itemField).path")
        let value = text(equalsNode, "\(itemField).equals")
        if let path, let value { result.append(PushRule.Match(path: path, equals: value)) } else { valid = false }
      }
    } else {
      return nil
    }
    if valid && result.isEmpty {
      error(node, field, "'match:' is empty; give at least one condition, e.g. {event: ring}")
      return nil
    }
    return valid ? result : nil
  }

  /// A path into a JSON payload.
  private mutating func jsonPath(_ node: Node, _ field: String) -> JSONPath? {
    guard let text = nonEmptyText(node, field) else { return nil }
    guard let path = JSONPath(text) else {
      error(node, field, "'\(DisplayText.excerpt(text))' is not a JSON path; write e.g. data.call.id or items[0].id")
      return nil
    }
    return path
  }
}
