#!/usr/bin/env bash
# The reliability soak (`make soak`; minutes, not in CI). Builds `callalert` and `callalert-bench` in release, then
#   1. rings a virtual board 10 000 times through the daemon's own service (engine, board driver, client, link)
#      over a line paced at 115 200 baud with 1 ms latency that drops, corrupts and duplicates bytes and is
#      now and then unplugged, checking every ring against its cap and every hangup against the lease;
#   2. runs `callalert run --port <pty> --no-stdin --socket ...` as a child process 100 times, kills it with
#      SIGKILL mid-ring and measures how long the board rings on (it must stop within its 3 s lease).
# SOAK_CALLS, SOAK_KILL_RUNS and SOAK_KILL_PARALLEL change the counts; results go to soak-results.json.
# Exits non-zero when a ring overran its cap, a hangup was not honoured, a command was silently lost, or a
# board rang on past its lease after kill -9.
set -euo pipefail
cd "$(dirname "$0")/../.."
scratch=.build-bench
swift build -c release --scratch-path "$scratch" --product callalert
swift build -c release --scratch-path "$scratch" --product callalert-bench
exec "$scratch/release/callalert-bench" --soak --soak-calls "${SOAK_CALLS:-10000}" \
  --kill-runs "${SOAK_KILL_RUNS:-100}" --kill-parallel "${SOAK_KILL_PARALLEL:-4}" \
  --callalert "$scratch/release/callalert" --json soak-results.json
