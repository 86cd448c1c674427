// The board-support layer of the CallAlert firmware for QEMU's mps2-an386 (Cortex-M4): what the Swift
// application sees of the hardware. Everything here is plain C with fixed-size types so that Swift imports
// it directly; the implementation is in board.c, the startup code in startup.c.
#ifndef CALLALERT_BOARD_H
#define CALLALERT_BOARD_H

#include <stddef.h>
#include <stdint.h>

/// Why the board started (the values of the protocol's BOOT reason).
enum {
  BOARD_BOOT_POWER_ON = 0,
  BOARD_BOOT_RESET_COMMAND = 1,
  BOARD_BOOT_WATCHDOG = 2,
  BOARD_BOOT_FAULT = 3,
};

/// The actuator and button registers: a block at a fixed address (see the linker script), as a real board's
/// PWM and GPIO peripherals would be. QEMU has no buzzer or motor; these registers only hold what the
/// firmware drives, and the host sees it through the protocol's ACTUATORS notifications.
typedef struct {
  volatile uint32_t buzzer_hz;      // 0x00: tone frequency, 0 = silent
  volatile uint32_t buzzer_volume;  // 0x04: 0-255, a PWM duty on real hardware
  volatile uint32_t leds;           // 0x08: bit n = LED n (also mirrored to the FPGA LED register)
  volatile uint32_t motor_count;    // 0x0C: motors wired
  volatile uint32_t motors[8];      // 0x10: each motor's intensity 0-255
  volatile uint32_t buttons;        // 0x30: input: bit n = button n pressed (raw level)
  volatile uint32_t changes;        // 0x34: incremented on every actuator update (for a debugger)
} board_io_t;

/// The actuator/button register block.
#define BOARD_IO ((board_io_t *)0x203FF000u)

/// Starts the board: clocks, UART0 (protocol, 115 200 8N1), UART1 (debug), the 1 kHz SysTick, the
/// watchdog, the pattern flash (erased on a cold boot). Returns why the board started (BOARD_BOOT_*).
uint32_t board_start(void);

/// Milliseconds since this boot (the SysTick count); never wraps in practice.
uint64_t board_millis(void);

/// Moves up to `capacity` received bytes into `buffer`; returns how many.
size_t board_uart_read(uint8_t *buffer, size_t capacity);

/// Queues bytes for UART0; sleeps while the transmit ring is full, for at most 20 ms, then drops the rest.
void board_uart_write(const uint8_t *bytes, size_t count);

/// Bytes dropped because the transmit ring stayed full (nobody reading the line).
uint32_t board_uart_dropped(void);

/// Waits until every queued byte has left UART0 (at most 100 ms).
void board_uart_flush(void);

/// Sleeps (WFI) until an interrupt, unless bytes are waiting or the millisecond changed since `since_ms`.
void board_idle(uint64_t since_ms);

/// A 32-bit random value for the boot nonce (see board.c for what it mixes).
uint32_t board_entropy(void);

/// The raw button levels, bit n = button n pressed.
uint32_t board_buttons(void);

/// Drives the actuators: buzzer, LEDs, motors (`motor_count` intensities).
void board_apply(uint32_t buzzer_hz, uint32_t buzzer_volume, uint32_t leds, const uint8_t *motors, uint32_t motor_count);

/// The pattern flash: a RAM region that survives a soft reset, with NOR semantics enforced in Swift.
uint8_t *board_flash_base(void);
/// Its size in bytes.
size_t board_flash_size(void);

/// The pattern flash's erase unit, in bytes.
size_t board_flash_page_size(void);
/// Flash boards: erases the page at byte `offset` of the pattern flash; 1 on success.
int board_flash_erase(uint32_t offset);
/// Flash boards: programs `count` bytes (a multiple of 4, at a multiple of 4) at `offset`; 1 on success.
int board_flash_program(uint32_t offset, const uint8_t *bytes, size_t count);

/// Reloads the watchdog.
void board_watchdog_feed(void);

/// Restarts the board (SCB AIRCR SYSRESETREQ) after recording `reason` for the next boot's BOOT event.
_Noreturn void board_reset(uint32_t reason);

/// Heap bytes allocated now, and at most since boot (runtime.c's allocator, block headers included).
size_t callalert_heap_used(void);
size_t callalert_heap_peak(void);

/// RAM bytes taken by .data and .bss.
size_t callalert_static_ram(void);

/// Stack bytes used at most since boot (startup.c paints the stack).
uint32_t board_stack_peak(void);

/// Writes a line to the debug console (UART1); never to UART0, which carries the protocol.
void board_debug(const char *text);
/// Writes `label` and a 32-bit value in hex to the debug console.
void board_debug_hex(const char *label, uint32_t value);

#endif
