/// One direction of a simulated serial line in virtual time: bytes sent at a time arrive later, paced at
/// the line's baud rate plus latency, with seeded faults. Deterministic: no clock, no threads.
public struct SimulatedWire: Sendable {
  /// How fast the wire is.
  public var pacing: WirePacing
  /// What goes wrong on it.
  public var faults: FaultProfile
  /// Counts of the faults injected so far.
  public private(set) var injected = InjectedFaults()

  private var random: SplitMix64
  private var inTransit: [(arrivalMicros: UInt64, byte: UInt8)] = []
  private var head = 0
  private var lineFreeMicros: Double = 0

  /// Creates a wire.
  public init(pacing: WirePacing = .instant, faults: FaultProfile = .none, seed: UInt64 = 1) {
    self.pacing = pacing
    self.faults = faults
    random = SplitMix64(seed: seed)
  }

  /// Puts bytes on the wire at `nowMicros`.
  public mutating func send(_ bytes: some Sequence<UInt8>, nowMicros: UInt64) {
    lineFreeMicros = max(lineFreeMicros, Double(nowMicros))
    for byte in bytes {
      if random.chance(faults.stallRate) {
        lineFreeMicros += Double(random.next() % max(1, faults.maxStallMicros))
        injected.stalls += 1
      }
      lineFreeMicros += pacing.byteMicros
      if random.chance(faults.dropRate) {
        injected.drops += 1
        continue
      }
      var delivered = byte
      if random.chance(faults.corruptRate) {
        delivered ^= UInt8(truncatingIfNeeded: random.next() % 255 + 1)
        injected.corruptions += 1
      }
      let arrival = UInt64(lineFreeMicros.rounded(.up)) + pacing.latencyMicros
      inTransit.append((arrival, delivered))
      if random.chance(faults.duplicateRate) {
        inTransit.append((arrival, delivered))
        injected.duplicates += 1
      }
    }
  }

  /// Takes every byte that has arrived by `nowMicros`.
  public mutating func receive(nowMicros: UInt64) -> [UInt8] {
    var out: [UInt8] = []
    while head < inTransit.count, inTransit[head].arrivalMicros <= nowMicros {
      out.append(inTransit[head].byte)
      head += 1
    }
    if head > 4096 && head * 2 > inTransit.count {
      inTransit.removeFirst(head)
      head = 0
    }
    return out
  }

  /// When the next byte arrives, if any is in transit.
  public var nextArrivalMicros: UInt64? { head < inTransit.count ? inTransit[head].arrivalMicros : nil }

  /// When the line finishes transmitting what was sent so far (microseconds, rounded up).
  public var lineFreeAtMicros: UInt64 { UInt64(lineFreeMicros.rounded(.up)) }

  /// Whether bytes are still in transit.
  public var isIdle: Bool { head >= inTransit.count }

  /// Loses everything in transit (the cable was pulled).
  public mutating func cut() {
    inTransit.removeAll()
    head = 0
  }
}

/// What a ``SimulatedWire`` has done to the bytes it carried.
public struct InjectedFaults: Equatable, Sendable {
  /// Bytes dropped.
  public var drops = 0
  /// Bytes corrupted.
  public var corruptions = 0
  /// Bytes duplicated.
  public var duplicates = 0
  /// Stalls inserted.
  public var stalls = 0

  /// Creates zeroed counts.
  public init() {}

  /// All faults together.
  public var total: Int { drops + corruptions + duplicates + stalls }
}
