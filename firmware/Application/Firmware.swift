import BoardSupport
import CallAlertBoardCore
import CallAlertProtocol

/// The CallAlert board firmware: the portable ``BoardCore`` (the same code the virtual board runs) on the
/// board's actuators, its pattern flash (``PatternFlash``, per board) and UART0. The board's folder supplies
/// ``BoardConfiguration/thisBoard`` and ``PatternFlash``.
///
/// The main loop: feed received bytes to the core, tick it when its next wake-up is due or a button level
/// changed, send its output, and sleep (WFI) until the next interrupt: a byte, or the 1 kHz SysTick.
@main
struct Firmware {
  static func main() {
    run(bootReason: BootReason(rawValue: UInt8(truncatingIfNeeded: board_start())) ?? .powerOn)
  }

  /// Runs the core until RESET was answered, then restarts the chip.
  static func run(bootReason: BootReason) -> Never {
    var core = BoardCore(
      configuration: .thisBoard, hardware: MappedHardware(), flash: PatternFlash(), nowMs: board_millis(),
      bootReason: bootReason)
    var buffer = [UInt8](repeating: 0, count: 128)
    var levels = board_buttons()
    send(core.takeOutput())
    while true {
      board_watchdog_feed()
      let now = board_millis()
      let count = buffer.withUnsafeMutableBufferPointer { board_uart_read($0.baseAddress, $0.count) }
      if count > 0 { core.receive(buffer[0..<count], nowMs: now) }
      let buttons = board_buttons()
      if buttons != levels || (core.nextWakeMs.map { $0 <= now } ?? false) {
        levels = buttons
        core.tick(nowMs: now)
      }
      send(core.takeOutput())
      if core.resetRequested {
        // RESET was answered: the answer leaves first, then the chip restarts (the RAM flash stays).
        board_uart_flush()
        board_debug_hex("callalert: reset; heap peak", UInt32(truncatingIfNeeded: callalert_heap_peak()))
        board_debug_hex("callalert: stack peak", board_stack_peak())
        // The RAM budget's figure: static data, the heap's peak and the stack's peak (conformance suite).
        board_debug_hex(
          "callalert: ram peak",
          UInt32(truncatingIfNeeded: callalert_static_ram() + callalert_heap_peak()) &+ board_stack_peak())
        board_reset(UInt32(BOARD_BOOT_RESET_COMMAND))
      }
      if count == 0 { board_idle(now) }
    }
  }

  static func send(_ bytes: [UInt8]) {
    guard !bytes.isEmpty else { return }
    bytes.withUnsafeBufferPointer { board_uart_write($0.baseAddress, $0.count) }
  }
}
