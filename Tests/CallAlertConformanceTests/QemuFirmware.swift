import CallAlertQemu
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The firmware image in QEMU for the suite: where it is, whether it can run here, and starting and stopping
/// it with ``QemuBoard``, the launcher `callalert board qemu` uses.
///
/// The board runs without `-icount`: the firmware's clock counts a 25 MHz hardware timer, so in plain
/// (real-time) mode board time follows the host's clock; `-icount shift=auto` was measured to run the board
/// clock 2-4 % fast. The checks use the ACTUATORS trace's board time, which is exact either way.
enum QemuFirmware {
  /// The repository root, from this file's path.
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

  /// The image `make firmware` builds (mps2-an386).
  static let image = QemuBoard.defaultImage(inRepository: root)

  /// The micro:bit v1 image `make firmware` builds.
  static let microbitImage = root + "/" + QemuMachine.microbit.defaultImage
  static var hasMicrobitImage: Bool { access(microbitImage, R_OK) == 0 }

  /// The micro:bit v1's RAM budget: static data, heap and stack at their peaks.
  static let microbitRAMBudget = 12 * 1_024

  /// Checks the `ram peak` lines the firmware prints at each RESET against the micro:bit v1's budget (each
  /// reset of the micro:bit image).
  static func checkRAMBudget(_ console: String) {
    for line in console.split(separator: "\n") where line.hasPrefix("callalert: ram peak ") {
      guard let peak = Int(line.split(separator: " ").last ?? "", radix: 16) else { continue }
      #expect(peak <= microbitRAMBudget, "RAM peak \(peak) bytes over the budget of \(microbitRAMBudget)")
    }
  }

  /// Where to keep the firmware's debug console logs (CALLALERT_QEMU_LOG_DIR); by default they are deleted
  /// when the board stops, after being checked for faults.
  static let keptLogDirectory = ProcessInfo.processInfo.environment["CALLALERT_QEMU_LOG_DIR"]

  static let hasQemu = QemuBoard.locate() != nil

  /// A source the image was built from that changed after the image, if any (`make firmware` rebuilds it).
  static let newerSource: String? = {
    var info = stat()
    guard stat(image, &info) == 0 else { return nil }
    let built = info.st_mtim.tv_sec
    let folders = [
      "Sources/CallAlertProtocol", "Sources/CallAlertBoardCore", "firmware/Application", "firmware/Common",
      "firmware/Common/include", "firmware/mps2-an386", "firmware/microbit-v1",
    ]
    for folder in folders {
      for name in (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + folder)) ?? [] {
        let path = folder + "/" + name
        if stat(root + "/" + path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_mtim.tv_sec > built {
          return path
        }
      }
    }
    return nil
  }()
  static var hasImage: Bool { access(image, R_OK) == 0 }

  /// Starts QEMU with the image, its debug console in a log file of its own, and returns once it has printed
  /// its pseudo-terminal's path.
  static func launch(_ machine: QemuMachine = .mps2An386) async throws -> RunningQemu {
    let debugLog =
      (keptLogDirectory ?? NSTemporaryDirectory())
      + "/callalert-qemu-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log"
    let image = machine == .microbit ? microbitImage : image
    return try await QemuBoard(image: image, debugLog: debugLog, machine: machine).start()
  }

  /// Stops QEMU by its process id and reaps it; returns what the firmware wrote on its debug console (UART1),
  /// and deletes the log unless CALLALERT_QEMU_LOG_DIR keeps it.
  static func stop(_ qemu: RunningQemu) async -> String {
    await qemu.stopAndWait()
    let console = qemu.readDebugLog() ?? ""
    if keptLogDirectory == nil, let debugLog = qemu.debugLog { unlink(debugLog) }
    return console
  }
}
