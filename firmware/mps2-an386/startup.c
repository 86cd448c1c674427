// Startup code and vector table for the Cortex-M4 of QEMU's mps2-an386: copies .data, clears .bss, enables
// the FPU-less soft-float world Swift was compiled for, then calls main (the Swift application's @main).
#include <stdint.h>

#include "board.h"

extern uint32_t __data_start, __data_end, __data_load, __bss_start, __bss_end, __stack_bottom, __stack_top;
extern int main(int argc, char **argv);

void board_uart0_rx_irq(void);
void board_uart0_tx_irq(void);
void board_systick_irq(void);
void board_watchdog_nmi(void);
void board_fault(uint32_t kind, const uint32_t *frame);

void reset_handler(void);

__attribute__((naked)) static void hard_fault_handler(void) {
  // Pass the stacked exception frame (MSP or PSP, per EXC_RETURN bit 2) to board_fault.
  __asm volatile(
      "movs r0, #3\n"
      "tst lr, #4\n"
      "ite eq\n"
      "mrseq r1, msp\n"
      "mrsne r1, psp\n"
      "b board_fault\n");
}

static void default_handler(void) {
  board_fault(0, 0);
}

typedef void (*vector_t)(void);

/// The vector table: initial stack pointer, the 15 system exceptions, then the AN386's interrupts
/// (0: UART0 RX, 1: UART0 TX; the others are unused and land in default_handler).
__attribute__((section(".vectors"), used)) static const vector_t vectors[16 + 32] = {
    (vector_t)&__stack_top,
    reset_handler,
    board_watchdog_nmi,  // NMI: the CMSDK watchdog's first expiry
    hard_fault_handler,  // HardFault (also escalated MemManage/BusFault/UsageFault, Swift traps)
    hard_fault_handler,  // MemManage
    hard_fault_handler,  // BusFault
    hard_fault_handler,  // UsageFault
    0, 0, 0, 0,
    default_handler,  // SVCall
    default_handler,  // DebugMonitor
    0,
    default_handler,  // PendSV
    board_systick_irq,
    board_uart0_rx_irq,  // IRQ 0
    board_uart0_tx_irq,  // IRQ 1
    default_handler, default_handler, default_handler, default_handler, default_handler, default_handler,
    default_handler, default_handler, default_handler, default_handler, default_handler, default_handler,
    default_handler, default_handler, default_handler, default_handler, default_handler, default_handler,
    default_handler, default_handler, default_handler, default_handler, default_handler, default_handler,
    default_handler, default_handler, default_handler, default_handler, default_handler, default_handler,
};

#define STACK_PAINT 0x5AC4DEADu

/// Stack bytes used at most since boot: the painted words that were overwritten.
uint32_t board_stack_peak(void) {
  uint32_t *word = &__stack_bottom;
  while (word < &__stack_top && *word == STACK_PAINT) word++;
  return (uint32_t)((uint8_t *)&__stack_top - (uint8_t *)word);
}

void reset_handler(void) {
  // Paint the stack below this frame, so board_stack_peak can tell how deep it ever went.
  uint32_t *sp;
  __asm volatile("mov %0, sp" : "=r"(sp));
  for (uint32_t *word = &__stack_bottom; word < sp - 16;) *word++ = STACK_PAINT;
  uint32_t *src = &__data_load;
  for (uint32_t *dst = &__data_start; dst < &__data_end;) *dst++ = *src++;
  for (uint32_t *dst = &__bss_start; dst < &__bss_end;) *dst++ = 0;
  main(0, 0);
  board_reset(BOARD_BOOT_FAULT);  // main never returns; if it does, start again
}
