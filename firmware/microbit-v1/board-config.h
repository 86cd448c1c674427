// The BBC micro:bit v1 (nRF51822 QFAA: Cortex-M0, 16 KiB RAM, 256 KiB flash, 1 KiB flash pages).
#ifndef CALLALERT_BOARD_CONFIG_H
#define CALLALERT_BOARD_CONFIG_H
#include <stdint.h>

#define PIN_UART_TX 24u  // to the interface chip (DAPLink): the USB serial port
#define PIN_UART_RX 25u
#define PIN_BUZZER 3u    // edge connector pin 0
#define PIN_MOTOR 2u     // edge connector pin 1
#define PIN_BUTTON_A 17u
#define PIN_BUTTON_B 26u
#define FLASH_PAGE_SIZE 1024u

#define RX_SIZE 256u   // powers of two; QEMU holds the line back when it is full
#define TX_SIZE 1024u  // a window (2) of the largest answers (256-byte payloads) and events; the loop
                       // waits up to TX_WAIT_MS for room
#define TX_WAIT_MS 200u

// The 5 x 5 LEDs are wired as 3 rows x 9 columns (rows high, columns low light a LED).
static const uint8_t display_rows[3] = {13, 14, 15};
static const uint8_t display_cols[9] = {4, 5, 6, 7, 8, 9, 10, 11, 12};
// Pixel index y*5+x lit by row r, column c; 0xFF: no LED there.
static const uint8_t display_map[3][9] = {
    {0, 2, 4, 19, 18, 17, 16, 15, 11},
    {14, 10, 12, 1, 3, 23, 21, 0xFF, 0xFF},
    {22, 24, 20, 5, 6, 7, 8, 9, 13},
};
#endif
