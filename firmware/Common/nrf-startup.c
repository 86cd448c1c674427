// Startup code and vector table for the micro:bit's nRF51822 (Cortex-M0) and nRF52833 (Cortex-M4, run here
// without its FPU): copies .data, clears .bss, paints the stack, then calls main (the Swift @main).
// Written for ARMv6-M, so it serves both.
#include <stdint.h>

#include "board.h"

extern uint32_t __data_start, __data_end, __data_load, __bss_start, __bss_end, __stack_bottom, __stack_top;
extern int main(int argc, char **argv);

void board_uart0_irq(void);
void board_timer0_irq(void);
void board_fault(uint32_t kind, const uint32_t *frame);
void reset_handler(void);

__attribute__((naked)) static void hard_fault_handler(void) {
  // The firmware runs on the main stack only: pass the stacked exception frame to board_fault.
  __asm volatile(
      "movs r0, #3\n"
      "mrs r1, msp\n"
      "ldr r2, =board_fault\n"
      "bx r2\n");
}

static void default_handler(void) {
  board_fault(0, 0);
}

typedef void (*vector_t)(void);

#define D default_handler
/// The vector table: initial stack pointer, the system exceptions, then the nRF's interrupts (2: UART0,
/// 8: TIMER0; the others are unused).
__attribute__((section(".vectors"), used)) static const vector_t vectors[16 + 48] = {
    (vector_t)&__stack_top, reset_handler, D, hard_fault_handler, hard_fault_handler, hard_fault_handler,
    hard_fault_handler, 0, 0, 0, 0, D, D, 0, D, D,
    D, D, board_uart0_irq, D, D, D, D, D, board_timer0_irq, D, D, D, D, D, D, D,
    D, D, D, D, D, D, D, D, D, D, D, D, D, D, D, D,
    D, D, D, D, D, D, D, D, D, D, D, D, D, D, D, D,
};

#define STACK_PAINT 0x5AC4DEADu

uint32_t board_stack_peak(void) {
  uint32_t *word = &__stack_bottom;
  while (word < &__stack_top && *word == STACK_PAINT) word++;
  return (uint32_t)((uint8_t *)&__stack_top - (uint8_t *)word);
}

void reset_handler(void) {
  uint32_t *sp;
  __asm volatile("mov %0, sp" : "=r"(sp));
  for (uint32_t *word = &__stack_bottom; word < sp - 16;) *word++ = STACK_PAINT;
  uint32_t *src = &__data_load;
  for (uint32_t *dst = &__data_start; dst < &__data_end;) *dst++ = *src++;
  for (uint32_t *dst = &__bss_start; dst < &__bss_end;) *dst++ = 0;
  main(0, 0);
  board_reset(BOARD_BOOT_FAULT);
}
