// Board support for the BBC micro:bit (v1: nRF51822, Cortex-M0; v2: nRF52833, Cortex-M4), shared by both:
// UART0 (the protocol line on the DAPLink USB serial port, 115 200 8N1, interrupt-driven rings), TIMER0 as
// the clock's free-running 1 MHz timebase plus a 1 ms wake-up compare, the LED matrix scanned from that
// tick, the buzzer (TIMER1 + GPIOTE + PPI square wave on edge pin 0) and the motor (TIMER2 PWM on pin 1),
// the buttons, NVMC flash pages for the A/B tables, the hardware RNG, the watchdog and the soft reset.
// The pins and sizes come from board-config.h in the board's folder.
#include "board-config.h"
#include "board.h"

#define REG(address) (*(volatile uint32_t *)(address))

#define SCB_AIRCR REG(0xE000ED0Cu)
#define NVIC_ISER0 REG(0xE000E100u)

// POWER/CLOCK
#define CLOCK_TASKS_HFCLKSTART REG(0x40000000u)
#define CLOCK_EVENTS_HFCLKSTARTED REG(0x40000100u)
#define POWER_RESETREAS REG(0x40000400u)

// UART0 (the legacy UART: the nRF52833 keeps it at the same address beside UARTE0)
#define UART0 0x40002000u
#define UART_TASKS_STARTRX REG(UART0 + 0x000u)
#define UART_TASKS_STARTTX REG(UART0 + 0x008u)
#define UART_EVENTS_RXDRDY REG(UART0 + 0x108u)
#define UART_EVENTS_TXDRDY REG(UART0 + 0x11Cu)
#define UART_EVENTS_ERROR REG(UART0 + 0x124u)
#define UART_INTENSET REG(UART0 + 0x304u)
#define UART_INTENCLR REG(UART0 + 0x308u)
#define UART_ERRORSRC REG(UART0 + 0x480u)
#define UART_ENABLE REG(UART0 + 0x500u)
#define UART_PSELTXD REG(UART0 + 0x50Cu)
#define UART_PSELRXD REG(UART0 + 0x514u)
#define UART_RXD REG(UART0 + 0x518u)
#define UART_TXD REG(UART0 + 0x51Cu)
#define UART_BAUDRATE REG(UART0 + 0x524u)
#define UART_INT_RXDRDY (1u << 2)
#define UART_INT_TXDRDY (1u << 7)
#define UART_IRQ 2u

// GPIOTE and PPI: the buzzer's and motor's waveforms run in hardware, with no interrupt per edge.
#define GPIOTE_TASKS_OUT(n) (0x40006000u + 4u * (n))
#define GPIOTE_CONFIG(n) REG(0x40006510u + 4u * (n))
#define PPI_CHENSET REG(0x4001F504u)
#define PPI_CHENCLR REG(0x4001F508u)
#define PPI_EEP(n) REG(0x4001F510u + 8u * (n))
#define PPI_TEP(n) REG(0x4001F514u + 8u * (n))

// TIMERn
#define TIMER(n) (0x40008000u + 0x1000u * (n))
#define T_START(t) REG((t) + 0x000u)
#define T_STOP(t) REG((t) + 0x004u)
#define T_CLEAR(t) REG((t) + 0x00Cu)
#define T_CAPTURE(t, n) REG((t) + 0x040u + 4u * (n))
#define T_COMPARE(t, n) REG((t) + 0x140u + 4u * (n))
#define T_SHORTS(t) REG((t) + 0x200u)
#define T_INTENSET(t) REG((t) + 0x304u)
#define T_MODE(t) REG((t) + 0x504u)
#define T_BITMODE(t) REG((t) + 0x508u)
#define T_PRESCALER(t) REG((t) + 0x510u)
#define T_CC(t, n) REG((t) + 0x540u + 4u * (n))
#define TIMER0_IRQ 8u

