import CallAlertText

/// An `application/x-www-form-urlencoded` body (what sipgate.io and Twilio POST): its name-value pairs in
/// order, `+` read as a space and `%XX` decoded. Pure: bytes in, pairs or an error naming the offset out.
public struct FormBody: Equatable, Sendable {
  /// The pairs, in the order they came; a name may repeat (`user[]`).
  public var pairs: [(name: String, value: String)]

  /// Creates a body from pairs.
  public init(_ pairs: [(name: String, value: String)]) { self.pairs = pairs }

  /// Equal when the pairs are, in order.
  public static func == (lhs: FormBody, rhs: FormBody) -> Bool {
    lhs.pairs.count == rhs.pairs.count && zip(lhs.pairs, rhs.pairs).allSatisfy { $0 == $1 }
  }

  /// The first value of `name`, or nil.
  public subscript(_ name: String) -> String? { pairs.first { $0.name == name }?.value }

  /// Every value of `name`, in order.
  public func values(_ name: String) -> [String] { pairs.filter { $0.name == name }.map(\.value) }

  /// Parses a body.
  ///
  /// - Throws: ``InputError`` at `source:byte N` for a bad `%` escape or text that is not UTF-8 once decoded.
  public static func parse(_ bytes: [UInt8], source: String = "body") throws(InputError) -> FormBody {
    var pairs: [(name: String, value: String)] = []
    var start = 0
    while start < bytes.count {
      let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
      let part = bytes[start..<end]
      if !part.isEmpty {
        let equals = part.firstIndex(of: UInt8(ascii: "="))
        let name = try decode(part[..<(equals ?? end)], at: start, source: source)
        let value =
          try equals.map { (index) throws(InputError) in
            try decode(part[(index + 1)...], at: index + 1, source: source)
          } ?? ""
        pairs.append((name, value))
      }
      start = end + 1
    }
    return FormBody(pairs)
  }

  private static func decode(_ bytes: ArraySlice<UInt8>, at offset: Int, source: String) throws(InputError) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var index = bytes.startIndex
    while index < bytes.endIndex {
      let byte = bytes[index]
      if byte == UInt8(ascii: "+") {
        out.append(0x20)
      } else if byte == UInt8(ascii: "%") {
        guard index + 2 < bytes.endIndex, let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2])
        else {
          throw InputError(
            location: "\(source):byte \(index + 1)", message: "'%' must be followed by two hex digits")
        }
        out.append(high << 4 | low)
        index += 2
      } else {
        out.append(byte)
      }
      index += 1
    }
    guard let text = String(validating: out, as: UTF8.self) else {
      throw InputError(location: "\(source):byte \(offset + 1)", message: "not UTF-8 text once decoded")
    }
    return text
  }

  private static func hex(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
