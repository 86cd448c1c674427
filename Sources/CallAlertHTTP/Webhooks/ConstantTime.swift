/// Comparing secrets without telling by the time taken how much of them matched.
enum ConstantTime {
  /// Whether the two byte strings are equal; the time depends on their lengths only.
  static func equal(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    var difference = UInt8(truncatingIfNeeded: lhs.count ^ rhs.count)
    for index in 0..<max(lhs.count, rhs.count) {
      difference |= (index < lhs.count ? lhs[index] : 0) ^ (index < rhs.count ? rhs[index] : 0xFF)
    }
    return difference == 0 && lhs.count == rhs.count
  }
}