// RNG, WDT, NVMC
#define RNG_TASKS_START REG(0x4000D000u)
#define RNG_TASKS_STOP REG(0x4000D004u)
#define RNG_EVENTS_VALRDY REG(0x4000D100u)
#define RNG_CONFIG REG(0x4000D504u)
#define RNG_VALUE REG(0x4000D508u)
#define WDT_TASKS_START REG(0x40010000u)
#define WDT_CRV REG(0x40010504u)
#define WDT_RREN REG(0x40010508u)
#define WDT_CONFIG REG(0x4001050Cu)
#define WDT_RR0 REG(0x40010600u)
#define NVMC_READY REG(0x4001E400u)
#define NVMC_CONFIG REG(0x4001E504u)
#define NVMC_ERASEPAGE REG(0x4001E508u)

// GPIO: port 0 (and port 1 on the nRF52833); pin numbers above 31 are port 1's.
#define GPIO_PORT(pin) (0x50000000u + ((pin) >> 5) * 0x300u)
#define GPIO_OUTSET(pin) REG(GPIO_PORT(pin) + 0x508u)
#define GPIO_OUTCLR(pin) REG(GPIO_PORT(pin) + 0x50Cu)
#define GPIO_IN(pin) REG(GPIO_PORT(pin) + 0x510u)
#define GPIO_PIN_CNF(pin) REG(GPIO_PORT(pin) + 0x700u + 4u * ((pin) & 31u))
#define PIN_OUTPUT 1u
#define PIN_INPUT_PULLUP 0xCu  // input, buffer connected, pull-up (beside the micro:bit's external ones;
                              // QEMU, with nothing wired, then reads the buttons released)

#define BAUD_115200 0x01D7E000u
#define WATCHDOG_MS 1000u

extern uint8_t __flash_start[], __flash_size[], __noinit_start[];

typedef struct {
  uint32_t magic;
  uint32_t reset_reason;
  uint32_t pool;
  uint32_t boots;
  uint32_t reserved[58];
  uint32_t semihosting;  // offset 0xF8: SEMIHOSTING_ON when the launcher (QEMU) wants the debug console
  uint32_t host_seed;    // offset 0xFC: a seed the launcher may place here
} noinit_t;

#define NOINIT ((noinit_t *)__noinit_start)
#define NOINIT_MAGIC 0xCA11B007u
#define RESET_MARK 0x52530000u
#define SEMIHOSTING_ON 0x53454D49u  // "SEMI"

static volatile uint64_t millis;
static uint32_t timer_last, timer_micros;
static volatile uint32_t rx_head, rx_tail, tx_head, tx_tail, tx_busy, rx_throttled;
static uint8_t rx_ring[RX_SIZE];
static uint8_t tx_ring[TX_SIZE];
static uint32_t tx_dropped, entropy_counter;
static volatile uint32_t display_image;  // bit y*5+x = pixel (x, y) lit
static uint32_t display_row;

static inline uint32_t irq_save(void) {
  uint32_t primask;
  __asm volatile("mrs %0, primask\n cpsid i" : "=r"(primask)::"memory");
  return primask;
}

static inline void irq_restore(uint32_t primask) {
  __asm volatile("msr primask, %0" ::"r"(primask) : "memory");
}

