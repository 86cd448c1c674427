import CallAlertProtocol

extension PatternRenderer {
  /// An SVG chart of a definition, titled with its name and source.
  public static func svg(_ definition: PatternDefinition, width: Int = 800) -> String {
    let source: String
    switch definition.source {
    case .steps: source = "steps"
    case .cadence(let cadence): source = "cadence \(cadence.rawValue) (\(cadence.country))"
    case .rtttl(let name): source = "RTTTL '\(name)'"
    case .vibration(let name): source = name.map { "vibration \($0)" } ?? "vibration waveform"
    }
    return svg(definition.pattern, title: "\(definition.name): \(source)", width: width)
  }

  /// An SVG chart: the buzzer's frequency as a step plot (Hz), the motor's intensity (%) and the LEDs
  /// against time (ms, with ticks), over the alert's first 30 s at most. Deterministic output.
  public static func svg(_ pattern: Pattern, title: String, width: Int = 800) -> String {
    let timeline = PatternTimeline(pattern)
    let layout = SVGLayout(width: max(width, 200), lengthMs: max(timeline.lengthMs, 1), peakHz: peakHz(timeline))
    var svg = SVGWriter()
    svg.open(
      "svg",
      [
        ("xmlns", "http://www.w3.org/2000/svg"), ("width", "\(layout.width)"), ("height", "\(layout.height)"),
        ("viewBox", "0 0 \(layout.width) \(layout.height)"), ("font-family", "sans-serif"), ("font-size", "11"),
      ])
    svg.element("title", [], escape(title))
    svg.element("rect", [("width", "\(layout.width)"), ("height", "\(layout.height)"), ("fill", "white")])
    svg.element(
      "text", [("x", "\(layout.left)"), ("y", "20"), ("font-size", "13"), ("font-weight", "bold")], escape(title))
    let cut = timeline.isCut ? " (cut at the \(timeline.capMs) ms cap)" : ""
    svg.element(
      "text", [("x", "\(layout.width - layout.right)"), ("y", "20"), ("text-anchor", "end")],
      "\(timeline.lengthMs) ms\(cut)")

    // Buzzer lane: gridlines at 0, half and the top, labelled in Hz, then the step plot.
    for hz in [0, layout.maxHz / 2, layout.maxHz] {
      svg.gridline(layout, y: layout.hzY(hz), label: "\(hz)")
    }
    svg.laneTitle("buzzer Hz", y: layout.buzzerTop + layout.buzzerHeight / 2)
    var buzzer = "M\(layout.x(0)),\(layout.hzY(0))"
    var last = 0
    for segment in timeline.segments {
      let hz = segment.step.isAudible ? Int(segment.step.buzzerHz) : 0
      if hz != last { buzzer += " H\(layout.x(segment.startMs)) V\(layout.hzY(hz))" }
      last = hz
    }
    svg.path(buzzer + " H\(layout.x(timeline.lengthMs))", color: "#1f77b4")

    // Motor lane: 0 and 100 %, then the step plot.
    for level in [0, 255] {
      svg.gridline(layout, y: layout.motorY(level), label: level == 0 ? "0" : "100")
    }
    svg.laneTitle("motor %", y: layout.motorTop + layout.motorHeight / 2)
    var motor = "M\(layout.x(0)),\(layout.motorY(0))"
    last = 0
    for segment in timeline.segments {
      let level = Int(segment.step.motor)
      if level != last { motor += " H\(layout.x(segment.startMs)) V\(layout.motorY(level))" }
      last = level
    }
    svg.path(motor + " H\(layout.x(timeline.lengthMs))", color: "#ff7f0e")

    // LED lane: a bar while any LED is lit, with the LED numbers as a tooltip.
    svg.element(
      "text",
      [
        ("x", "\(layout.left - 6)"), ("y", "\(layout.ledTop + layout.ledHeight / 2)"), ("text-anchor", "end"),
        ("dominant-baseline", "middle"),
      ], "LED")
    for segment in timeline.segments where segment.step.leds != 0 {
      let bits = (0..<8).filter { segment.step.leds & (1 << $0) != 0 }.map(String.init).joined(separator: ",")
      svg.element(
        "rect",
        [
          ("x", layout.x(segment.startMs)), ("y", "\(layout.ledTop)"), ("width", layout.width(segment.durationMs)),
          ("height", "\(layout.ledHeight)"), ("fill", "#2ca02c"),
        ], "<title>LED \(bits)</title>")
    }

    // Time axis, ticks every 1, 2 or 5 × 10ⁿ ms, labelled in ms.
    let axis = "\(layout.axisY)"
    svg.element(
      "line",
      [
        ("x1", "\(layout.left)"), ("y1", axis), ("x2", "\(layout.left + layout.plotWidth)"), ("y2", axis),
        ("stroke", "black"),
      ])
    let tick = niceStep(layout.lengthMs, maxTicks: 10)
    for time in stride(from: 0, through: timeline.lengthMs, by: tick) {
      let x = layout.x(time)
      svg.element("line", [("x1", x), ("y1", axis), ("x2", x), ("y2", "\(layout.axisY + 5)"), ("stroke", "black")])
      svg.element("text", [("x", x), ("y", "\(layout.axisY + 17)"), ("text-anchor", "middle")], "\(time)")
    }
    svg.element(
      "text", [("x", "\(layout.left + layout.plotWidth)"), ("y", "\(layout.axisY + 32)"), ("text-anchor", "end")], "ms")
    svg.close("svg")
    return svg.text
  }

