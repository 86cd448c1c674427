// Board support for QEMU's mps2-an386: the CMSDK UART0 driver (interrupt-driven receive and transmit rings),
// the 1 kHz SysTick clock, the CMSDK watchdog, the actuator registers, the RAM "flash" kept across a soft
// reset, the boot nonce's entropy, the soft reset, and a debug console on UART1.
#include "board.h"

#define REG(address) (*(volatile uint32_t *)(address))

// System control space (ARMv7-M).
#define SYST_CSR REG(0xE000E010u)
#define SYST_RVR REG(0xE000E014u)
#define SYST_CVR REG(0xE000E018u)
#define NVIC_ISER0 REG(0xE000E100u)
#define SCB_AIRCR REG(0xE000ED0Cu)

// CMSDK APB UART (UART0 carries the protocol, UART1 the debug console).
#define UART0 0x40004000u
#define UART1 0x40005000u
#define UART_DATA(base) REG((base) + 0x00u)
#define UART_STATE(base) REG((base) + 0x04u)
#define UART_CTRL(base) REG((base) + 0x08u)
#define UART_INT(base) REG((base) + 0x0Cu)  // read: INTSTATUS; write 1s: INTCLEAR
#define UART_BAUDDIV(base) REG((base) + 0x10u)
#define UART_STATE_TXFULL 1u
#define UART_STATE_RXFULL 2u
#define UART_CTRL_TX_EN 1u
#define UART_CTRL_RX_EN 2u
#define UART_CTRL_TX_INTEN 4u
#define UART_CTRL_RX_INTEN 8u
#define UART_INT_TX 1u
#define UART_INT_RX 2u

// CMSDK APB timer 0: a free-running 25 MHz down-counter, the clock's timebase.
#define TIMER0_CTRL REG(0x40000000u)
#define TIMER0_VALUE REG(0x40000004u)
#define TIMER0_RELOAD REG(0x40000008u)

// CMSDK APB watchdog: the first expiry raises NMI, the second resets the system.
#define WDOG_LOAD REG(0x40008000u)
#define WDOG_CONTROL REG(0x40008008u)
#define WDOG_INTCLR REG(0x4000800Cu)
#define WDOG_LOCK REG(0x40008C00u)
#define WDOG_UNLOCK_KEY 0x1ACCE551u

// The AN386 FPGA I/O block: LED0 drives the two user LEDs of the MPS2 board.
#define FPGAIO_LED0 REG(0x40028000u)

#define SYSTEM_CLOCK_HZ 25000000u
#define BAUD_RATE 115200u
#define WATCHDOG_MS 1000u

extern uint8_t __flash_start[], __flash_size[], __noinit_start[];

/// State kept across a soft reset, in a RAM page no ELF segment covers.
typedef struct {
  uint32_t magic;         // NOINIT_MAGIC once a cold boot has initialised the page and erased the flash
  uint32_t reset_reason;  // RESET_MARK | BOARD_BOOT_* when the firmware asked for the reset
  uint32_t pool;          // entropy pool, stirred by every received byte, every nonce and every boot
  uint32_t boots;         // boots since the cold boot
  uint32_t reserved[59];
  uint32_t host_seed;     // offset 0xFC: a seed the launcher may place here (QEMU: -device loader,...)
} noinit_t;

#define NOINIT ((noinit_t *)__noinit_start)
#define NOINIT_MAGIC 0xCA11B007u
#define RESET_MARK 0x52530000u  // "RS" in the upper half, the reason in the lower

#define RX_SIZE 2048u  // powers of two
#define TX_SIZE 16384u  // at least a full window of answers: 8 x 1 045 bytes, plus events

static volatile uint64_t millis;
static uint32_t timer_last, timer_cycles;  // the timer's last value; cycles counted towards the next ms
static volatile uint32_t rx_head, rx_tail, tx_head, tx_tail;
static volatile uint32_t rx_throttled;
static uint8_t rx_ring[RX_SIZE];
static uint8_t tx_ring[TX_SIZE];
static uint32_t entropy_counter;

static inline uint32_t irq_save(void) {
  uint32_t primask;
  __asm volatile("mrs %0, primask\n cpsid i" : "=r"(primask)::"memory");
  return primask;
}

