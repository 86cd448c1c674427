#!/usr/bin/env bash
# Installs what building and testing CallAlert needs on Debian/Ubuntu, when it is missing.
# As root it runs apt-get; otherwise it prints exactly what to install and fails.
set -euo pipefail

missing=()
pkg-config --exists libserialport 2>/dev/null || missing+=(libserialport-dev)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
if [ "${CALLALERT_SKIP_QEMU:-0}" != 1 ]; then
  command -v qemu-system-arm >/dev/null 2>&1 || missing+=(qemu-system-arm)
fi
# make test's install checks: systemd-analyze verifies the units, groff renders the man pages.
if [ "${CALLALERT_SKIP_INSTALL_TESTS:-0}" != 1 ]; then
  command -v systemd-analyze >/dev/null 2>&1 || missing+=(systemd)
  command -v groff >/dev/null 2>&1 || missing+=(groff-base)
fi
command -v swift >/dev/null 2>&1 || {
  echo "error: no Swift toolchain on PATH; install Swift 6.1 or later from swift.org" >&2
  exit 1
}

[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "error: missing packages; run:" >&2
  echo "  sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
