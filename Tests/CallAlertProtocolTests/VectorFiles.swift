import CallAlertProtocol
import Foundation
import Testing

/// Where the vector files live, and how the tests read them or (with `CALLALERT_REGENERATE_VECTORS=1`) write them.
enum VectorFiles {
  /// The environment variable that turns the file check into a rewrite of the files.
  static let regenerateVariable = "CALLALERT_REGENERATE_VECTORS"

  /// `Protocol/vectors`, found from this source file: `Tests/CallAlertProtocolTests/<file>` up to the package root.
  static let directory: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // CallAlertProtocolTests
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()  // package root
    .appendingPathComponent("Protocol")
    .appendingPathComponent("vectors")

  /// Whether this run rewrites the vector files from ``VectorCatalog`` instead of checking them.
  static var isRegenerating: Bool { ProcessInfo.processInfo.environment[regenerateVariable] == "1" }

  /// The URL of the vector file `name`, e.g. `messages.json`.
  static func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

  /// The text of the vector file `name` as it is on disk.
  static func text(_ name: String) throws -> String {
    try String(contentsOf: url(name), encoding: .utf8)
  }

  /// Replaces the vector file `name` with `text`, atomically (tests reading it in parallel never see half a file).
  static func write(_ text: String, to name: String) throws {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url(name), options: .atomic)
  }

  /// The parsed vector file `name`: the one on disk, or, when regenerating, the one the catalog is about to write,
  /// so that a regenerating run also tests what it writes.
  static func document(_ name: String) throws -> JSONValue {
    if isRegenerating { return try VectorCatalog.document(named: name) }
    return try JSONValue.parse(text(name))
  }

  /// The entries of the array `key` of vector file `name`, named for test reports.
  static func entries(_ name: String, _ key: String) throws -> [NamedVector] {
    try document(name).array(key).map { NamedVector(name: try $0.string("name"), json: $0) }
  }
}

/// One entry of a vector file, as a test argument that reports itself by its name.
struct NamedVector: Sendable, CustomTestStringConvertible {
  /// The entry's `name`.
  let name: String
  /// The whole entry.
  let json: JSONValue

  var testDescription: String { name }
}

// MARK: - Hex

/// Lower-case hex, two digits a byte, no separators: the byte notation of every vector file.
func hexString(_ bytes: some Sequence<UInt8>) -> String {
  let digits = Array("0123456789abcdef")
  var out = ""
  for byte in bytes {
    out.append(digits[Int(byte >> 4)])
    out.append(digits[Int(byte & 0x0F)])
  }
  return out
}

/// The bytes a hex string (either case, no separators) stands for.
func bytes(hex: String) throws -> [UInt8] {
  let digits = Array(hex.utf8)
  guard digits.count % 2 == 0 else { throw VectorFormatError("odd-length hex string \"\(hex)\"") }
  var out: [UInt8] = []
  out.reserveCapacity(digits.count / 2)
  var index = 0
  while index < digits.count {
    guard let high = hexDigit(digits[index]), let low = hexDigit(digits[index + 1]) else {
      throw VectorFormatError("not hex: \"\(hex)\"")
    }
    out.append(high << 4 | low)
    index += 2
  }
  return out
}

/// The value of one hex digit, nil for anything else.
private func hexDigit(_ character: UInt8) -> UInt8? {
  switch character {
  case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
  case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
  case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
  default: nil
  }
}

/// The ASCII bytes of `text`, for serial numbers, slot names and the CRC check string.
func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

// MARK: - Names

/// A two-way table between a protocol enumeration's values and the names the vector files give them.
struct NameTable<Value: Equatable & Sendable>: Sendable {
  /// Every value with its name.
  let entries: [(value: Value, name: String)]

  /// The name of `value`; nil for a value the table does not know (a raw code from a newer peer).
  func name(_ value: Value) -> String? { entries.first { $0.value == value }?.name }

  /// The value named `name`, or an error listing the known names.
  func value(_ name: String) throws -> Value {
    guard let entry = entries.first(where: { $0.name == name }) else {
      throw VectorFormatError("unknown name \"\(name)\"; expected one of \(entries.map(\.name))")
    }
    return entry.value
  }
}

