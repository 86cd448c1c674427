import CallAlertProtocol

/// Draws a pattern as the board plays it within one alert (loops unrolled, cut at the 30 s cap): an SVG
/// chart for documents and a block-character strip for terminals.
public enum PatternRenderer {
  /// Per-column averages of a timeline.
  private struct Column {
    var audibleMs = 0
    var hzTimesMs = 0
    var motorTimesMs = 0
    var motorMs = 0
    var ledMs = 0
    var spanMs = 0
  }

  private static func columns(_ timeline: PatternTimeline, count: Int) -> [Column] {
    var columns = Array(repeating: Column(), count: count)
    let length = max(timeline.lengthMs, 1)
    for index in 0..<count {
      columns[index].spanMs = (index + 1) * length / count - index * length / count
    }
    for segment in timeline.segments {
      // Columns are [i × length / count, (i + 1) × length / count): visit those the segment overlaps.
      var column = segment.startMs * count / length
      while column < count {
        let start = column * length / count
        let end = (column + 1) * length / count
        if start >= segment.endMs { break }
        let overlap = min(end, segment.endMs) - max(start, segment.startMs)
        if overlap > 0 {
          if segment.step.isAudible {
            columns[column].audibleMs += overlap
            columns[column].hzTimesMs += overlap * Int(segment.step.buzzerHz)
          }
          columns[column].motorTimesMs += overlap * Int(segment.step.motor)
          if segment.step.motor != 0 { columns[column].motorMs += overlap }
          if segment.step.leds != 0 { columns[column].ledMs += overlap }
        }
        column += 1
      }
    }
    return columns
  }

  /// One line: a strip of `columns` characters, `▀` where the buzzer sounds, `▄` where the motor runs,
  /// `█` for both (each for at least half the column), then the time scale, e.g.
  /// `│██  ██        │ 0-6000 ms, 100 ms per column (▀ buzzer, ▄ motor)`.
  public static func terminalLine(_ pattern: Pattern, columns: Int = 60) -> String {
    let count = max(columns, 1)
    let timeline = PatternTimeline(pattern)
    var strip = ""
    for column in self.columns(timeline, count: count) {
      let buzzer = column.spanMs > 0 && column.audibleMs * 2 >= column.spanMs
      let motor = column.spanMs > 0 && column.motorMs * 2 >= column.spanMs
      strip += buzzer ? (motor ? "█" : "▀") : (motor ? "▄" : " ")
    }
    let cut = timeline.isCut ? ", cut at the cap" : ""
    return
      "│\(strip)│ 0-\(timeline.lengthMs) ms\(cut), "
      + "\(perColumn(timeline.lengthMs, count)) per column (▀ buzzer, ▄ motor)"
  }

  /// Three lines: the buzzer's pitch and the motor's intensity as bar heights (`▁` to `█`), and a time
  /// scale with ticks.
  public static func terminalLines(_ pattern: Pattern, columns: Int = 60) -> [String] {
    let count = max(columns, 1)
    let timeline = PatternTimeline(pattern)
    let stats = self.columns(timeline, count: count)
    let bars: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
    let maxHz = max(timeline.segments.filter(\.step.isAudible).map { Int($0.step.buzzerHz) }.max() ?? 1, 1)
    var buzzer = ""
    var motor = ""
    for column in stats {
      if column.spanMs > 0 && column.audibleMs * 2 >= column.spanMs {
        let hz = column.hzTimesMs / column.audibleMs
        buzzer.append(bars[max(0, min(7, (hz * 8 - 1) / maxHz))])
      } else {
        buzzer += " "
      }
      let intensity = column.spanMs > 0 ? column.motorTimesMs / column.spanMs : 0
      motor += intensity == 0 ? " " : String(bars[max(0, min(7, (intensity * 8 - 1) / 255))])
    }
    // The scale: a tick at each end and in the middle, labelled below in seconds.
    let middle = timeline.lengthMs / 2
    var ticks = Array(repeating: Character("─"), count: count)
    ticks[0] = "└"
    ticks[count - 1] = "┘"
    if count > 2 { ticks[count / 2] = "┴" }
    var labels = Array(repeating: Character(" "), count: count + 12)
    func place(_ text: String, at column: Int) {
      for (offset, character) in text.enumerated() where column + offset < labels.count {
        labels[column + offset] = character
      }
    }
    place(seconds(0), at: 0)
    if count > 20 { place(seconds(middle), at: count / 2 - seconds(middle).count / 2) }
    let end = seconds(timeline.lengthMs)
    place(end, at: max(count - end.count, count > 20 ? count / 2 + seconds(middle).count : 0))
    return [
      "buzzer │\(buzzer)│ up to \(maxHz == 1 ? 0 : maxHz) Hz",
      "motor  │\(motor)│ 0-100 %",
      "        \(String(ticks))",
      "        \(String(labels).trimmingTrailingWhitespace)",
    ]
  }

  private static func perColumn(_ length: Int, _ count: Int) -> String {
    let tenths = (length * 10 + count / 2) / count
    return tenths % 10 == 0 ? "\(tenths / 10) ms" : "\(tenths / 10).\(tenths % 10) ms"
  }

  private static func seconds(_ ms: Int) -> String {
    let tenths = (ms + 50) / 100
    return tenths % 10 == 0 ? "\(tenths / 10) s" : "\(tenths / 10).\(tenths % 10) s"
  }

  /// The smallest 1, 2 or 5 × 10ⁿ at or above `value`.
  static func niceCeiling(_ value: Int) -> Int {
    var magnitude = 1
    while true {
      for factor in [1, 2, 5] where factor * magnitude >= value { return factor * magnitude }
      magnitude *= 10
    }
  }

  /// The smallest 1, 2 or 5 × 10ⁿ step giving at most `maxTicks` intervals over `length`.
  static func niceStep(_ length: Int, maxTicks: Int) -> Int {
    niceCeiling(max(1, (length + maxTicks - 1) / maxTicks))
  }

  /// A coordinate with at most one decimal, the same on every platform.
  static func number(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    let sign = tenths < 0 ? "-" : ""
    let magnitude = abs(tenths)
    return magnitude % 10 == 0 ? "\(sign)\(magnitude / 10)" : "\(sign)\(magnitude / 10).\(magnitude % 10)"
  }

  static func escape(_ text: String) -> String {
    var result = ""
    for character in text {
      switch character {
      case "&": result += "&amp;"
      case "<": result += "&lt;"
      case ">": result += "&gt;"
      case "\"": result += "&quot;"
      default: result.append(character)
      }
    }
    return result
  }
}