static uint32_t fmix32(uint32_t h) {
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

// MARK: - Debug console: ARM semihosting, only when the launcher asked for it (a BKPT with no debugger
// attached would fault on a real board). UART0 is the protocol line and carries nothing else.

static void semihost_write0(const char *text) {
  if (NOINIT->semihosting != SEMIHOSTING_ON) return;
  register uint32_t op __asm("r0") = 0x04u;  // SYS_WRITE0
  register const char *arg __asm("r1") = text;
  __asm volatile("bkpt 0xAB" : "+r"(op) : "r"(arg) : "memory");
}

void board_debug(const char *text) {
  semihost_write0(text);
  semihost_write0("\n");
}

void board_debug_hex(const char *label, uint32_t value) {
  char line[48];
  uint32_t n = 0;
  while (*label && n < sizeof line - 12) line[n++] = *label++;
  line[n++] = ' ';
  for (int shift = 28; shift >= 0; shift -= 4) line[n++] = "0123456789abcdef"[(value >> shift) & 15u];
  line[n++] = '\n';
  line[n] = 0;
  semihost_write0(line);
}

int putchar(int c) {
  char text[2] = {(char)c, 0};
  semihost_write0(text);
  return c;
}

// MARK: - Pins

static void pin_output(uint32_t pin) {
  GPIO_OUTCLR(pin) = 1u << (pin & 31u);
  GPIO_PIN_CNF(pin) = PIN_OUTPUT;
}

static void pin_write(uint32_t pin, int high) {
  if (high) GPIO_OUTSET(pin) = 1u << (pin & 31u);
  else GPIO_OUTCLR(pin) = 1u << (pin & 31u);
}

// MARK: - Start

static void clock_update(void);

uint32_t board_start(void) {
  uint32_t reason = BOARD_BOOT_POWER_ON;
  uint32_t hardware = POWER_RESETREAS;
  POWER_RESETREAS = hardware;  // write 1s to clear
  if (NOINIT->magic != NOINIT_MAGIC) {
    // Cold boot: the page holds what RAM held at power-on (noise on silicon): keep it in the pool. The
    // flash keeps the tables: that is what flash is for.
    NOINIT->magic = NOINIT_MAGIC;
    NOINIT->boots = 0;
  } else if ((NOINIT->reset_reason & 0xFFFF0000u) == RESET_MARK) {
    reason = NOINIT->reset_reason & 0xFFFFu;
  } else if (hardware & 2u) {
    reason = BOARD_BOOT_WATCHDOG;  // RESETREAS.DOG
  } else if (hardware & 8u) {
    reason = BOARD_BOOT_FAULT;  // RESETREAS.LOCKUP
  }
  NOINIT->reset_reason = 0;
  NOINIT->boots++;
  stir(NOINIT->host_seed);
  stir(NOINIT->boots);

  // Outputs off first: a reset must never leave the buzzer or the motor on.
  pin_output(PIN_BUZZER);
  pin_output(PIN_MOTOR);
#ifdef PIN_SPEAKER
  pin_output(PIN_SPEAKER);
#endif
  for (uint32_t i = 0; i < sizeof display_rows / sizeof display_rows[0]; i++) pin_output(display_rows[i]);
  for (uint32_t i = 0; i < sizeof display_cols / sizeof display_cols[0]; i++) {
    pin_output(display_cols[i]);
    pin_write(display_cols[i], 1);  // columns are active low
  }
  GPIO_PIN_CNF(PIN_BUTTON_A) = PIN_INPUT_PULLUP;
  GPIO_PIN_CNF(PIN_BUTTON_B) = PIN_INPUT_PULLUP;

  // The crystal oscillator for an accurate baud rate and clock (bounded: QEMU does not model CLOCK).
  CLOCK_EVENTS_HFCLKSTARTED = 0;
  CLOCK_TASKS_HFCLKSTART = 1;
  for (uint32_t spin = 0; spin < 100000u && !CLOCK_EVENTS_HFCLKSTARTED; spin++) {
  }

  UART_PSELTXD = PIN_UART_TX;
  UART_PSELRXD = PIN_UART_RX;
  UART_BAUDRATE = BAUD_115200;
  UART_ENABLE = 4u;
  UART_EVENTS_RXDRDY = 0;
  UART_EVENTS_TXDRDY = 0;
  UART_TASKS_STARTRX = 1;
  UART_TASKS_STARTTX = 1;
  UART_INTENSET = UART_INT_RXDRDY | UART_INT_TXDRDY;

  // TIMER0: 1 MHz, 32 bits, free-running; CC[0] wakes the loop each millisecond, CC[3] reads the count.
  uint32_t t0 = TIMER(0);
  T_MODE(t0) = 0;
  T_BITMODE(t0) = 3;
  T_PRESCALER(t0) = 4;
  T_CLEAR(t0) = 1;
  T_CC(t0, 0) = 1000u;
  T_INTENSET(t0) = 1u << 16;  // COMPARE[0]
  T_START(t0) = 1;
  T_CAPTURE(t0, 3) = 1;
  timer_last = T_CC(t0, 3);

  NVIC_ISER0 = (1u << UART_IRQ) | (1u << TIMER0_IRQ);

#ifndef BOARD_NO_WATCHDOG
  WDT_CONFIG = 1u;  // keep running while the CPU sleeps
  WDT_CRV = 32768u / 1000u * WATCHDOG_MS;
  WDT_RREN = 1u;
  WDT_TASKS_START = 1;
#endif

  board_debug_hex("callalert: boot, reason", reason);
  return reason;
}

// MARK: - Time and the display scan

static void clock_update(void) {  // with interrupts off, or from the TIMER0 interrupt
  T_CAPTURE(TIMER(0), 3) = 1;
  uint32_t value = T_CC(TIMER(0), 3);
  uint32_t elapsed = value - timer_last;  // an up-counter over the whole 32-bit range
  timer_last = value;
  timer_micros += elapsed % 1000u;
  uint32_t carry = timer_micros >= 1000u;
  if (carry) timer_micros -= 1000u;
  millis = millis + elapsed / 1000u + carry;
}

static void display_step(void) {
  // One row per millisecond: switch the old row off, set the columns, switch the new row on.
  const uint32_t rows = sizeof display_rows / sizeof display_rows[0];
  const uint32_t cols = sizeof display_cols / sizeof display_cols[0];
  pin_write(display_rows[display_row], 0);
  display_row = (display_row + 1) % rows;
  uint32_t image = display_image;
  for (uint32_t c = 0; c < cols; c++) {
    uint8_t pixel = display_map[display_row][c];
    pin_write(display_cols[c], !(pixel < 25 && (image >> pixel) & 1u));
  }
  if (image) pin_write(display_rows[display_row], 1);
}

void board_timer0_irq(void) {
  T_COMPARE(TIMER(0), 0) = 0;
  clock_update();
  // The next wake-up 1 ms after now (not after the last compare): a late interrupt never leaves the
  // compare behind the counter, which would silence it for 71 minutes.
  T_CC(TIMER(0), 0) = T_CC(TIMER(0), 3) + 1000u;
  display_step();
}

uint64_t board_millis(void) {
  uint32_t saved = irq_save();
  clock_update();
  uint64_t now = millis;
  irq_restore(saved);
  return now;
}

// MARK: - UART0

static void rx_drain(void) {
  while (UART_EVENTS_RXDRDY) {
    uint32_t head = rx_head;
    if (head - rx_tail >= RX_SIZE) {
      // Full: leave the byte in the UART (QEMU then holds the line back; silicon overruns, see README).
      UART_INTENCLR = UART_INT_RXDRDY;
      rx_throttled = 1;
      return;
    }
    UART_EVENTS_RXDRDY = 0;
    uint8_t byte = (uint8_t)UART_RXD;
    rx_ring[head % RX_SIZE] = byte;
    rx_head = head + 1;
    T_CAPTURE(TIMER(0), 2) = 1;
    stir(byte ^ (T_CC(TIMER(0), 2) << 8));
  }
}

static void tx_pump(void) {
  if (UART_EVENTS_TXDRDY) {
    UART_EVENTS_TXDRDY = 0;
    tx_busy = 0;
  }
  if (!tx_busy && tx_tail != tx_head) {
    tx_busy = 1;
    UART_TXD = tx_ring[tx_tail % TX_SIZE];
    tx_tail = tx_tail + 1;
  }
}

void board_uart0_irq(void) {
  if (UART_EVENTS_ERROR) {
    UART_EVENTS_ERROR = 0;
    UART_ERRORSRC = UART_ERRORSRC;
  }
  rx_drain();
  tx_pump();
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
    rx_drain();
    if (!rx_throttled) UART_INTENSET = UART_INT_RXDRDY;
    irq_restore(saved);
  }
  return count;
}

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
    if (count > 0) __asm volatile("wfi");
    irq_restore(saved);
  }
}

