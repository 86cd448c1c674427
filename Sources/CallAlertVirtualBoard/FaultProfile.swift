/// The faults a simulated wire injects, per byte, from a seed.
public struct FaultProfile: Equatable, Sendable {
  /// Probability that a byte vanishes.
  public var dropRate: Double
  /// Probability that a byte arrives with some bits flipped.
  public var corruptRate: Double
  /// Probability that a byte arrives twice.
  public var duplicateRate: Double
  /// Probability that the line stalls before a byte (order is kept: a serial line never reorders).
  public var stallRate: Double
  /// The longest stall, in microseconds.
  public var maxStallMicros: UInt64

  /// Creates a profile; all rates default to 0.
  public init(
    dropRate: Double = 0, corruptRate: Double = 0, duplicateRate: Double = 0, stallRate: Double = 0,
    maxStallMicros: UInt64 = 50_000
  ) {
    self.dropRate = dropRate
    self.corruptRate = corruptRate
    self.duplicateRate = duplicateRate
    self.stallRate = stallRate
    self.maxStallMicros = maxStallMicros
  }

  /// A clean wire.
  public static let none = FaultProfile()

  /// Whether any fault is enabled.
  public var isClean: Bool { dropRate == 0 && corruptRate == 0 && duplicateRate == 0 && stallRate == 0 }
}

/// How fast a simulated wire carries bytes.
public struct WirePacing: Equatable, Sendable {
  /// Line speed in baud (8N1: 10 bits a byte); nil for an unpaced wire.
  public var baud: Int?
  /// One-way latency, e.g. USB's 1 ms frame, in microseconds.
  public var latencyMicros: UInt64

  /// Creates a pacing.
  public init(baud: Int? = nil, latencyMicros: UInt64 = 0) {
    self.baud = baud
    self.latencyMicros = latencyMicros
  }

  /// Instant delivery.
  public static let instant = WirePacing()
  /// 115 200 baud 8N1 with 1 ms of USB latency each way.
  public static let usbSerial115200 = WirePacing(baud: 115_200, latencyMicros: 1_000)

  /// Microseconds one byte occupies the line (10 bits for 8N1); 0 when unpaced.
  public var byteMicros: Double { baud.map { 10_000_000.0 / Double($0) } ?? 0 }
}
