/// Reads a report back into what it tells the device, from its bytes alone: what a virtual light records,
/// so that the timeline says what a real light would have done with the bytes it was sent.
public enum LightReportDecoder {
  /// What `report` tells a light of `kind`; says so when the bytes are not a report that kind takes.
  public static func meaning(of report: LightReport, for kind: LightKind) -> String {
    let bytes = report.payload
    switch kind {
    case .kuando: return kuando(bytes, reportID: report.reportID)
    case .blink1: return blink1(bytes, report: report)
    case .luxafor: return luxafor(bytes, reportID: report.reportID)
    case .embrava: return embrava(bytes, reportID: report.reportID)
    }
  }

  private static func kuando(_ bytes: [UInt8], reportID: UInt8) -> String {
    guard reportID == 0, bytes.count == KuandoProgram.size else { return "not a Kuando program (\(bytes.count) bytes)" }
    var sum: UInt16 = 0
    for byte in bytes[0..<62] { sum &+= UInt16(byte) }
    guard sum == UInt16(bytes[62]) << 8 | UInt16(bytes[63]) else { return "bad checksum" }
    let step = Array(bytes[0..<8])
    switch step[0] >> 4 {
    case 0x8: return "keepalive: dark unless another report within \(step[0] & 0x0F) s"
    case 0x1:
      let lit = step[2] != 0 || step[3] != 0 || step[4] != 0
      var text = lit ? "show red \(step[2])% green \(step[3])% blue \(step[4])%" : "dark"
      if step[5] != 0 && step[6] != 0 { text += ", blinking \(step[5])/\(step[6]) tenths of a second" }
      if step[7] & 0x80 != 0 {
        let tone = KuandoRingtone(rawValue: (step[7] >> 3) & 0x0F)
        let volume = step[7] & 0x07
        text += tone == .off || tone == nil || volume == 0 ? ", silent" : ", ring \(tone!.name) at volume \(volume)"
      }
      return text
    case 0x4: return "boot"
    case 0x2: return "reset"
    default: return "nothing"
    }
  }

  private static func blink1(_ bytes: [UInt8], report: LightReport) -> String {
    guard report.channel == .feature, report.reportID == Blink1Command.reportID, bytes.count == 7 else {
      return "not a blink(1) command"
    }
    let color = LightColor(red: bytes[1], green: bytes[2], blue: bytes[3])
    let time = Int(bytes[4]) << 8 | Int(bytes[5])
    switch bytes[0] {
    case UInt8(ascii: "n"): return color.isDark ? "off" : "set \(color.text)"
    case UInt8(ascii: "c"): return "fade to \(color.text) over \(time * 10) ms (led \(bytes[6]))"
    case UInt8(ascii: "p"): return bytes[1] == 0 ? "stop stored pattern" : "play stored lines \(bytes[2])-\(bytes[3])"
    case UInt8(ascii: "D"):
      let ms = (Int(bytes[2]) << 8 | Int(bytes[3])) * 10
      return bytes[1] == 0
        ? "server tickle off"
        : "server tickle: \(bytes[4] == 0 ? "go dark" : "stay lit") unless tickled within \(ms) ms"
    default: return "blink(1) command '\(String(UnicodeScalar(bytes[0])))'"
    }
  }

  private static func luxafor(_ bytes: [UInt8], reportID: UInt8) -> String {
    guard reportID == 0, bytes.count == 8 else { return "not a Luxafor command" }
    let color = LightColor(red: bytes[2], green: bytes[3], blue: bytes[4])
    switch bytes[0] {
    case 1: return color.isDark ? "off" : "show \(color.text)"
    case 2: return "fade to \(color.text) (speed \(bytes[5]))"
    case 3: return "strobe \(color.text) (speed \(bytes[5]), \(bytes[7]) times)"
    case 4: return "wave \(bytes[1]) in \(color.text) (speed \(bytes[7]), \(bytes[6]) times)"
    default: return "Luxafor command \(bytes[0])"
    }
  }

  private static func embrava(_ bytes: [UInt8], reportID: UInt8) -> String {
    guard reportID == 0, bytes.count == 8, bytes[6] == 0xFF, bytes[7] == 0x22 else { return "not a Blynclight state" }
    if bytes[3] & 0x01 != 0 { return "off" }
    let color = LightColor(red: bytes[0], green: bytes[2], blue: bytes[1])
    var text = "show \(color.text)"
    if bytes[3] & 0x02 != 0 { text += " dimmed" }
    if bytes[3] & 0x04 != 0 { text += " flashing (speed \((bytes[3] >> 3) & 0x07))" }
    return text
  }
}
