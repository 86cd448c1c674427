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
# The call sources' libraries (SIP: sofia-sip; MQTT: libmosquitto) and their real peers for the tests:
# SIPp (sip-tester) and baresip place calls, kamailio is a registrar and forking proxy, mosquitto is the broker with its command-line clients, wrk loads
# the HTTP API in make bench.
pkg-config --exists sofia-sip-ua 2>/dev/null || missing+=(libsofia-sip-ua-dev)
# USB presence lights (docs/LIGHTS.md): hidapi's hidraw backend. The HID write-path test compiles a small
# LD_PRELOAD shim with cc.
pkg-config --exists hidapi-hidraw 2>/dev/null || missing+=(libhidapi-dev)
command -v cc >/dev/null 2>&1 || missing+=(gcc)
[ -f /usr/include/mosquitto.h ] || missing+=(libmosquitto-dev)
if [ "${CALLALERT_SKIP_PEERS:-0}" != 1 ]; then
  command -v sipp >/dev/null 2>&1 || missing+=(sip-tester)
  command -v baresip >/dev/null 2>&1 || missing+=(baresip)
  [ -x /usr/sbin/kamailio ] || missing+=(kamailio)
  [ -x /usr/sbin/mosquitto ] || command -v mosquitto >/dev/null 2>&1 || missing+=(mosquitto)
  command -v mosquitto_sub >/dev/null 2>&1 || missing+=(mosquitto-clients)
  # The KDE Connect tests' scripted phone (Python's own ssl module) makes its certificate with openssl; KDE's
  # own daemon (kdeconnectd, headless on a session bus of its own) is the peer of the discovery and pairing test.
  command -v openssl >/dev/null 2>&1 || missing+=(openssl)
  command -v kdeconnect-cli >/dev/null 2>&1 || missing+=(kdeconnect)
  command -v dbus-run-session >/dev/null 2>&1 || missing+=(dbus)
  command -v ip >/dev/null 2>&1 || [ -x /usr/sbin/ip ] || missing+=(iproute2)
  command -v wrk >/dev/null 2>&1 || missing+=(wrk)
  # make bench's per-request counts: perf's tracepoints (system calls, context switches) and valgrind's callgrind
  # (instructions); the bench says "not measured" without them. perf is linux-perf on Debian,
  # linux-tools-generic on Ubuntu.
  if ! command -v perf >/dev/null 2>&1; then
    if apt-cache show linux-perf >/dev/null 2>&1; then missing+=(linux-perf); else missing+=(linux-tools-generic); fi
  fi
  command -v valgrind >/dev/null 2>&1 || missing+=(valgrind)
  # The page's browser test (Tools/scripts/check-page.sh): Debian's chromium and its driver, and Selenium.
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  [ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)
  /usr/bin/python3 -c 'import selenium' 2>/dev/null || missing+=(python3-selenium)
fi
command -v swift >/dev/null 2>&1 || {
  echo "error: no Swift toolchain on PATH; install Swift 6.1 or later from swift.org" >&2
  exit 1
}

# Test-only: PyPI fritzconnection's call monitor reads the tests' fake FRITZ!Box as an independent client
# (Tools/scripts/check-fritzmonitor.py); without it that one test is skipped, saying so.
# schemathesis checks the HTTP API against docs/openapi.yaml; paho-mqtt is an independent MQTT client;
# axe-selenium-python carries axe-core for the page's accessibility check.
# busylight-core builds the lights' reports the tests compare with (Tools/scripts/light-reports-reference.py);
# without it the tests still compare with the vectors it printed, checked in.
pip_install() {  # module name, package name
  python3 -c "import $1" 2>/dev/null && return 0
  if python3 -m pip --version >/dev/null 2>&1; then
    echo "installing (pip, for the tests): $2"
    python3 -m pip install --quiet --disable-pip-version-check "$2" \
      || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages "$2" \
      || echo "warning: pip could not install $2; the checks that use it will be skipped, saying so" >&2
  else
    echo "note: python3 has no pip; the checks that use $2 will be skipped (apt-get install python3-pip)" >&2
  fi
}
if command -v python3 >/dev/null 2>&1; then
  pip_install fritzconnection fritzconnection
  pip_install schemathesis schemathesis
  pip_install paho.mqtt paho-mqtt
  pip_install busylight_core busylight-core
  # axe-core for the page's browser test, in its Python wheel (it brings Selenium's bindings along for a python3
  # that is not Debian's own).
  pip_install axe_selenium_python axe-selenium-python
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
