#!/usr/bin/env bash
# The appliance footprint of `callalert` (docs/BENCH.md, "Footprint"): a release build with the Swift runtime
# linked in (as `make install` builds it on Linux), a stripped copy's size and sections, what each module and
# library adds to the binary (from the link map), `callalert --version`'s time over many runs, and the idle
# RSS of `callalert run` with one board (a virtual board on a pseudo-terminal, in another process), each
# figure with the machine's load. Prints figures and never fails on them: only a build that fails stops it.
#
# FOOTPRINT_SCRATCH (default .build-release) is the build's scratch path; FOOTPRINT_RUNS (default 200) the
# `--version` runs; FOOTPRINT_IDLE (default 60) the seconds the daemon idles before its RSS is read;
# FOOTPRINT_BINARY skips the build and measures that binary (FOOTPRINT_MAP: its link map, if there is one).
set -uo pipefail
cd "$(dirname "$0")/../.."
SWIFT="${SWIFT:-swift}"
SCRATCH="${FOOTPRINT_SCRATCH:-.build-release}"
RUNS="${FOOTPRINT_RUNS:-200}"
IDLE="${FOOTPRINT_IDLE:-60}"
load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?"; }

echo "footprint: $(uname -m), $(nproc 2>/dev/null || echo '?') cores, $(date -u '+%Y-%m-%d %H:%M UTC')"
MAP="${FOOTPRINT_MAP:-}"
if [ -n "${FOOTPRINT_BINARY:-}" ]; then
  BINARY="$FOOTPRINT_BINARY"
else
  STATIC=""
  [ "$(uname -s)" = Linux ] && STATIC="--static-swift-stdlib"
  mkdir -p "$SCRATCH"
  MAP="$PWD/$SCRATCH/callalert.map"
  echo "building: swift build -c release --product callalert $STATIC (load $(load))"
  "$SWIFT" build -c release --product callalert $STATIC --scratch-path "$SCRATCH" -Xlinker "-Map=$MAP" \
    >"$SCRATCH/footprint-build.log" 2>&1 || { tail -20 "$SCRATCH/footprint-build.log"; exit 1; }
  BINARY="$SCRATCH/release/callalert"
fi
STRIPPED="$(mktemp /tmp/callalert-stripped.XXXXXX)"
WORK="$(mktemp -d /tmp/callalert-footprint.XXXXXX)"
trap 'rm -rf "$STRIPPED" "$WORK"' EXIT
strip -o "$STRIPPED" "$BINARY" && chmod +x "$STRIPPED"

echo
echo "== size (load $(load))"
printf '%-28s %12s bytes (%s MB)\n' "binary, unstripped" "$(stat -c %s "$BINARY")" \
  "$(awk -v b="$(stat -c %s "$BINARY")" 'BEGIN{printf "%.1f", b/1e6}')"
printf '%-28s %12s bytes (%s MB)\n' "binary, stripped" "$(stat -c %s "$STRIPPED")" \
  "$(awk -v b="$(stat -c %s "$STRIPPED")" 'BEGIN{printf "%.1f", b/1e6}')"
echo "largest sections (size -A, stripped):"
size -A "$STRIPPED" | awk 'NR>2 && $2>0 && $1!="Total" {print}' | sort -k2 -nr | head -12 |
  awk '{printf "  %-24s %12d\n", $1, $2}'
echo "dynamic libraries: $(ldd "$STRIPPED" 2>/dev/null | awk '/=>/{print $1}' | tr '\n' ' ')"

if [ -n "$MAP" ] && [ -f "$MAP" ]; then
  echo
  echo "== what each module or library adds (allocated bytes from the link map, largest first)"
  python3 Tools/scripts/footprint-map.py "$MAP" 40 || echo "footprint: the link map could not be read"
fi

echo
echo "== callalert --version, $RUNS runs (load $(load))"
python3 - "$STRIPPED" "$RUNS" <<'EOF' || echo "footprint: --version could not be timed"
import statistics, subprocess, sys, time
binary, runs = sys.argv[1], int(sys.argv[2])
def times(argv):
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        out.append((time.perf_counter() - start) * 1000)
    out.sort()
    return out
def line(name, t):
    print(f"  {name:22} median {statistics.median(t):6.2f} ms, mean {statistics.fmean(t):6.2f} ms, "
          f"p90 {t[int(len(t) * 0.9)]:6.2f} ms, min {t[0]:6.2f} ms")
line("callalert --version", times([binary, "--version"]))
line("/bin/true (the spawn)", times(["/bin/true"]))
EOF

echo
echo "== idle RSS of callalert run with one board, after ${IDLE} s"
HOME="$WORK" "$STRIPPED" board simulate --link "$WORK/board" >"$WORK/board.log" 2>&1 &
BOARD=$!
for _ in $(seq 1 100); do [ -e "$WORK/board" ] && break; sleep 0.1; done
HOME="$WORK" "$STRIPPED" run --port "$WORK/board" --socket "$WORK/socket" --history "$WORK/history.sqlite" \
  --http 127.0.0.1:0 --no-stdin >"$WORK/run.log" 2>&1 &
DAEMON=$!
for _ in $(seq 1 100); do grep -q "connected" "$WORK/run.log" 2>/dev/null && break; sleep 0.1; done
if grep -q "connected" "$WORK/run.log" 2>/dev/null; then
  sleep "$IDLE"
  if [ -r "/proc/$DAEMON/status" ]; then
    echo "load $(load); $(grep -E '^(VmRSS|RssAnon|RssFile|Threads)' "/proc/$DAEMON/status" | tr -s ' \t' ' ' | tr '\n' ';')"
    echo "mappings with the most resident memory (kB):"
    awk '/^[0-9a-f]+-[0-9a-f]+ /{name = ($6 == "" ? "[anonymous]" : $6) " " $2} /^Rss:/{rss[name] += $2}
      END {for (n in rss) print rss[n], n}' "/proc/$DAEMON/smaps" | sort -nr | head -8 | sed 's/^/  /'
    if [ -r "/proc/$DAEMON/pagemap" ]; then
      echo "the binary's sections, resident:"
      python3 Tools/scripts/footprint-resident.py "$DAEMON" "$STRIPPED" || echo "  (could not be read)"
    fi
  else
    echo "footprint: the daemon ended before its RSS was read"
  fi
else
  echo "footprint: the daemon did not connect to the virtual board; its log:"
  head -20 "$WORK/run.log"
fi
kill -INT "$DAEMON" 2>/dev/null
wait "$DAEMON" 2>/dev/null
kill -INT "$BOARD" 2>/dev/null
wait "$BOARD" 2>/dev/null
exit 0
