import CallAlertBoardCore
import CallAlertProtocol
import Synchronization

/// One actuator change as the hardware saw it.
struct Change: Equatable, CustomStringConvertible {
  var ms: UInt64
  var state: ActuatorState

  var description: String {
    "\(ms): hz=\(state.buzzerHz) vol=\(state.buzzerVolume) leds=\(state.leds) motors=\(state.motors)"
  }
}

/// Hardware that records every applied state, with settable button levels and seeded entropy.
struct RecordingHardware: BoardHardware {
  var timeline: [Change] = []
  var levels: UInt8 = 0
  var seed: UInt32

  init(seed: UInt32 = 0x1234_5678) { self.seed = seed }

  mutating func apply(_ state: ActuatorState, nowMs: UInt64) {
    timeline.append(Change(ms: nowMs, state: state))
  }

  func buttonLevels() -> UInt8 { levels }

  mutating func entropy() -> UInt32 {
    // xorshift32: distinct values from distinct seeds, deterministic for the tests.
    seed ^= seed << 13
    seed ^= seed >> 17
    seed ^= seed << 5
    return seed
  }

  /// The state in force at `ms`.
  func state(at ms: UInt64) -> ActuatorState? {
    timeline.last { $0.ms <= ms }?.state
  }
}

/// NOR flash in memory that enforces what real flash does and can fail on purpose.
///
/// - Programming can only clear bits, and each byte may be programmed once per erase (real flash with
///   ECC refuses a second write); either violation fails the call and is counted.
/// - Calls must respect `programUnit` alignment.
/// - `powerBudget` bytes may be programmed before the power goes: the call that crosses it writes only
///   the bytes up to the budget and fails, and so does everything after it (until `restorePower()`).
/// - `failProgramAt` fails any program call covering that address, after writing nothing.
struct NORFlash: BoardFlash {
  let pageSize: Int
  let pageCount: Int
  let programUnit: Int
  private(set) var bytes: [UInt8]
  private var programmed: [Bool]
  var powerBudget: Int? = nil
  private(set) var powerCut = false
  var failProgramAt: Int? = nil
  var failErasePage: Int? = nil
  private(set) var violations = 0
  private(set) var programmedCount = 0
  private(set) var eraseCount = 0

  init(pageSize: Int = 256, pageCount: Int = 16, programUnit: Int = 1) {
    self.pageSize = pageSize
    self.pageCount = pageCount
    self.programUnit = programUnit
    bytes = Array(repeating: 0xFF, count: pageSize * pageCount)
    programmed = Array(repeating: false, count: pageSize * pageCount)
  }

  mutating func erase(page: Int) -> Bool {
    guard !powerCut, page != failErasePage, page >= 0, page < pageCount else { return false }
    eraseCount += 1
    for address in page * pageSize..<(page + 1) * pageSize {
      bytes[address] = 0xFF
      programmed[address] = false
    }
    return true
  }

  mutating func program(address: Int, bytes new: [UInt8]) -> Bool {
    guard !powerCut else { return false }
    guard address % programUnit == 0, new.count % programUnit == 0, address >= 0,
      address + new.count <= bytes.count
    else {
      violations += 1
      return false
    }
    if let fail = failProgramAt, fail >= address, fail < address + new.count { return false }
    for (index, byte) in new.enumerated() {
      if let budget = powerBudget {
        if budget == 0 {
          powerCut = true
          return false
        }
        powerBudget = budget - 1
      }
      let at = address + index
      guard !programmed[at], bytes[at] & byte == byte else {
        violations += 1
        return false
      }
      bytes[at] = byte
      programmed[at] = true
      programmedCount += 1
    }
    return true
  }

  func read(address: Int, count: Int) -> [UInt8] {
    reads.record(count)
    return Array(bytes[address..<address + count])
  }

  /// The largest single read so far (shared by copies of this flash).
  let reads = ReadLog()

  /// Power comes back: the next boot sees what was written.
  mutating func restorePower() {
    powerCut = false
    powerBudget = nil
  }

  /// Flips bits to 0 behind the core's back (a damaged cell).
  mutating func corrupt(address: Int, mask: UInt8) {
    bytes[address] &= mask
  }
}

/// The largest read a ``NORFlash`` served: what the core would hold in RAM at once.
final class ReadLog: Sendable {
  private let reads = Mutex(0)
  /// The largest read so far.
  var largest: Int { reads.withLock { $0 } }
  func record(_ count: Int) { reads.withLock { $0 = max($0, count) } }
  func reset() { reads.withLock { $0 = 0 } }
}
