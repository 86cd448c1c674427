/// Percentiles of a sample, by the nearest-rank method: p99 of 1 000 values is the 990th smallest.
struct Summary: Sendable {
  /// How many values.
  let count: Int
  /// The median.
  let p50: Double
  /// The 99th percentile.
  let p99: Double
  /// The largest value.
  let max: Double
  /// The smallest value.
  let min: Double
  /// The mean.
  let mean: Double

  /// Summarises `values` (any order); all zero when empty.
  init(_ values: [Double]) {
    let sorted = values.sorted()
    count = sorted.count
    guard !sorted.isEmpty else {
      (p50, p99, max, min, mean) = (0, 0, 0, 0, 0)
      return
    }
    func rank(_ percent: Double) -> Double {
      let index = Int((percent / 100 * Double(sorted.count)).rounded(.up)) - 1
      return sorted[Swift.max(0, Swift.min(sorted.count - 1, index))]
    }
    p50 = rank(50)
    p99 = rank(99)
    max = sorted[sorted.count - 1]
    min = sorted[0]
    mean = sorted.reduce(0, +) / Double(sorted.count)
  }

  /// The summary as a JSON object, values in `unit` (the key suffix, e.g. "ms").
  func json(unit: String) -> JSONValue {
    .object([
      ("count", .int(count)), ("p50_\(unit)", .number(p50)), ("p99_\(unit)", .number(p99)),
      ("max_\(unit)", .number(max)), ("min_\(unit)", .number(min)), ("mean_\(unit)", .number(mean)),
    ])
  }
}

extension Duration {
  /// The duration in milliseconds, as a floating-point number.
  var milliseconds: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) * 1_000 + Double(attoseconds) * 1e-15
  }

  /// The duration in seconds, as a floating-point number.
  var seconds: Double { milliseconds / 1_000 }
}
