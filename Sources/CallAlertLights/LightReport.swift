/// One HID report for a light: what the host writes, with the report id first, as hidapi takes it.
public struct LightReport: Equatable, Sendable {
  /// How the report travels.
  public enum Channel: String, Equatable, Sendable {
    /// An output report (hidapi's `hid_write`, write(2) on the hidraw node).
    case output
    /// A feature report (hidapi's `hid_send_feature_report`, the HIDIOCSFEATURE ioctl).
    case feature
  }

  /// Output or feature.
  public var channel: Channel
  /// The report id: 0 for devices without numbered reports (the kernel drops it before the wire).
  public var reportID: UInt8
  /// The report's bytes after the id.
  public var payload: [UInt8]
  /// What the report tells the device, for people (a timeline, a log).
  public var meaning: String

  /// Creates a report.
  public init(channel: Channel, reportID: UInt8, payload: [UInt8], meaning: String) {
    self.channel = channel
    self.reportID = reportID
    self.payload = payload
    self.meaning = meaning
  }

  /// What hidapi is handed: the report id, then the payload.
  public var bytes: [UInt8] { [reportID] + payload }

  /// The bytes as lower-case hex, two digits each, no separator.
  public var hex: String { bytes.map { Self.hex($0) }.joined() }

  /// Two lower-case hex digits.
  public static func hex(_ byte: UInt8) -> String {
    let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f"]
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
  }
}
