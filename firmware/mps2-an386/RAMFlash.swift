import BoardSupport
import CallAlertBoardCore

/// The pattern flash: 64 pages of 1 KiB in a RAM region that a soft reset keeps (erased to 0xFF at a cold
/// boot by board_start), with NOR semantics: erase sets a page to 0xFF, programming only clears bits.
///
/// On a real microcontroller this becomes the internal flash driver: erase a page, program in the
/// controller's unit (``programUnit``: 8 bytes on an STM32L4), read through the memory map.
struct RAMFlash: BoardFlash {
  let base: UnsafeMutablePointer<UInt8>
  let size: Int

  init() {
    base = board_flash_base()
    size = board_flash_size()
  }

  var pageSize: Int { 1_024 }
  var pageCount: Int { size / pageSize }

  mutating func erase(page: Int) -> Bool {
    guard page >= 0, page < pageCount else { return false }
    (base + page * pageSize).update(repeating: 0xFF, count: pageSize)
    return true
  }

  mutating func program(address: Int, bytes: [UInt8]) -> Bool {
    guard address >= 0, address + bytes.count <= size else { return false }
    var ok = true
    for (index, byte) in bytes.enumerated() {
      let stored = base[address + index] & byte  // NOR: a 0 bit cannot go back to 1 without an erase
      base[address + index] = stored
      if stored != byte { ok = false }
    }
    return ok
  }

  func read(address: Int, count: Int) -> [UInt8] {
    var bytes = [UInt8](repeating: 0xFF, count: max(0, count))
    for index in bytes.indices where address + index >= 0 && address + index < size {
      bytes[index] = base[address + index]
    }
    return bytes
  }
}
