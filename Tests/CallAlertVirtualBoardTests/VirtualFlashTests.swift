import CallAlertVirtualBoard
import Foundation
import Testing

@Suite("Virtual flash")
struct VirtualFlashTests {
  @Test func programmingOnlyClearsBits() {
    let flash = VirtualFlash(pageSize: 16, pageCount: 2)
    #expect(flash.program(address: 0, bytes: [0xF0]))
    #expect(!flash.program(address: 0, bytes: [0x0F]))  // would need 0 -> 1
    #expect(flash.read(address: 0, count: 1) == [0x00])
    #expect(flash.erase(page: 0))
    #expect(flash.read(address: 0, count: 2) == [0xFF, 0xFF])
  }

  @Test func aPowerCutStopsProgrammingMidWay() {
    let flash = VirtualFlash(pageSize: 16, pageCount: 2)
    flash.powerCutAfterProgrammedBytes = 3
    #expect(!flash.program(address: 0, bytes: [1, 2, 3, 4, 5]))
    #expect(flash.powerLost)
    #expect(flash.read(address: 0, count: 5) == [1, 2, 3, 0xFF, 0xFF])
    #expect(!flash.erase(page: 1))
    flash.restorePower()
    #expect(flash.erase(page: 1))
  }

  @Test func aFileBackedFlashSurvivesARestart() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "flash-\(UInt64.random(in: 0...UInt64.max)).bin"
    ).path
    defer { try? FileManager.default.removeItem(atPath: path) }
    do {
      let flash = try VirtualFlash(path: path, pageSize: 64, pageCount: 4)
      #expect(flash.program(address: 70, bytes: [1, 2, 3]))
    }
    let again = try VirtualFlash(path: path, pageSize: 64, pageCount: 4)
    #expect(again.read(address: 69, count: 5) == [0xFF, 1, 2, 3, 0xFF])
    #expect(throws: VirtualFlashError.wrongSize(path: path, expected: 512, actual: 256)) {
      _ = try VirtualFlash(path: path, pageSize: 64, pageCount: 8)
    }
  }
}
