#!/usr/bin/env bash
# The page (docs/PAGE.md) in a real browser: Debian's chromium driven by Selenium through /usr/bin/chromedriver
# (Tools/scripts/check-page.py), against `callalert run --simulate` on virtual boards, HTTP on a free loopback port
# (port 0, read back from the log). axe-core (the axe-selenium-python wheel) checks every page; screenshots go to
# PAGE_ARTEFACTS (default .build/page-artefacts). Run by `make test` after the Swift tests.
# `check-page.sh bench` measures instead (Tools/scripts/bench-page.py, for `make bench`): the page's weight, its
# first render and a call's time to the alert, written to bench-page.json.
set -euo pipefail
cd "$(dirname "$0")/../.."
SWIFT="${SWIFT:-swift}"
[ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ] || {
  echo "check-page: chromium and chromium-driver are needed (make deps installs them: apt-get install chromium chromium-driver)" >&2
  exit 1
}
python3 -c 'import selenium, axe_selenium_python' 2>/dev/null || {
  echo "check-page: python3 needs selenium and axe-selenium-python (make deps installs them: pip install axe-selenium-python)" >&2
  exit 1
}
BIN="$("$SWIFT" build --show-bin-path)/callalert"
[ -x "$BIN" ] || "$SWIFT" build --product callalert
artefacts="${PAGE_ARTEFACTS:-$PWD/.build/page-artefacts}"
mkdir -p "$artefacts"
dir="$(mktemp -d /tmp/callalert-page.XXXXXX)"
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT
cat >"$dir/config.yaml" <<YAML
boards:
  - name: desk
  - name: bed shaker
    vibrate_only: true
socket:
  path: $dir/control.sock
history:
  path: $dir/history.sqlite
do_not_disturb:
  time_zone: UTC
  quiet_hours:
    - days: weekdays
      from: "22:00"
      to: "07:00"
  allowed_callers: ["+14155550100"]
patterns:
  file: $dir/patterns.yaml
http:
  listen: 127.0.0.1:0
YAML
printf 'version: 1\npatterns:\n  - name: office\n    cadence: UK\n' >"$dir/patterns.yaml"
HOME="$dir" "$BIN" run --simulate --no-stdin --config "$dir/config.yaml" >"$dir/events.log" 2>"$dir/daemon.log" &
pid=$!
port=""
for _ in $(seq 1 200); do  # at most 20 s for the daemon to listen
  port="$(sed -n 's|.*http: listening on http://127.0.0.1:\([0-9]*\).*|\1|p' "$dir/daemon.log" | head -n 1)"
  [ -n "$port" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$dir/daemon.log" >&2; echo "check-page: the daemon ended" >&2; exit 1; }
  sleep 0.1
done
[ -n "$port" ] || { cat "$dir/daemon.log" >&2; echo "check-page: the daemon did not listen within 20 s" >&2; exit 1; }
status=0
if [ "${1:-}" = bench ]; then
  timeout 180 python3 Tools/scripts/bench-page.py "http://127.0.0.1:$port" "$dir/control.sock" "$PWD/bench-page.json" \
    || status=$?
else
  timeout 180 python3 Tools/scripts/check-page.py "http://127.0.0.1:$port" "$dir/control.sock" "$artefacts" || status=$?
fi
if ! kill -0 "$pid" 2>/dev/null; then
  cat "$dir/daemon.log" >&2
  echo "check-page: the daemon did not survive the run" >&2
  exit 1
fi
[ "$status" = 0 ] || { echo "check-page: daemon log:" >&2; tail -n 40 "$dir/daemon.log" >&2; }
exit "$status"
