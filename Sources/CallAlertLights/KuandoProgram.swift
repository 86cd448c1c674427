/// The 64-byte report a Kuando Busylight takes: seven steps, then a footer (sensitivity, timeout and
/// trigger bytes, three pad bytes) and a 16-bit big-endian checksum in bytes 62-63, the sum of bytes 0-61.
public struct KuandoProgram: Equatable, Sendable {
  /// The report's size after the report id.
  public static let size = 64
  /// How many steps a program holds.
  public static let stepCount = 7

  /// The steps; fewer than seven are padded with empty steps, more are dropped.
  public var steps: [KuandoStep]
  /// Footer byte 56: the Omega's touch sensitivity (0: unused).
  public var sensitivity: UInt8 = 0
  /// Footer byte 57: the device's own idle timeout (0: unused; keepalive steps set the watchdog).
  public var timeout: UInt8 = 0
  /// Footer byte 58: trigger (0: unused).
  public var trigger: UInt8 = 0

  /// Creates a program.
  public init(steps: [KuandoStep]) {
    self.steps = steps
  }

  /// The report's 64 bytes.
  public var bytes: [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(Self.size)
    for index in 0..<Self.stepCount {
      bytes += index < steps.count ? steps[index].bytes : KuandoStep.empty.bytes
    }
    // The pad as the vendor's tools write it: 00 0f ff.
    bytes += [sensitivity, timeout, trigger, 0x00, 0x0F, 0xFF]
    var sum: UInt16 = 0
    for byte in bytes { sum &+= UInt16(byte) }
    bytes += [UInt8(sum >> 8), UInt8(sum & 0xFF)]
    return bytes
  }

  /// The program as an output report (report id 0: the device numbers none).
  public func report(meaning: String) -> LightReport {
    LightReport(channel: .output, reportID: 0, payload: bytes, meaning: meaning)
  }
}
