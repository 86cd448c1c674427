#!/usr/bin/env bash
# Builds the QEMU firmware image (make -C firmware) before the tests when it can run here: with
# qemu-system-arm and the Embedded Swift toolchain (swiftc, clang, ld.lld) on PATH. Otherwise it says what is
# missing and succeeds, and the QEMU half of the conformance suite reports itself skipped.
set -euo pipefail
cd "$(dirname "$0")/../.."
missing=()
for tool in qemu-system-arm swiftc clang ld.lld llvm-objcopy llvm-objdump; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "firmware: not built (missing: ${missing[*]}); the QEMU conformance tests will be skipped"
  exit 0
fi
make --no-print-directory -C firmware
