#!/usr/bin/env bash
# Builds the libFuzzer target over the stream decoder and runs it for FUZZ_SECONDS (default 60),
# printing executions and crashes. Artifacts (crashing inputs) land in fuzz-artifacts/.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${FUZZ_SECONDS:-60}
scratch=.build-fuzz
swift build --scratch-path "$scratch" -c release --product callalert-fuzz-decoder \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -use-ld=lld
bin="$scratch/release/callalert-fuzz-decoder"
corpus=fuzz-artifacts/corpus
mkdir -p "$corpus" fuzz-artifacts
# Seed the corpus with the wire bytes of the test vectors, so the fuzzer starts from valid frames.
if [ -d Protocol/vectors ]; then
  python3 - "$corpus" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
for path in pathlib.Path("Protocol/vectors").glob("*.json"):
    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("wire", "wire_hex", "encoded", "encoded_hex", "input_hex", "bytes_hex", "hex") and isinstance(value, str):
                    try:
                        data = bytes.fromhex(value.replace(" ", ""))
                    except ValueError:
                        continue
                    (out / f"{path.stem}-{abs(hash(value))}").write_bytes(data)
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)
    walk(json.loads(path.read_text()))
PY
fi
log=fuzz-artifacts/fuzz.log
set +e
"$bin" "$corpus" -max_total_time="$seconds" -max_len=4096 -artifact_prefix=fuzz-artifacts/ -print_final_stats=1 \
  >"$log" 2>&1
status=$?
set -e
grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^stat::average_exec_per_sec|SUMMARY|ERROR" "$log" || true
crashes=$(find fuzz-artifacts -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \) | wc -l)
echo "fuzz: ${seconds}s, crashes: $crashes (log: $log)"
exit $status
