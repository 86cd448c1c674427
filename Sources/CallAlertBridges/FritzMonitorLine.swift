/// One line of a FRITZ!Box call monitor (TCP 1012), as AVM documents it:
///
/// ```
/// 23.11.26 21:46:04;RING;0;030123456;987654;SIP0;
/// 23.11.26 21:46:09;CONNECT;0;10;030123456;
/// 23.11.26 21:47:10;DISCONNECT;0;61;
/// 23.11.26 21:50:00;CALL;1;11;987654;0301112233;SIP0;
/// ```
///
/// The date is `%d.%m.%y %H:%M:%S` in the box's own time; fields are separated by `;` and the line usually ends
/// with one. A withheld caller leaves `from` empty.
public struct FritzMonitorLine: Equatable, Sendable {
  /// The box's date and time of the event, as written.
  public var date: FritzDate
  /// The connection id: it ties a call's lines together and is reused by later calls.
  public var connectionID: Int
  /// What happened.
  public var event: Event

  /// The events the call monitor reports.
  public enum Event: Equatable, Sendable {
    /// An incoming call rings: the caller (empty when withheld), the called own number, and the line.
    case ring(caller: String, called: String, line: String)
    /// An outgoing call is dialled from an extension (never rings a board).
    case call(extension: String, ownNumber: String, dialled: String, line: String)
    /// The call was picked up on an extension.
    case connect(extension: String, number: String)
    /// The call ended after `duration` seconds of talk (0 when never answered).
    case disconnect(duration: Int)
  }

  /// Creates a line.
  public init(date: FritzDate, connectionID: Int, event: Event) {
    self.date = date
    self.connectionID = connectionID
    self.event = event
  }

  /// Reads one line (without its line end).
  ///
  /// - Throws: ``BridgeParseError`` naming the field that is wrong, with its column.
  public static func parse(_ bytes: [UInt8]) throws(BridgeParseError) -> FritzMonitorLine {
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw BridgeParseError(column: 1, "the line is not valid UTF-8")
    }
    var fields = text.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
    if fields.count > 1, fields.last == "" { fields.removeLast() }  // the usual trailing ';'
    var columns: [Int] = []
    var column = 1
    for field in fields {
      columns.append(column)
      column += field.count + 1
    }
    guard fields.count >= 3 else {
      throw BridgeParseError(column: 1, "expected 'date;EVENT;connection id;...', found \(fields.count) field(s)")
    }
    guard let date = FritzDate(fields[0]) else {
      throw BridgeParseError(column: 1, "'\(excerpt(fields[0]))' is not a date as dd.mm.yy HH:MM:SS")
    }
    guard let id = Int(fields[2]), id >= 0, fields[2].allSatisfy(\.isASCII), fields[2].count <= 9 else {
      throw BridgeParseError(column: columns[2], "'\(excerpt(fields[2]))' is not a connection id (digits)")
    }
    func needs(_ count: Int, _ layout: String) throws(BridgeParseError) {
      guard fields.count >= count else {
        throw BridgeParseError(column: 1, "\(fields[1]) needs \(layout), found \(fields.count) field(s)")
      }
    }
    let event: Event
    switch fields[1] {
    case "RING":
      try needs(6, "date;RING;id;from;to;line")
      event = .ring(caller: fields[3], called: fields[4], line: fields[5])
    case "CALL":
      try needs(7, "date;CALL;id;extension;own number;dialled;line")
      event = .call(extension: fields[3], ownNumber: fields[4], dialled: fields[5], line: fields[6])
    case "CONNECT":
      try needs(5, "date;CONNECT;id;extension;number")
      event = .connect(extension: fields[3], number: fields[4])
    case "DISCONNECT":
      try needs(4, "date;DISCONNECT;id;duration")
      guard let duration = Int(fields[3]), duration >= 0, fields[3].count <= 9 else {
        throw BridgeParseError(column: columns[3], "'\(excerpt(fields[3]))' is not a duration in seconds")
      }
      event = .disconnect(duration: duration)
    default:
      throw BridgeParseError(
        column: columns[1], "'\(excerpt(fields[1]))' is not a call monitor event (RING, CALL, CONNECT, DISCONNECT)")
    }
    return FritzMonitorLine(date: date, connectionID: id, event: event)
  }
}

/// A FRITZ!Box timestamp, `dd.mm.yy HH:MM:SS`, in the box's own time zone (kept as written: the box's clock is
/// not the host's, so it never decides whether a call is late).
public struct FritzDate: Equatable, Sendable {
  /// Day, month, two-digit year, hour, minute, second.
  public var day, month, year, hour, minute, second: Int

  /// Reads `dd.mm.yy HH:MM:SS`; nil when it is not one.
  public init?(_ text: String) {
    let bytes = Array(text.utf8)
    guard bytes.count == 17, bytes[2] == UInt8(ascii: "."), bytes[5] == UInt8(ascii: "."),
      bytes[8] == UInt8(ascii: " "), bytes[11] == UInt8(ascii: ":"), bytes[14] == UInt8(ascii: ":")
    else { return nil }
    func number(_ at: Int) -> Int? {
      let (high, low) = (bytes[at], bytes[at + 1])
      guard (48...57).contains(high), (48...57).contains(low) else { return nil }
      return Int(high - 48) * 10 + Int(low - 48)
    }
    guard let day = number(0), let month = number(3), let year = number(6), let hour = number(9),
      let minute = number(12), let second = number(15), (1...31).contains(day), (1...12).contains(month),
      hour < 24, minute < 60, second < 61
    else { return nil }
    (self.day, self.month, self.year, self.hour, self.minute, self.second) = (day, month, year, hour, minute, second)
  }

  /// `yymmdd-HHMMSS`, for call ids.
  public var compact: String {
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return two(year) + two(month) + two(day) + "-" + two(hour) + two(minute) + two(second)
  }
}

/// A short, printable excerpt of untrusted text for an error message.
func excerpt(_ text: String, limit: Int = 32) -> String {
  var result = ""
  for scalar in text.unicodeScalars.prefix(limit) {
    result += scalar.value < 0x20 || scalar.value == 0x7F ? "?" : String(scalar)
  }
  return text.unicodeScalars.count > limit ? result + "..." : result
}