static inline void irq_restore(uint32_t primask) {
  __asm volatile("msr primask, %0" ::"r"(primask) : "memory");
}

static uint32_t fmix32(uint32_t h) {  // MurmurHash3's finaliser: every input bit reaches every output bit
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  h ^= h >> 16;
  return h;
}

static void stir(uint32_t value) {
  NOINIT->pool = ((NOINIT->pool << 5) | (NOINIT->pool >> 27)) ^ value;
}

// MARK: - Debug console (UART1, polled)

static void debug_putc(char c) {
  while (UART_STATE(UART1) & UART_STATE_TXFULL) {
  }
  UART_DATA(UART1) = (uint8_t)c;
}

void board_debug(const char *text) {
  while (*text) debug_putc(*text++);
  debug_putc('\r');
  debug_putc('\n');
}

void board_debug_hex(const char *label, uint32_t value) {
  while (*label) debug_putc(*label++);
  debug_putc(' ');
  for (int shift = 28; shift >= 0; shift -= 4) debug_putc("0123456789abcdef"[(value >> shift) & 15u]);
  debug_putc('\r');
  debug_putc('\n');
}

/// The Embedded Swift runtime prints fatal errors through putchar: to the debug console.
int putchar(int c) {
  debug_putc((char)c);
  return c;
}

// MARK: - Start

uint32_t board_start(void) {
  uint32_t reason = BOARD_BOOT_POWER_ON;
  if (NOINIT->magic != NOINIT_MAGIC) {
    // Cold boot: the page holds whatever RAM held at power-on (noise on silicon, zeros in QEMU): keep it in
    // the pool, then erase the pattern flash, as a board leaves the factory.
    uint8_t *flash = __flash_start;
    for (uint32_t i = 0; i < (uint32_t)__flash_size; i++) flash[i] = 0xFF;
    NOINIT->magic = NOINIT_MAGIC;
    NOINIT->boots = 0;
  } else if ((NOINIT->reset_reason & 0xFFFF0000u) == RESET_MARK) {
    reason = NOINIT->reset_reason & 0xFFFFu;
  }
  NOINIT->reset_reason = 0;
  NOINIT->boots++;
  stir(NOINIT->host_seed);
  stir(NOINIT->boots);

  BOARD_IO->buzzer_hz = 0;
  BOARD_IO->buzzer_volume = 0;
  BOARD_IO->leds = 0;
  for (int i = 0; i < 8; i++) BOARD_IO->motors[i] = 0;
  BOARD_IO->buttons = 0;
  FPGAIO_LED0 = 0;

  UART_BAUDDIV(UART1) = SYSTEM_CLOCK_HZ / BAUD_RATE;
  UART_CTRL(UART1) = UART_CTRL_TX_EN;

  UART_BAUDDIV(UART0) = SYSTEM_CLOCK_HZ / BAUD_RATE;
  UART_INT(UART0) = UART_INT_TX | UART_INT_RX;
  UART_CTRL(UART0) = UART_CTRL_TX_EN | UART_CTRL_RX_EN | UART_CTRL_RX_INTEN;
  NVIC_ISER0 = (1u << 0) | (1u << 1);  // UART0 RX and TX

  TIMER0_RELOAD = 0xFFFFFFFFu;
  TIMER0_CTRL = 1u;  // enable, no interrupt: it wraps every 171 s and is read at least every millisecond
  timer_last = TIMER0_VALUE;
  SYST_RVR = SYSTEM_CLOCK_HZ / 1000u - 1u;  // 24 999: one interrupt per millisecond
  SYST_CVR = 0;
  SYST_CSR = 7u;  // processor clock, interrupt, enable

#ifndef BOARD_NO_WATCHDOG
  WDOG_LOCK = WDOG_UNLOCK_KEY;
  WDOG_LOAD = SYSTEM_CLOCK_HZ / 1000u * WATCHDOG_MS;
  WDOG_CONTROL = 3u;  // interrupt (NMI) at the first expiry, reset at the second
  WDOG_LOCK = 0;
#endif

  board_debug_hex("callalert: boot, reason", reason);
  return reason;
}

// MARK: - Time

