#!/usr/bin/env bash
# Runs the test suites N times (make flake-hunt N=20) and names every failure: each run's log is kept in
# $FLAKE_DIR (default .build/flake-hunt), and the summary lists, per failing run, the tests that recorded an
# issue (with their file:line) and any crash of the test process (an unexpected signal, a time limit).
#
#   N=20               runs of the parallel suite (every suite but the real-time ones)
#   REALTIME_N=10      runs of the real-time suites (alone, --no-parallel), as make test runs them
#   LOAD=0             the quiet machine (the default)
#   LOAD=run           a second run of the parallel suite loads the machine meanwhile, over and over
#   LOAD=1             both cores kept busy meanwhile by two CPU-bound processes at nice 0 (harsher: the test
#                      process gets about half the machine)
#   SWIFT_TEST_ARGS    extra arguments for swift test (e.g. --filter Daemon)
#
# The tests are built once (swift build --build-tests) and then run with --skip-build. Exit status: 0 when
# every run passed, 1 otherwise. Each run is bounded by RUN_TIMEOUT seconds (default 900): a hung run counts
# as a failure and is named as such.
set -uo pipefail
cd "$(dirname "$0")/../.."

N=${N:-${1:-20}}
REALTIME_N=${REALTIME_N:-$(((N + 1) / 2))}
LOAD=${LOAD:-0}
RUN_TIMEOUT=${RUN_TIMEOUT:-900}
SWIFT=${SWIFT:-swift}
REALTIME_SUITES=${REALTIME_SUITES:-RealTime|Conformance|RingAndVibrate|Unplug|Stress|Pacing|HistoryLoadTests|AsFastAsTheSocketTakesThem|ConnectionFlood}
FLAKE_DIR=${FLAKE_DIR:-.build/flake-hunt}
SCRATCH=()
[ -n "${SCRATCH_PATH:-}" ] && SCRATCH=(--scratch-path "$SCRATCH_PATH")
read -r -a EXTRA <<<"${SWIFT_TEST_ARGS:-}"

case "$N" in '' | *[!0-9]*) echo "flake-hunt: N must be a whole number, not '$N'" >&2; exit 2 ;; esac
case "$REALTIME_N" in '' | *[!0-9]*) echo "flake-hunt: REALTIME_N must be a whole number" >&2; exit 2 ;; esac

mkdir -p "$FLAKE_DIR"
rm -f "$FLAKE_DIR"/*.log
"$SWIFT" build --build-tests "${SCRATCH[@]}" >"$FLAKE_DIR/build.txt" 2>&1 || {
  tail -n 30 "$FLAKE_DIR/build.txt" >&2
  echo "flake-hunt: the build failed; see $FLAKE_DIR/build.txt" >&2
  exit 1
}

# The QEMU half of the conformance suite runs on the firmware image, as in make test (skipped, saying so,
# where qemu-system-arm or the Embedded Swift toolchain is missing).
Tools/scripts/firmware-if-possible.sh >"$FLAKE_DIR/firmware.txt" 2>&1 || {
  tail -n 20 "$FLAKE_DIR/firmware.txt" >&2
  echo "flake-hunt: the firmware build failed; see $FLAKE_DIR/firmware.txt" >&2
  exit 1
}

load_pids=()
stop_load() {
  # A process group (the second run's session) goes whole; a busy loop alone.
  for pid in "${load_pids[@]}"; do kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null; done
  load_pids=()
}
trap stop_load EXIT
case "$LOAD" in
  1)
    for _ in 1 2; do
      (while :; do :; done) &
      load_pids+=($!)
    done
    ;;
  run)
    # The test bundle itself, not `swift test`: two `swift test` in one build folder take turns on SwiftPM's
    # lock, so the "second run" only ever ran between the hunt's runs (a loaded hunt's realtime runs saw a
    # load of 1.4) and waited for them, which counted in their times. In a session of its own, so that
    # stopping it stops the test process too.
    bundle="$("$SWIFT" build --show-bin-path "${SCRATCH[@]}")/CallAlertPackageTests.xctest"
    [ -x "$bundle" ] || { echo "flake-hunt: no test bundle at $bundle" >&2; exit 1; }
    setsid bash -c 'while :; do "$0" --testing-library swift-testing "$@" >/dev/null 2>&1; done' \
      "$bundle" --skip "$REALTIME_SUITES" &
    load_pids+=($!)
    ;;
  0) ;;
  *)
    echo "flake-hunt: LOAD must be 0, 1 or run, not '$LOAD'" >&2
    exit 2
    ;;
esac

failed_runs=0
summary="$FLAKE_DIR/summary.txt"
: >"$summary"

# One run: its log, and a line per failure in the summary.
run() {  # kind index args...
  local kind=$1 index=$2
  shift 2
  local log="$FLAKE_DIR/$kind-$index.log"
  local started=$SECONDS
  timeout --kill-after=30 "$RUN_TIMEOUT" "$SWIFT" test --skip-build "${SCRATCH[@]}" "$@" "${EXTRA[@]}" >"$log" 2>&1
  local status=$?
  local took=$((SECONDS - started))
  if [ $status -eq 0 ]; then
    echo "$kind run $index: passed in ${took}s"
    return 0
  fi
  failed_runs=$((failed_runs + 1))
  {
    echo "$kind run $index: FAILED (exit $status, ${took}s; log $log)"
    [ $status -eq 124 ] || [ $status -eq 137 ] && echo "  the run did not finish within ${RUN_TIMEOUT}s"
    # Swift Testing: "✘ Test name() recorded an issue at File.swift:61:5: Expectation failed: ..."
    grep -a -E '✘ Test .* (recorded an issue|failed after)' "$log" | grep -a -v 'Test run with' | sed 's/^/  /' | head -n 40
    grep -a -E 'unexpected signal|Fatal error|fatalError|error: Exited' "$log" | sed 's/^/  /' | head -n 10
    # A crash leaves no ✘ line: name the tests that had started and not ended.
    if ! grep -a -q '✘' "$log"; then
      comm -23 <(grep -a -o -E '◇ Test [^ ]+' "$log" | sed 's/◇ Test //' | sort -u) \
        <(grep -a -o -E '✔ Test [^ ]+' "$log" | sed 's/✔ Test //' | sort -u) | sed 's/^/  running at the end: /' | head -n 20
    fi
  } | tee -a "$summary"
}

for index in $(seq 1 "$N"); do run parallel "$index" --skip "$REALTIME_SUITES"; done
for index in $(seq 1 "$REALTIME_N"); do run realtime "$index" --filter "$REALTIME_SUITES" --no-parallel; done
stop_load

total=$((N + REALTIME_N))
load_name=none
[ "$LOAD" = 1 ] && load_name='two busy loops'
[ "$LOAD" = run ] && load_name='a second parallel run'
echo "flake-hunt: $((total - failed_runs)) of $total runs passed ($N parallel, $REALTIME_N real-time; load $load_name); logs in $FLAKE_DIR"
[ $failed_runs -eq 0 ] || { echo "failures:"; cat "$summary"; exit 1; }