/// The names the vector files use: the spec's upper-case message names and snake_case enumeration names.
enum VectorNames {
  /// Message types by their spec names.
  static let messageTypes = NameTable<MessageType>(entries: [
    (.hello, "HELLO"), (.ping, "PING"), (.getInfo, "GET_INFO"), (.getStatus, "GET_STATUS"), (.play, "PLAY"),
    (.stop, "STOP"), (.lease, "LEASE"), (.setIndicator, "SET_INDICATOR"), (.tableBegin, "TABLE_BEGIN"),
    (.tableData, "TABLE_DATA"), (.tableCommit, "TABLE_COMMIT"), (.tableAbort, "TABLE_ABORT"),
    (.tableRead, "TABLE_READ"), (.reset, "RESET"), (.boot, "BOOT"), (.button, "BUTTON"),
    (.playEnded, "PLAY_ENDED"), (.fault, "FAULT"), (.actuators, "ACTUATORS"),
  ])

  /// NAK error codes.
  static let errorCodes = NameTable<ErrorCode>(entries: [
    (.unknownType, "unknown_type"), (.badPayload, "bad_payload"), (.unsupportedVersion, "unsupported_version"),
    (.noSession, "no_session"), (.staleNonce, "stale_nonce"), (.sequenceGap, "sequence_gap"),
    (.badSlot, "bad_slot"), (.badPattern, "bad_pattern"), (.badToken, "bad_token"), (.badArgument, "bad_argument"),
    (.noTransfer, "no_transfer"), (.tooLarge, "too_large"), (.badOffset, "bad_offset"),
    (.incomplete, "incomplete"), (.crcMismatch, "crc_mismatch"), (.badTable, "bad_table"),
    (.flashError, "flash_error"),
  ])

  /// SET_INDICATOR and STATUS indicator modes.
  static let indicatorModes = NameTable<IndicatorMode>(entries: [(.off, "off"), (.on, "on"), (.blink, "blink")])

  /// BOOT reasons.
  static let bootReasons = NameTable<BootReason>(entries: [
    (.powerOn, "power_on"), (.resetCommand, "reset_command"), (.watchdog, "watchdog"), (.fault, "fault"),
  ])

  /// BOOT table states.
  static let bootTableStates = NameTable<BootTableState>(entries: [
    (.ok, "ok"), (.fellBack, "fell_back"), (.none, "none"),
  ])

  /// BUTTON press kinds.
  static let pressKinds = NameTable<PressKind>(entries: [(.press, "press"), (.longPress, "long_press")])

  /// PLAY_ENDED reasons.
  static let playEndReasons = NameTable<PlayEndReason>(entries: [
    (.completed, "completed"), (.stopped, "stopped"), (.cap, "cap"), (.lease, "lease"), (.fault, "fault"),
    (.superseded, "superseded"),
  ])

  /// FAULT codes.
  static let faultCodes = NameTable<FaultCode>(entries: [
    (.motorOnTime, "motor_on_time"), (.motorDuty, "motor_duty"), (.flash, "flash"),
    (.eventOverflow, "event_overflow"), (.tickOverrun, "tick_overrun"),
  ])

  /// TABLE_READ areas.
  static let tableAreas = NameTable<TableArea>(entries: [(.active, "active"), (.staged, "staged")])

  /// Frame header flag bits, lowest first.
  static let frameFlags: [(flag: FrameFlags, name: String)] = [
    (.response, "response"), (.nak, "nak"), (.notify, "notify"),
  ]

  /// PLAY option bits, lowest first.
  static let playOptions: [(option: PlayOptions, name: String)] = [
    (.muteBuzzer, "mute_buzzer"), (.muteMotor, "mute_motor"), (.muteLeds, "mute_leds"),
  ]

  /// The names of the flag bits set in `flags`.
  static func names(of flags: FrameFlags) -> [String] {
    frameFlags.filter { flags.contains($0.flag) }.map(\.name)
  }

  /// The names of the option bits set in `options`.
  static func names(of options: PlayOptions) -> [String] {
    playOptions.filter { options.contains($0.option) }.map(\.name)
  }

  /// PLAY options from their names.
  static func playOptions(_ names: [String]) throws -> PlayOptions {
    var options: PlayOptions = []
    for name in names {
      guard let entry = playOptions.first(where: { $0.name == name }) else {
        throw VectorFormatError("unknown PLAY option \"\(name)\"")
      }
      options.insert(entry.option)
    }
    return options
  }
}
