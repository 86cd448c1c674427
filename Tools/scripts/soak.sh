#!/usr/bin/env bash
# The reliability soak (`make soak`; minutes, not in CI). Builds `callalert` and `callalert-bench` in release, then
#   1. rings a virtual board 10 000 times through the daemon's own service (engine, board driver, client, link)
#      over a line paced at 115 200 baud with 1 ms latency that drops, corrupts and duplicates bytes and is
#      now and then unplugged, checking every ring against its cap and every hangup against the lease;
#   2. runs `callalert run --port <pty> --no-stdin --socket ...` as a child process 100 times, kills it with
#      SIGKILL mid-ring and measures how long the board rings on (it must stop within its 3 s lease).
#   3. the chaos run: `callalert run` under `prlimit --nofile=64` rings a board while control clients close
#      mid-answer, never read, or burst past the descriptor limit, its standard output stalls and then breaks,
#      its history's disk (a 16 MiB tmpfs, as root) is full for half the calls, and the board goes deaf for
#      longer than its lease mid-ring.
#   4. the history under load: `callalert run --simulate` takes 100 000 call/hangup pairs as fast as its control
#      socket does (64 requests in flight), on the machine as it is, then beside two CPU-bound processes, then
#      20 000 pairs with its history file removed after 10 000; each run is bounded to 10 minutes.
#   5. one source flooded while another rings: `callalert run --simulate` subscribed to a mosquitto of its own
#      takes 10 000 MQTT calls a second for 5 s while a local caller rings and hangs up a call every 50 ms on its
#      socket; the local calls' p99 must stay within 50 ms of the same calls' on the quiet daemon, and every
#      MQTT call must ring (MQTT's share, 32) or be refused and summed in the history.
#   6. long life: `callalert history --limit 1000` on a history of 1 000 000 calls written beforehand (it must
#      answer within 100 ms); then `callalert run --simulate` takes 1 000 000 call/hangup pairs on its socket,
#      its RSS and open descriptors read every 10 000 calls (flat within 5 MiB and 2 after 100 000 of warm-up),
#      its history seeded with calls older than its keep_days, which must go, but the unacknowledged missed
#      ones; bounded to an hour. Its engine forgets an ended call after 1 s (`tombstone`, SOAK_LONG_LIFE_TOMBSTONE;
#      the default 5 min would hold every id of a run that lasts a minute and a half, about 70 B each).
# SOAK_CALLS, SOAK_KILL_RUNS, SOAK_KILL_PARALLEL, SOAK_CHAOS_CALLS, SOAK_HISTORY_PAIRS, SOAK_LONG_LIFE_CALLS and
# SOAK_HISTORY_QUERY_ROWS change the counts, SOAK_FAIR_SECONDS and SOAK_FAIR_RATE the MQTT flood's;
# results go to soak-results.json. Exits non-zero when a ring overran its cap, a hangup was not honoured, a
# command was silently lost, a board rang on past its lease after kill -9, in the chaos run a call did not ring,
# was lost from the history, a deaf board was not played again, or the daemon died, or, under load, a call is
# missing from the history, has the wrong outcome or was made a missed call, or status said something was lost,
# or in the long run RSS or descriptors grew, a call was not recorded hung up, an old call outlived keep_days,
# or `callalert history --limit 1000` took 100 ms or more (median), or, with MQTT flooded, a local call did not
# ring, rang more than 50 ms slower (p99) than on the quiet daemon, or an MQTT call was neither rung nor refused.
set -euo pipefail
cd "$(dirname "$0")/../.."
scratch=.build-bench
swift build -c release --scratch-path "$scratch" --product callalert
swift build -c release --scratch-path "$scratch" --product callalert-bench
exec "$scratch/release/callalert-bench" --soak --soak-calls "${SOAK_CALLS:-10000}" \
  --kill-runs "${SOAK_KILL_RUNS:-100}" --kill-parallel "${SOAK_KILL_PARALLEL:-4}" \
  --chaos-calls "${SOAK_CHAOS_CALLS:-300}" --history-pairs "${SOAK_HISTORY_PAIRS:-100000}" \
  --long-life-calls "${SOAK_LONG_LIFE_CALLS:-1000000}" --long-life-tombstone "${SOAK_LONG_LIFE_TOMBSTONE:-1s}" \
  --history-query-rows "${SOAK_HISTORY_QUERY_ROWS:-1000000}" \
  --fair-flood-seconds "${SOAK_FAIR_SECONDS:-5}" --fair-flood-rate "${SOAK_FAIR_RATE:-10000}" \
  --callalert "$scratch/release/callalert" --json soak-results.json
