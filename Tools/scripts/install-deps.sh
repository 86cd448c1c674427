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

# Test-only: PyPI fritzconnection's call monitor reads the tests' fake FRITZ!Box as an independent client
# (Tools/scripts/check-fritzmonitor.py); without it that one test is skipped, saying so.
if command -v python3 >/dev/null 2>&1 && ! python3 -c "import fritzconnection" 2>/dev/null; then
  if python3 -m pip --version >/dev/null 2>&1; then
    echo "installing (pip, for the tests): fritzconnection"
    python3 -m pip install --quiet --disable-pip-version-check fritzconnection \
      || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages fritzconnection \
      || echo "warning: pip could not install fritzconnection; the fritzconnection check will be skipped" >&2
  else
    echo "note: python3 has no pip; the fritzconnection check will be skipped (apt-get install python3-pip)" >&2
  fi
fi

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