  private static func peakHz(_ timeline: PatternTimeline) -> Int {
    timeline.segments.filter(\.step.isAudible).map { Int($0.step.buzzerHz) }.max() ?? 0
  }
}

/// Where the chart's parts go, in SVG user units.
private struct SVGLayout {
  let width: Int
  let lengthMs: Int
  let maxHz: Int
  let left = 64
  let right = 24
  let buzzerTop = 40
  let buzzerHeight = 120
  let motorHeight = 50
  let ledHeight = 10

  init(width: Int, lengthMs: Int, peakHz: Int) {
    self.width = width
    self.lengthMs = lengthMs
    // The Hz axis ends at a round number at or above the highest tone (at least 100 Hz).
    maxHz = PatternRenderer.niceCeiling(max(peakHz, 100))
  }

  var plotWidth: Int { width - left - right }
  var motorTop: Int { buzzerTop + buzzerHeight + 24 }
  var ledTop: Int { motorTop + motorHeight + 16 }
  var axisY: Int { ledTop + ledHeight + 10 }
  var height: Int { axisY + 40 }

  func x(_ ms: Int) -> String {
    PatternRenderer.number(Double(left) + Double(ms) * Double(plotWidth) / Double(lengthMs))
  }
  func width(_ ms: Int) -> String { PatternRenderer.number(Double(ms) * Double(plotWidth) / Double(lengthMs)) }

  func hzY(_ hz: Int) -> String {
    PatternRenderer.number(Double(buzzerTop + buzzerHeight) - Double(hz) * Double(buzzerHeight) / Double(maxHz))
  }

  func motorY(_ level: Int) -> String {
    PatternRenderer.number(Double(motorTop + motorHeight) - Double(level) * Double(motorHeight) / 255)
  }
}

/// Appends SVG elements, one per line, attributes in the order given (so the output is stable).
private struct SVGWriter {
  private(set) var text = ""

  private static func tag(_ name: String, _ attributes: [(String, String)]) -> String {
    ([name] + attributes.map { "\($0.0)=\"\($0.1)\"" }).joined(separator: " ")
  }

  mutating func open(_ name: String, _ attributes: [(String, String)]) {
    text += "<\(SVGWriter.tag(name, attributes))>\n"
  }

  mutating func close(_ name: String) {
    text += "</\(name)>\n"
  }

  /// An element; `content` is inserted as is (escape text first).
  mutating func element(_ name: String, _ attributes: [(String, String)], _ content: String? = nil) {
    if let content {
      text += "<\(SVGWriter.tag(name, attributes))>\(content)</\(name)>\n"
    } else {
      text += "<\(SVGWriter.tag(name, attributes))/>\n"
    }
  }

  fileprivate mutating func gridline(_ layout: SVGLayout, y: String, label: String) {
    element(
      "line",
      [("x1", "\(layout.left)"), ("y1", y), ("x2", "\(layout.left + layout.plotWidth)"), ("y2", y), ("stroke", "#ddd")])
    element(
      "text", [("x", "\(layout.left - 6)"), ("y", y), ("text-anchor", "end"), ("dominant-baseline", "middle")], label)
  }

  mutating func laneTitle(_ title: String, y: Int) {
    element(
      "text", [("x", "12"), ("y", "\(y)"), ("transform", "rotate(-90 12 \(y))"), ("text-anchor", "middle")], title)
  }

  mutating func path(_ data: String, color: String) {
    element("path", [("d", data), ("fill", "none"), ("stroke", color), ("stroke-width", "1.5")])
  }
}
