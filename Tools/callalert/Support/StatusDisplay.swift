import CallAlertProtocol
import CallAlertText
import CallAlertVirtualBoard
// Full Foundation, not FoundationEssentials: FileHandle.
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Shows a board's actuators as one live status line on a terminal (a line per change otherwise) and
/// appends each change to a JSON-lines timeline file.
final class StatusDisplay: Sendable {
  private let timelinePath: String?
  /// The open timeline; changes come from the board's runner while the command closes it.
  private let timelineFile = Mutex<FileHandle?>(nil)
  private let isTerminal = isatty(STDERR_FILENO) == 1

  init(timelinePath: String?) {
    self.timelinePath = timelinePath
  }

  /// Creates (truncates) the timeline file.
  func open() throws {
    guard let timelinePath else { return }
    guard FileManager.default.createFile(atPath: timelinePath, contents: nil) else {
      throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: timelinePath])
    }
    let file = FileHandle(forWritingAtPath: timelinePath)
    timelineFile.withLock { $0 = file }
  }

  /// Shows one change.
  func show(_ entry: ActuatorTimeline.Entry) {
    timelineFile.withLock { file in
      file?.write(Data((entry.jsonLine + "\n").utf8))
      let line = StatusDisplay.describe(entry)
      let text = isTerminal ? "\r\u{1B}[2K" + line : line + "\n"
      FileHandle.standardError.write(Data(text.utf8))
    }
  }

  /// Ends the status line and closes the timeline.
  func close() {
    timelineFile.withLock { file in
      if isTerminal { FileHandle.standardError.write(Data("\n".utf8)) }
      try? file?.close()
      file = nil
    }
  }

  /// A readable account of a state, e.g. `  12.345 s  buzzer 2700 Hz vol 200  motor 180  led 1`.
  static func describe(_ entry: ActuatorTimeline.Entry) -> String {
    let state = entry.state
    let seconds = PrintfText.format("%9.3f s", Double(entry.ms) / 1000)
    let buzzer =
      state.buzzerHz == 0 || state.buzzerVolume == 0
      ? "buzzer  off          " : PrintfText.format("buzzer %5d Hz vol %3d", state.buzzerHz, state.buzzerVolume)
    let motors = state.motors.map { $0 == 0 ? "  -" : PrintfText.format("%3d", $0) }.joined(separator: " ")
    let leds = (0..<8).filter { state.leds & (1 << $0) != 0 }.map(String.init).joined(separator: ",")
    return "\(seconds)  \(buzzer)  motor \(motors)  led \(leds.isEmpty ? "-" : leds)"
  }
}
