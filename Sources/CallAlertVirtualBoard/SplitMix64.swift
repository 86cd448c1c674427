/// A small seeded generator (SplitMix64): the same seed gives the same faults on every run. The one copy:
/// the simulated wires, the virtual hardware, the benchmarks and every seeded test draw from it.
public struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// Creates a generator from a seed.
  public init(seed: UInt64) { state = seed }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// True with probability `rate` (0 never draws). Internal: the tests draw with their own `chance`, which
  /// always draws, so that their seeds keep naming the same runs.
  mutating func chance(_ rate: Double) -> Bool {
    rate > 0 && Double(next() >> 11) / Double(1 << 53) < rate
  }
}
