import CallAlertProtocol

/// Writes a pattern table as a pattern file with explicit steps.
///
/// The output is exact, not pretty: one written step per wire step, every value as a number, the
/// slot of every pattern and the slot count when it cannot be inferred, so that compiling the output
/// gives the same table byte for byte. Values equal to the parser's defaults are left out to keep it
/// readable (`volume` is 255 for a sounding step and 0 for a silent one; `hz`, `motor`, `led` are 0).
enum PatternDecompiler {
  static func yaml(for table: PatternTable) -> String {
    let bytes = table.encoded()
    let crc = bytes.suffix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    var lines: [String] = [
      "# CallAlert pattern table, decompiled: version \(table.version), "
        + "\(table.slots.count) slot\(table.slots.count == 1 ? "" : "s"), \(bytes.count) bytes, CRC-32C 0x\(hex(crc)).",
      "# Compiling this file gives the same table, byte for byte.",
      "version: \(table.version)",
    ]
    let highest = table.slots.lastIndex { $0 != nil }
    if highest.map({ $0 + 1 }) != table.slots.count { lines.append("slots: \(table.slots.count)") }
    guard highest != nil else {
      lines.append("patterns: []")
      return lines.joined(separator: "\n") + "\n"
    }
    lines.append("patterns:")
    for (slot, entry) in table.slots.enumerated() {
      guard let entry else { continue }
      let pattern = entry.pattern
      lines.append("  - name: \(quoted(entry.name))")
      lines.append("    slot: \(slot)")
      let length = pattern.totalDurationMs.map { "\($0) ms" } ?? "a \(pattern.loopDurationMs) ms loop until the cap"
      lines.append("    # \(pattern.steps.count) step\(pattern.steps.count == 1 ? "" : "s"), \(length)")
      switch pattern.repeatCount {
      case 0: break
      case Pattern.repeatForever: lines.append("    repeat: forever")
      default: lines.append("    repeat: \(pattern.repeatCount)")
      }
      if pattern.loopStart != 0 { lines.append("    loop_from: \(pattern.loopStart)") }
      lines.append("    steps:")
      for step in pattern.steps { lines.append("      - \(flow(step))") }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// A step as a flow mapping, leaving out values the parser would supply.
  static func flow(_ step: PatternStep) -> String {
    var fields = ["ms: \(step.durationMs)"]
    if step.buzzerHz != 0 { fields.append("hz: \(step.buzzerHz)") }
    let defaultVolume: UInt8 = step.buzzerHz == 0 ? 0 : 255
    if step.buzzerVolume != defaultVolume { fields.append("volume: \(step.buzzerVolume)") }
    if step.motor != 0 { fields.append("motor: \(step.motor)") }
    if step.leds == 1 {
      fields.append("led: on")
    } else if step.leds != 0 {
      let numbers = (0..<8).filter { step.leds & (1 << $0) != 0 }.map(String.init).joined(separator: ", ")
      fields.append("led: [\(numbers)]")
    }
    return "{ " + fields.joined(separator: ", ") + " }"
  }

  /// A name as a double-quoted YAML string: names are printable ASCII, so only `"` and `\` need escapes.
  static func quoted(_ name: [UInt8]) -> String {
    var text = "\""
    for byte in name {
      switch byte {
      case UInt8(ascii: "\""): text += "\\\""
      case UInt8(ascii: "\\"): text += "\\\\"
      case 0x20...0x7E: text.unicodeScalars.append(Unicode.Scalar(byte))
      default: text += "\\x" + hex(UInt32(byte), digits: 2)
      }
    }
    return text + "\""
  }

  static func hex(_ value: UInt32, digits: Int = 8) -> String {
    let text = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, digits - text.count)) + text
  }
}