uint32_t board_uart_dropped(void) {
  return tx_dropped;
}

void board_uart_flush(void) {
  uint64_t deadline = board_millis() + 100u;
  for (;;) {
    uint32_t saved = irq_save();
    tx_pump();
    clock_update();
    int done = (tx_tail == tx_head && !tx_busy) || millis >= deadline;
    if (!done) __asm volatile("wfi");
    irq_restore(saved);
    if (done) return;
  }
}

void board_idle(uint64_t since_ms) {
  uint32_t saved = irq_save();
  clock_update();
  if (rx_head == rx_tail && millis == since_ms) __asm volatile("wfi");
  irq_restore(saved);
}

// MARK: - Actuators

// The buzzer: TIMER1 at 1 MHz counts one period (CC[1], then clears); GPIOTE channel 0 toggles the pin at
// CC[0] (on) and CC[1] (off) through PPI channels 0 and 1. The high time is the volume's share of half the
// period (a piezo is loudest at 50 %).
static void buzzer(uint32_t hz, uint32_t volume) {
  uint32_t t1 = TIMER(1);
  T_STOP(t1) = 1;
  PPI_CHENCLR = 3u;
  GPIOTE_CONFIG(0) = 0;
  pin_write(PIN_BUZZER, 0);
  if (hz == 0 || volume == 0) return;
  uint32_t period = 1000000u / hz;
  uint32_t high = period / 2u * (volume > 255u ? 255u : volume) / 255u;
  if (high == 0) high = 1;
  T_MODE(t1) = 0;
  T_BITMODE(t1) = 0;  // 16 bits: periods up to 65 ms, i.e. down to 16 Hz
  T_PRESCALER(t1) = 4;
  T_CLEAR(t1) = 1;
  T_CC(t1, 0) = period - high;
  T_CC(t1, 1) = period;
  T_SHORTS(t1) = 1u << 1;  // COMPARE[1] -> CLEAR
  GPIOTE_CONFIG(0) = 3u | (PIN_BUZZER << 8) | (3u << 16);  // task mode, pin, toggle, initial low
  PPI_EEP(0) = t1 + 0x140u;
  PPI_TEP(0) = GPIOTE_TASKS_OUT(0);
  PPI_EEP(1) = t1 + 0x144u;
  PPI_TEP(1) = GPIOTE_TASKS_OUT(0);
  PPI_CHENSET = 3u;
  T_START(t1) = 1;
}

