import CallAlertClient
import CallAlertControl
import CallAlertProtocol
import CallAlertSerial
// Full Foundation, not FoundationEssentials: FileHandle.
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Prints a value as pretty, key-sorted JSON on standard output, dates in ISO 8601 as the control socket writes them.
func printJSON(_ value: some Encodable) throws {
  let encoder = ControlResponse.encoder(.prettyPrinted)
  try FileHandle.standardOutput.write(contentsOf: try encoder.encode(value) + Data("\n".utf8))
}

/// INFO as JSON.
struct BoardInfoJSON: Encodable {
  let serial: String
  let firmware: String
  let protocolVersions: String
  let sessionVersion: UInt8
  let bootNonce: String
  let capabilities: [String: Int]
  let table: TableJSON?

  struct TableJSON: Encodable {
    let version: UInt32
    let crc: String
    let size: UInt32
  }

  init(_ info: BoardInfo) {
    serial = String(decoding: info.serial, as: UTF8.self)
    firmware = "\(info.firmware.major).\(info.firmware.minor).\(info.firmware.patch)"
    protocolVersions = "\(info.minVersion)-\(info.maxVersion)"
    sessionVersion = info.sessionVersion
    bootNonce = hex32(info.bootNonce)
    let c = info.capabilities
    capabilities = [
      "buzzer_channels": Int(c.buzzerChannels), "buzzer_min_hz": Int(c.buzzerMinHz),
      "buzzer_max_hz": Int(c.buzzerMaxHz),
      "motor_channels": Int(c.motorChannels), "leds": Int(c.leds), "buttons": Int(c.buttons),
      "pattern_slots": Int(c.patternSlots), "max_steps": Int(c.maxSteps), "max_payload": Int(c.maxPayload),
      "window": Int(c.window), "table_capacity": Int(c.tableCapacity), "motor_max_on_ms": Int(c.motorMaxOnMs),
      "motor_duty_window_ms": Int(c.motorDutyWindowMs), "motor_max_duty_percent": Int(c.motorMaxDutyPercent),
      "lease_ms": Int(c.leaseMs),
    ]
    table =
      info.table == .none
      ? nil : TableJSON(version: info.table.version, crc: hex32(info.table.crc), size: info.table.size)
  }

  enum CodingKeys: String, CodingKey {
    case serial, firmware, sessionVersion = "session_version", protocolVersions = "protocol_versions"
    case bootNonce = "boot_nonce", capabilities, table
  }
}

/// STATUS as JSON.
struct BoardStatusJSON: Encodable {
  let uptimeMs: UInt32
  let playing: PlayingJSON?
  let actuators: ActuatorsJSON
  let indicatorMode: UInt8
  let transfer: TransferJSON?
  let counters: [String: UInt32]

  struct PlayingJSON: Encodable {
    let token: UInt32
    let slot: UInt8?
    let inline: Bool
    let elapsedMs: UInt32
    let capRemainingMs: UInt16
    let leaseRemainingMs: UInt16
    enum CodingKeys: String, CodingKey {
      case token, slot, inline, elapsedMs = "elapsed_ms", capRemainingMs = "cap_remaining_ms"
      case leaseRemainingMs = "lease_remaining_ms"
    }
  }

  struct TransferJSON: Encodable {
    let received: UInt32
    let size: UInt32
  }

  init(_ status: BoardStatus) {
    uptimeMs = status.uptimeMs
    playing =
      status.token == 0
      ? nil
      : PlayingJSON(
        token: status.token, slot: status.slot, inline: status.inline, elapsedMs: status.elapsedMs,
        capRemainingMs: status.capRemainingMs, leaseRemainingMs: status.leaseRemainingMs)
    actuators = ActuatorsJSON(status.actuators)
    indicatorMode = status.indicatorMode
    transfer = status.transferActive ? TransferJSON(received: status.transferReceived, size: status.transferSize) : nil
    let c = status.counters
    counters = [
      "frames_ok": c.framesOK, "crc_errors": c.crcErrors, "framing_errors": c.framingErrors, "overlong": c.overlong,
      "duplicates": c.duplicates, "faults": c.faults,
    ]
  }

  enum CodingKeys: String, CodingKey {
    case uptimeMs = "uptime_ms", playing, actuators, indicatorMode = "indicator_mode", transfer, counters
  }
}

/// An actuator state as JSON, with the timeline's field names.
struct ActuatorsJSON: Encodable {
  let buzzerHz: UInt16
  let buzzerVolume: UInt8
  let motor: [UInt8]
  let led: UInt8

  init(_ state: ActuatorState) {
    buzzerHz = state.buzzerHz
    buzzerVolume = state.buzzerVolume
    motor = state.motors
    led = state.leds
  }

  enum CodingKeys: String, CodingKey {
    case buzzerHz = "buzzer_hz", buzzerVolume = "buzzer_volume", motor, led
  }
}

/// `0x1234abcd`.
func hex32(_ value: UInt32) -> String {
  let digits = String(value, radix: 16)
  return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
}