// The clock counts the timer's cycles, not SysTick interrupts: an interrupt taken late (or, in QEMU, not at
// all while the host deschedules the emulator) loses no time. SysTick only wakes the main loop each ms.
static void clock_update(void) {  // with interrupts off, or from the SysTick interrupt
  uint32_t value = TIMER0_VALUE;
  uint32_t elapsed = timer_last - value;  // a down-counter over the whole 32-bit range
  timer_last = value;
  const uint32_t per_ms = SYSTEM_CLOCK_HZ / 1000u;
  timer_cycles += elapsed % per_ms;
  uint32_t carry = timer_cycles >= per_ms;
  if (carry) timer_cycles -= per_ms;
  millis = millis + elapsed / per_ms + carry;
}

void board_systick_irq(void) {
  clock_update();
}

uint64_t board_millis(void) {
  uint32_t saved = irq_save();
  clock_update();
  uint64_t now = millis;
  irq_restore(saved);
  return now;
}

// MARK: - UART0

static void rx_drain(void) {  // with interrupts off, or from the RX interrupt
  while (UART_STATE(UART0) & UART_STATE_RXFULL) {
    uint32_t head = rx_head;
    if (head - rx_tail >= RX_SIZE) {
      // Full: leave the byte in the UART (QEMU then holds the line back) until the main loop drains the ring.
      UART_CTRL(UART0) &= ~UART_CTRL_RX_INTEN;
      rx_throttled = 1;
      return;
    }
    uint8_t byte = (uint8_t)UART_DATA(UART0);
    rx_ring[head % RX_SIZE] = byte;
    rx_head = head + 1;
    stir(byte ^ (SYST_CVR << 8));  // arrival timing is noise on real hardware
  }
}

void board_uart0_rx_irq(void) {
  UART_INT(UART0) = UART_INT_RX;
  rx_drain();
}

size_t board_uart_read(uint8_t *buffer, size_t capacity) {
  size_t count = 0;
  uint32_t tail = rx_tail;
  uint32_t head = rx_head;
  while (count < capacity && tail != head) buffer[count++] = rx_ring[tail++ % RX_SIZE];
  rx_tail = tail;
  if (rx_throttled && count > 0) {
    uint32_t saved = irq_save();
    rx_throttled = 0;
    UART_CTRL(UART0) |= UART_CTRL_RX_INTEN;
    rx_drain();  // a byte that arrived while the interrupt was off raised none
    irq_restore(saved);
  }
  return count;
}

static void tx_pump(void) {  // with interrupts off, or from the TX interrupt
  while (tx_tail != tx_head && !(UART_STATE(UART0) & UART_STATE_TXFULL)) {
    UART_DATA(UART0) = tx_ring[tx_tail % TX_SIZE];
    tx_tail = tx_tail + 1;
  }
  if (tx_tail == tx_head) {
    UART_CTRL(UART0) &= ~UART_CTRL_TX_INTEN;
  } else {
    UART_CTRL(UART0) |= UART_CTRL_TX_INTEN;  // the UART interrupts when it takes the next byte
  }
}

void board_uart0_tx_irq(void) {
  UART_INT(UART0) = UART_INT_TX;
  tx_pump();
}

// A host that stops reading (or a full USB endpoint on a real board) must not stall the main loop: the
// protocol's tick, lease and cap would stop with it, and the watchdog would fire. Bytes that find no room
// within TX_WAIT_MS are dropped; the host's decoder drops the damaged frame and resynchronises at the next
// delimiter, events are retransmitted, and notifications were never reliable.
#define TX_WAIT_MS 20u

static uint32_t tx_dropped;

void board_uart_write(const uint8_t *bytes, size_t count) {
  uint64_t deadline = board_millis() + TX_WAIT_MS;
  while (count > 0) {
    uint32_t saved = irq_save();
    while (count > 0 && tx_head - tx_tail < TX_SIZE) {
      tx_ring[tx_head % TX_SIZE] = *bytes++;
      tx_head = tx_head + 1;
      count--;
    }
    tx_pump();
    clock_update();
    if (count > 0 && millis >= deadline) {
      if (tx_dropped == 0) board_debug("callalert: nobody reads UART0; dropping output");
      tx_dropped += (uint32_t)count;
      count = 0;
    }
    if (count > 0) __asm volatile("wfi");  // the ring is full: sleep until the UART takes bytes (or a tick)
    irq_restore(saved);
  }
}

