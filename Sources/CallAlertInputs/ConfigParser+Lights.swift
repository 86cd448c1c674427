import CallAlertEngine
import CallAlertLights
import CallAlertText
import CallAlertValues
internal import Yams

extension ConfigParser {
  /// A board's `kind:` and, for a light, how it shows calls: `color:`, `ringtone:`, `volume:`,
  /// `indicator_color:` and `patterns:` (a pattern's own `color:` and `ringtone:`, by pattern name), and
  /// `timeline:` (where it records its reports when virtual, `run --simulate`). Returns
  /// false when any of them is wrong (each error recorded with its place).
  mutating func lightFields(_ fields: [YAMLEntry], _ path: String, into board: inout AlertBoard) -> Bool {
    var valid = true
    if let kindNode = fields.value("kind") {
      if let kind = choice(kindNode, "\(path).kind", BoardKind.names) { board.kind = kind } else { valid = false }
    }
    let lightKeys = ["color", "ringtone", "volume", "indicator_color", "patterns", "timeline"]
    guard let lightKind = board.kind.lightKind else {
      for entry in fields where lightKeys.contains(entry.key) {
        error(
          entry.keyNode, "\(path).\(entry.key)",
          "'\(entry.key)' is for lights; add 'kind:' (\(LightKind.allCases.map(\.rawValue).joined(separator: ", ")))")
        valid = false
      }
      return valid
    }
    if let node = fields.value("color") {
      if let color = lightColor(node, "\(path).color") { board.light.color = color } else { valid = false }
    }
    if let node = fields.value("indicator_color") {
      if let color = lightColor(node, "\(path).indicator_color") {
        board.light.indicatorColor = color
      } else {
        valid = false
      }
    }
    if let node = fields.value("ringtone") {
      if let ringtone = ringtone(node, "\(path).ringtone", kind: lightKind) {
        board.light.ringtone = ringtone
      } else {
        valid = false
      }
    }
    if let node = fields.value("volume") {
      if let volume = integer(node, "\(path).volume", in: 0...Int(KuandoSound.maximumVolume)) {
        board.light.volume = UInt8(volume)
      } else {
        valid = false
      }
    }
    if let node = fields.value("timeline") {
      board.timeline = nonEmptyText(node, "\(path).timeline")
      if board.timeline == nil { valid = false }
    }
    if let node = fields.value("patterns") {
      if let looks = patternLooks(node, "\(path).patterns", kind: lightKind) {
        board.light.patterns = looks
      } else {
        valid = false
      }
    }
    return valid
  }

  /// A colour: a name (`red`) or `#rrggbb`.
  private mutating func lightColor(_ node: Node, _ field: String) -> LightColor? {
    guard let text = nonEmptyText(node, field) else { return nil }
    if let color = LightColor(text: text) { return color }
    let names = LightColor.named.map(\.name)
    error(
      node, field,
      "'\(DisplayText.excerpt(text))' is not a colour\(Suggestion.hint(for: text, in: names)); write one of "
        + "\(names.joined(separator: ", ")) or #rrggbb")
    return nil
  }

  /// A Kuando ringtone by name; an error on a light that plays none.
  private mutating func ringtone(_ node: Node, _ field: String, kind: LightKind) -> KuandoRingtone? {
    guard kind.playsSound else {
      error(node, field, "a \(kind.displayName) plays no sound; only a Kuando (kind: kuando) has ringtones")
      return nil
    }
    return choice(node, field, KuandoRingtone.allCases.map { ($0.name, $0) })
  }

  /// `patterns:` as a mapping of pattern names to `color:` and `ringtone:`.
  private mutating func patternLooks(_ node: Node, _ field: String, kind: LightKind) -> [LightAppearance.PatternLook]? {
    guard let entries = mapping(node, field, example: "'office: {color: blue, ringtone: quiet}'") else { return nil }
    var looks: [LightAppearance.PatternLook] = []
    var valid = true
    for entry in entries {
      let path = "\(field).\(entry.key)"
      guard let fields = mapping(entry.value, path, example: "'color: blue' and 'ringtone: quiet'") else {
        valid = false
        continue
      }
      checkKeys(fields, allowed: ["color", "ringtone"], path)
      var look = LightAppearance.PatternLook(pattern: entry.key)
      if let colorNode = fields.value("color") {
        look.color = lightColor(colorNode, "\(path).color")
        if look.color == nil { valid = false }
      }
      if let toneNode = fields.value("ringtone") {
        look.ringtone = ringtone(toneNode, "\(path).ringtone", kind: kind)
        if look.ringtone == nil { valid = false }
      }
      patternNameUses.append(PatternNameUse(name: entry.key, location: location(of: entry.keyNode).0, field: path))
      looks.append(look)
    }
    return valid ? looks : nil
  }
}
