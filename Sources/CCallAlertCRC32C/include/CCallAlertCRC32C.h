// The CPU's CRC-32C instruction for the host codec (SSE4.2 `crc32` on x86_64, the ARMv8 CRC extension on
// aarch64), checked at run time. Host only: the firmware build compiles CallAlertProtocol without this module.
#ifndef CCALLALERT_CRC32C_H
#define CCALLALERT_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/// Whether this CPU has a CRC-32C instruction that callalert_crc32c_hardware may use (checked once).
int callalert_crc32c_hardware_available(void);

/// Feeds `count` bytes at `bytes` into the running CRC-32C register `crc` (not inverted: the caller starts
/// from 0xFFFFFFFF and inverts at the end) with the CPU's instruction. Only call it when
/// callalert_crc32c_hardware_available() returned 1.
uint32_t callalert_crc32c_hardware(uint32_t crc, const void *bytes, size_t count);

#endif
