import Foundation

/// A latency measured in S series, each beside the C floor series measured just before and just after it (floor,
/// daemon, floor, daemon, ..., floor): the floor itself moves between series of one run, as the machine's other
/// work comes and goes, so each daemon series is compared with the mean of its two neighbours, and the ratios
/// are given as their spread over the series.
struct AgainstFloor: Sendable {
  /// One daemon series beside its neighbours.
  struct Series: Sendable {
    /// The daemon's values, ms.
    let samples: [Double]
    /// Their percentiles.
    var summary: Summary { Summary(samples) }
    /// The mean of the two adjacent floor series' p50 and p99, ms.
    let floorP50: Double
    let floorP99: Double

    var ratioP50: Double { summary.p50 / floorP50 }
    var ratioP99: Double { summary.p99 / floorP99 }

    var json: JSONValue {
      .object([
        ("summary", summary.json(unit: "ms")), ("adjacent_floor_p50_ms", .number(floorP50)),
        ("adjacent_floor_p99_ms", .number(floorP99)), ("over_adjacent_floor_p50", .number(ratioP50)),
        ("over_adjacent_floor_p99", .number(ratioP99)), ("samples_ms", .array(samples.map { .number($0) })),
      ])
    }
  }

  /// The daemon's series, in the order measured.
  let series: [Series]
  /// Every daemon value of every series.
  let pooled: Summary
  /// Every floor value of every floor series.
  let pooledFloor: Summary

  /// Pairs `daemon` (S series) with `floors` (S + 1 series, the first measured before the first daemon series);
  /// nil unless every floor series is there.
  init?(daemon: [[Double]], floors: [FloorBench.Figures?]) {
    let floors = floors.compactMap { $0 }
    guard !daemon.isEmpty, floors.count == daemon.count + 1 else { return nil }
    series = daemon.enumerated().map { index, samples in
      let before = floors[index].trip
      let after = floors[index + 1].trip
      return Series(samples: samples, floorP50: (before.p50 + after.p50) / 2, floorP99: (before.p99 + after.p99) / 2)
    }
    pooled = Summary(daemon.flatMap { $0 })
    pooledFloor = Summary(floors.flatMap(\.samples))
  }

  /// The smallest, median and largest of a ratio over the series.
  struct Spread: Sendable {
    let min: Double
    let median: Double
    let max: Double

    init(_ values: [Double]) {
      let summary = Summary(values)
      (min, median, max) = (summary.min, summary.p50, summary.max)
    }

    var text: String { String(format: "%.1f× / %.1f× / %.1f×", min, median, max) }
    var json: JSONValue { .object([("min", .number(min)), ("median", .number(median)), ("max", .number(max))]) }
  }

  /// p50 over the adjacent floor, over the series.
  var ratioP50: Spread { Spread(series.map(\.ratioP50)) }
  /// p99 over the adjacent floor, over the series.
  var ratioP99: Spread { Spread(series.map(\.ratioP99)) }

  var json: JSONValue {
    .object([
      ("over_adjacent_floor_p50", ratioP50.json), ("over_adjacent_floor_p99", ratioP99.json),
      ("pooled", pooled.json(unit: "ms")), ("pooled_floor", pooledFloor.json(unit: "ms")),
      ("series", .array(series.map(\.json))),
    ])
  }

  /// The medians over the series, in the shape the single ratio had before (`{p50, p99}`), for the keys kept.
  var medianRatiosJSON: JSONValue { .object([("p50", .number(ratioP50.median)), ("p99", .number(ratioP99.median))]) }

  /// The table's rows: the spread of the ratios (with `target`), then each series.
  func addRows(to table: inout ResultTable, target: String) {
    table.add("  over the adjacent floor, p50 (min / median / max)", ratioP50.text, target: target.p50Part)
    table.add("  over the adjacent floor, p99 (min / median / max)", ratioP99.text, target: target.p99Part)
    for (index, one) in series.enumerated() {
      table.add(
        "    series \(index + 1) (\(one.samples.count))",
        String(
          format: "p50 %.3f, p99 %.3f ms; floor beside %.3f / %.3f ms; %.1f× / %.1f×", one.summary.p50, one.summary.p99,
          one.floorP50, one.floorP99, one.ratioP50, one.ratioP99))
    }
  }
}

extension String {
  /// "≤ 3× / 5×": the part for p50 ("≤ 3×"), or the whole when it has no " / ".
  fileprivate var p50Part: String {
    guard let range = range(of: " / ") else { return self }
    return String(self[..<range.lowerBound])
  }

  /// "≤ 3× / 5×": the part for p99 ("≤ 5×").
  fileprivate var p99Part: String {
    guard let range = range(of: " / ") else { return self }
    return "≤ " + self[range.upperBound...]
  }
}

/// The floor series of a section: measured before the daemon's first series and after each.
struct FloorSeries {
  let boards: Int
  let callsPerSeries: Int
  private(set) var figures: [FloorBench.Figures?] = []

  init(boards: Int, callsPerSeries: Int) { (self.boards, self.callsPerSeries) = (boards, callsPerSeries) }

  /// Measures the next floor series.
  mutating func measure() async {
    progress(
      "  floor series \(figures.count + 1) (C, \(boards) board\(boards == 1 ? "" : "s"), \(callsPerSeries) calls)")
    figures.append(await FloorBench.measure(boards: boards, calls: callsPerSeries))
  }

  /// Every floor series as JSON, raw values included.
  var json: JSONValue {
    .array(figures.map { $0.map(\.jsonWithSamples) ?? .string("not measured") })
  }

  /// All floor series pooled into one, as the single floor series was reported before.
  var pooled: FloorBench.Figures? {
    let measured = figures.compactMap { $0 }
    guard !measured.isEmpty, measured.count == figures.count else { return nil }
    return FloorBench.Figures(
      samples: measured.flatMap(\.samples),
      cpuMsPerCall: measured.map(\.cpuMsPerCall).reduce(0, +) / Double(measured.count))
  }
}