// The motor: TIMER2 at 16 MHz, a 20 kHz period (800 counts, inaudible), the same toggling scheme on
// GPIOTE channel 1 and PPI channels 2 and 3; 255 is steady on, 0 off.
static void motor(uint32_t intensity) {
  uint32_t t2 = TIMER(2);
  T_STOP(t2) = 1;
  PPI_CHENCLR = 0xCu;
  GPIOTE_CONFIG(1) = 0;
  pin_write(PIN_MOTOR, intensity >= 255u);
  if (intensity == 0 || intensity >= 255u) return;
  const uint32_t period = 800u;
  uint32_t high = period * intensity / 255u;
  T_MODE(t2) = 0;
  T_BITMODE(t2) = 0;
  T_PRESCALER(t2) = 0;
  T_CLEAR(t2) = 1;
  T_CC(t2, 0) = period - high;
  T_CC(t2, 1) = period;
  T_SHORTS(t2) = 1u << 1;
  GPIOTE_CONFIG(1) = 3u | (PIN_MOTOR << 8) | (3u << 16);
  PPI_EEP(2) = t2 + 0x140u;
  PPI_TEP(2) = GPIOTE_TASKS_OUT(1);
  PPI_EEP(3) = t2 + 0x144u;
  PPI_TEP(3) = GPIOTE_TASKS_OUT(1);
  PPI_CHENSET = 0xCu;
  T_START(t2) = 1;
}

// LED 0 (the indicator: ringing, missed calls blinking until acknowledged) lights the middle 3 x 3 square;
// LED 1 the four corners (the board's second state LED).
#define IMAGE_LED0 0x000739C0u  // (1..3, 1..3)
#define IMAGE_LED1 0x01100011u  // (0,0) (4,0) (0,4) (4,4)

