import BoardSupport
import CallAlertBoardCore

/// The pattern flash on an nRF (micro:bit v1 and v2): the pages the linker script reserves at the end of the
/// internal flash, erased and programmed through the NVMC (board_flash_erase/program), read through the
/// memory map. NOR semantics come from the silicon; programming is in 4-byte words.
struct NVMCFlash: BoardFlash {
  let base: UnsafeMutablePointer<UInt8>
  let size: Int

  init() {
    base = board_flash_base()
    size = board_flash_size()
  }

  var pageSize: Int { board_flash_page_size() }
  var pageCount: Int { size / pageSize }
  var programUnit: Int { 4 }

  mutating func erase(page: Int) -> Bool {
    guard page >= 0, page < pageCount else { return false }
    return board_flash_erase(UInt32(page * pageSize)) == 1
  }

  mutating func program(address: Int, bytes: [UInt8]) -> Bool {
    guard address >= 0, address + bytes.count <= size else { return false }
    let ok = bytes.withUnsafeBufferPointer { board_flash_program(UInt32(address), $0.baseAddress, $0.count) }
    guard ok == 1 else { return false }
    for (index, byte) in bytes.enumerated() where base[address + index] != byte { return false }
    return true
  }

  func read(address: Int, count: Int) -> [UInt8] {
    var bytes = [UInt8](repeating: 0xFF, count: max(0, count))
    for index in bytes.indices where address + index >= 0 && address + index < size {
      bytes[index] = base[address + index]
    }
    return bytes
  }
}