uint32_t board_uart_dropped(void) {
  return tx_dropped;
}

void board_uart_flush(void) {
  uint64_t deadline = board_millis() + 100u;  // nobody reading: reset anyway
  for (;;) {
    uint32_t saved = irq_save();
    tx_pump();
    clock_update();
    int done = (tx_tail == tx_head && !(UART_STATE(UART0) & UART_STATE_TXFULL)) || millis >= deadline;
    if (!done) __asm volatile("wfi");
    irq_restore(saved);
    if (done) return;
  }
}

void board_idle(uint64_t since_ms) {
  // With interrupts masked, an interrupt that arrives between the test and WFI still ends the WFI.
  uint32_t saved = irq_save();
  clock_update();
  if (rx_head == rx_tail && millis == since_ms) __asm volatile("wfi");
  irq_restore(saved);
}

// MARK: - Actuators and button

void board_apply(uint32_t buzzer_hz, uint32_t buzzer_volume, uint32_t leds, const uint8_t *motors, uint32_t motor_count) {
  BOARD_IO->buzzer_hz = buzzer_hz;
  BOARD_IO->buzzer_volume = buzzer_volume;
  BOARD_IO->leds = leds;
  BOARD_IO->motor_count = motor_count;
  for (uint32_t i = 0; i < 8; i++) BOARD_IO->motors[i] = i < motor_count ? motors[i] : 0;
  BOARD_IO->changes = BOARD_IO->changes + 1;
  FPGAIO_LED0 = leds & 3u;
}

uint32_t board_buttons(void) {
  return BOARD_IO->buttons & 0xFFu;
}

// MARK: - Entropy

uint32_t board_entropy(void) {
  // QEMU has no TRNG. Mixed: the pool (kept across soft resets, stirred by every byte received with the
  // SysTick phase of its arrival, plus the launcher's seed at each boot), the SysTick phase now, the
  // uptime and a counter. On real hardware use the TRNG; see firmware/README.md.
  entropy_counter++;
  stir(SYST_CVR ^ (uint32_t)millis ^ (entropy_counter * 0x9E3779B9u));
  uint32_t value = fmix32(NOINIT->pool ^ NOINIT->boots * 0x85EBCA6Bu);
  stir(value);
  return value;
}

// MARK: - Flash

uint8_t *board_flash_base(void) {
  return __flash_start;
}

size_t board_flash_size(void) {
  return (size_t)__flash_size;
}

size_t board_flash_page_size(void) {
  return 1024u;
}

int board_flash_erase(uint32_t offset) {  // the RAM flash is erased and programmed in Swift (RAMFlash)
  (void)offset;
  return 0;
}

int board_flash_program(uint32_t offset, const uint8_t *bytes, size_t count) {
  (void)offset;
  (void)bytes;
  (void)count;
  return 0;
}

// MARK: - Watchdog and reset

void board_watchdog_feed(void) {
#ifndef BOARD_NO_WATCHDOG
  WDOG_LOCK = WDOG_UNLOCK_KEY;
  WDOG_INTCLR = 1;  // clears the interrupt and reloads the counter
  WDOG_LOCK = 0;
#endif
}

_Noreturn void board_reset(uint32_t reason) {
  NOINIT->reset_reason = RESET_MARK | (reason & 0xFFFFu);
  __asm volatile("dsb" ::: "memory");
  SCB_AIRCR = 0x05FA0004u;  // VECTKEY | SYSRESETREQ
  __asm volatile("dsb" ::: "memory");
  for (;;) __asm volatile("wfi");
}

void board_watchdog_nmi(void) {
  board_debug("callalert: watchdog expired");
  board_reset(BOARD_BOOT_WATCHDOG);
}

void board_fault(uint32_t kind, const uint32_t *frame) {
  board_debug_hex("callalert: fault", kind);
  if (frame) board_debug_hex("  pc", frame[6]);
  board_reset(BOARD_BOOT_FAULT);
}
