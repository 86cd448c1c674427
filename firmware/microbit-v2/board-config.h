// The BBC micro:bit v2 (nRF52833: Cortex-M4F, 128 KiB RAM, 512 KiB flash, 4 KiB flash pages).
// Pin numbers above 31 are port 1's (P1.n = 32 + n).
#ifndef CALLALERT_BOARD_CONFIG_H
#define CALLALERT_BOARD_CONFIG_H
#include <stdint.h>

#define PIN_UART_TX 6u   // P0.06 to the interface chip
#define PIN_UART_RX 40u  // P1.08 from the interface chip
#define PIN_BUZZER 2u    // edge connector pin 0
#define PIN_MOTOR 3u     // edge connector pin 1
#define PIN_SPEAKER 0u   // the on-board speaker, P0.00 (driven off; the buzzer pin carries the tone)
#define PIN_BUTTON_A 14u
#define PIN_BUTTON_B 23u
#define FLASH_PAGE_SIZE 4096u

#define RX_SIZE 2048u
#define TX_SIZE 16384u
#define TX_WAIT_MS 200u

// The 5 x 5 LEDs: 5 rows x 5 columns, one LED per crossing.
static const uint8_t display_rows[5] = {21, 22, 15, 24, 19};
static const uint8_t display_cols[5] = {28, 11, 31, 37, 30};
static const uint8_t display_map[5][5] = {
    {0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}, {10, 11, 12, 13, 14}, {15, 16, 17, 18, 19}, {20, 21, 22, 23, 24},
};
#endif
