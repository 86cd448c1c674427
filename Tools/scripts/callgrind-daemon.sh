#!/usr/bin/env bash
# Where the daemon's instructions go: builds the bench (release, .build-bench), runs its perrequest section with
# the callgrind dumps kept in DIR, and writes callgrind_annotate's inclusive view of the first series' dump (one
# dump for PAIRS call/hangup pairs, each on a fresh connection to `callalert run` with one board) beside them,
# DIR/inclusive.txt, and the functions with the most instructions of their own per request, DIR/self.txt (from
# the bench's JSON: callgrind_annotate 3.19 charges calls still running at a mid-run dump to their callers).
#
#   Tools/scripts/callgrind-daemon.sh [DIR] [PAIRS]      default .build-bench/callgrind, 200
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${1:-.build-bench/callgrind}
pairs=${2:-200}
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null || {
  echo "callgrind-daemon: valgrind is not installed (apt-get install valgrind)" >&2
  exit 1
}
for product in callalert-bench callalert-bench-floor callalert; do
  swift build -c release --scratch-path .build-bench --product "$product"
done
rm -rf "$dir"
mkdir -p "$dir"
.build-bench/release/callalert-bench --only perrequest --per-request-pairs "$pairs" --keep-callgrind "$dir" \
  --json "$dir/perrequest.json"
dump=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["perrequest"]["callgrind"]["series_1_dump"])' \
  "$dir/perrequest.json")
# Swift's names are mangled in the dump; swift demangle makes them readable.
callgrind_annotate --inclusive=yes "$dump" | swift demangle --simplified >"$dir/inclusive.txt"
python3 -c 'import json, sys
for entry in json.load(open(sys.argv[1]))["perrequest"]["callgrind"]["top_self_ir_per_request"]:
    print("%10.0f  %s" % (entry["ir_per_request"], entry["function"]))' "$dir/perrequest.json" >"$dir/self.txt"
echo "series dump: $dump ($((2 * pairs)) requests)"
echo "callgrind_annotate --inclusive=yes $dump | swift demangle --simplified   # in $dir/inclusive.txt"
echo "own instructions per request, the largest first:                         # in $dir/self.txt"
head -40 "$dir/self.txt"