void board_apply(uint32_t buzzer_hz, uint32_t buzzer_volume, uint32_t leds, const uint8_t *motors, uint32_t motor_count) {
  buzzer(buzzer_hz, buzzer_volume);
  motor(motor_count > 0 ? motors[0] : 0);
  display_image = ((leds & 1u) ? IMAGE_LED0 : 0) | ((leds & 2u) ? IMAGE_LED1 : 0);
}

uint32_t board_buttons(void) {
  // Buttons are active low. A or B is button 0: a tap on either acknowledges, a long press (B, by the
  // documented convention) is the long press.
  uint32_t a = !(GPIO_IN(PIN_BUTTON_A) & (1u << (PIN_BUTTON_A & 31u)));
  uint32_t b = !(GPIO_IN(PIN_BUTTON_B) & (1u << (PIN_BUTTON_B & 31u)));
  return a | b;
}

// MARK: - Entropy: the RNG peripheral, bias-corrected, mixed with the pool

uint32_t board_entropy(void) {
  uint32_t value = 0;
  RNG_CONFIG = 1u;  // DERCEN: bias correction
  RNG_TASKS_START = 1;
  for (int i = 0; i < 4; i++) {
    uint32_t spin = 0;
    while (!RNG_EVENTS_VALRDY && spin < 100000u) spin++;
    RNG_EVENTS_VALRDY = 0;
    value = (value << 8) | (RNG_VALUE & 0xFFu);
  }
  RNG_TASKS_STOP = 1;
  entropy_counter++;
  T_CAPTURE(TIMER(0), 2) = 1;
  stir(value ^ T_CC(TIMER(0), 2) ^ (entropy_counter * 0x9E3779B9u));
  uint32_t mixed = fmix32(NOINIT->pool ^ NOINIT->boots * 0x85EBCA6Bu);
  stir(mixed);
  return mixed;
}

// MARK: - Flash (NVMC)

uint8_t *board_flash_base(void) {
  return __flash_start;
}

size_t board_flash_size(void) {
  return (size_t)__flash_size;
}

size_t board_flash_page_size(void) {
  return FLASH_PAGE_SIZE;
}

static int nvmc_wait(void) {
  for (uint32_t spin = 0; spin < 10000000u; spin++) {
    if (NVMC_READY & 1u) return 1;
  }
  return 0;
}

int board_flash_erase(uint32_t offset) {
  if (offset >= (uint32_t)__flash_size || offset % FLASH_PAGE_SIZE) return 0;
  NVMC_CONFIG = 2u;  // EEN
  NVMC_ERASEPAGE = (uint32_t)__flash_start + offset;
  int ok = nvmc_wait();
  NVMC_CONFIG = 0;
  return ok;
}

int board_flash_program(uint32_t offset, const uint8_t *bytes, size_t count) {
  if (offset % 4u || count % 4u || offset + count > (uint32_t)__flash_size) return 0;
  volatile uint32_t *word = (volatile uint32_t *)(__flash_start + offset);
  NVMC_CONFIG = 1u;  // WEN
  int ok = 1;
  for (size_t i = 0; i < count && ok; i += 4, word++) {
    uint32_t value = (uint32_t)bytes[i] | (uint32_t)bytes[i + 1] << 8 | (uint32_t)bytes[i + 2] << 16 |
                     (uint32_t)bytes[i + 3] << 24;
    *word = value;
    ok = nvmc_wait();
  }
  NVMC_CONFIG = 0;
  return ok;
}

// MARK: - Watchdog and reset

void board_watchdog_feed(void) {
#ifndef BOARD_NO_WATCHDOG
  WDT_RR0 = 0x6E524635u;
#endif
}

_Noreturn void board_reset(uint32_t reason) {
  NOINIT->reset_reason = RESET_MARK | (reason & 0xFFFFu);
  __asm volatile("dsb" ::: "memory");
  SCB_AIRCR = 0x05FA0004u;
  __asm volatile("dsb" ::: "memory");
  for (;;) __asm volatile("wfi");
}

void board_fault(uint32_t kind, const uint32_t *frame) {
  board_debug_hex("callalert: fault", kind);
  if (frame) board_debug_hex("  pc", frame[6]);
  board_reset(BOARD_BOOT_FAULT);
}
