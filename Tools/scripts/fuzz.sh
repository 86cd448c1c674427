#!/usr/bin/env bash
# Builds the libFuzzer targets and runs each for FUZZ_SECONDS (default 60) seconds, printing executions and
# crashes per target:
#   decoder   the stream decoder and the message layer (callalert-fuzz-decoder), seeded from Protocol/vectors
#   patterns  the pattern file parser, validator, compiler and decompiler (callalert-fuzz-patterns), seeded
#             from the YAML examples in docs/PATTERNS.md
#   push      push payloads and control lines (callalert-fuzz-push), seeded from the JSON in docs/PUSH.md and
#             docs/CONFIG.md; an input's first byte picks the parser (even: push payload, odd: control line)
#   fritzbox  the FRITZ!Box call monitor line decoder, parser, call tracker and router (callalert-fuzz-fritzbox),
#             seeded from Tests/CallAlertBridgesTests/Fixtures/fritzbox-*.txt
#   ami       the Asterisk Manager Interface frame decoder, call tracker and router (callalert-fuzz-ami), seeded
#             from Tests/CallAlertBridgesTests/Fixtures/ami-*.txt
#   (for both, an input's first byte says where the stream is cut in two chunks)
# FUZZ_TARGETS="decoder push" runs a subset. The long mode, FUZZ_RUNS=10000000 (`make fuzz-long`), runs each
# target for that many executions instead of a time. FUZZ_JOBS=N shares a target's executions among N fuzzer
# processes on one corpus (each reloads what the others find), one per core; their logs are fuzz-1.log ... Each target keeps its corpus and crashing inputs in
# fuzz-artifacts/<target>/; replay one with the plain build: swift run callalert-fuzz-<target> <file>.
# Exits non-zero when any target found a crash, a leak or a timeout.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-decoder patterns push fritzbox ami}
scratch=.build-fuzz

for target in $targets; do
  case $target in
    decoder | patterns | push | fritzbox | ami) ;;
    *) echo "fuzz: unknown target $target (decoder, patterns, push, fritzbox, ami)" >&2; exit 2 ;;
  esac
  swift build --scratch-path "$scratch" -c release --product "callalert-fuzz-$target" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -use-ld=lld
done

# Seeds: valid inputs from the specification and the documentation, so the fuzzers start from what parses.
seed() {
  local target=$1 corpus=$2
  python3 - "$target" "$corpus" <<'PY'
import hashlib, json, pathlib, re, sys
target, out = sys.argv[1], pathlib.Path(sys.argv[2])
def save(data):
    (out / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)
def blocks(path, language):
    p = pathlib.Path(path)
    return re.findall(r"```" + language + r"\n(.*?)```", p.read_text(), re.S) if p.exists() else []
if target == "decoder":
    for path in pathlib.Path("Protocol/vectors").glob("*.json"):
        def walk(node):
            if isinstance(node, dict):
                for key, value in node.items():
                    keys = ("wire", "wire_hex", "encoded", "encoded_hex", "input_hex", "bytes_hex", "hex")
                    if key in keys and isinstance(value, str):
                        try:
                            save(bytes.fromhex(value.replace(" ", "")))
                        except ValueError:
                            pass
                    else:
                        walk(value)
            elif isinstance(node, list):
                for item in node:
                    walk(item)
        walk(json.loads(path.read_text()))
elif target == "patterns":
    for block in blocks("docs/PATTERNS.md", "yaml"):
        save(block.encode())
    save(b"patterns:\n  - name: ring\n    cadence: UK\n")
elif target == "push":
    # A push payload is prefixed with an even byte, a control line with an odd one.
    for path in ("docs/PUSH.md", "docs/CONFIG.md"):
        for block in blocks(path, "json"):
            text = block.strip()
            try:
                json.loads(text)
                save(b"\x00" + text.encode())
            except ValueError:
                for line in text.splitlines():
                    if line.strip().startswith("{"):
                        save(b"\x00" + line.strip().encode())
                        save(b"\x01" + line.strip().encode())
    for line in ('{"type":"call","id":"c1","caller":"+14155550101","name":"Alice","sent_at":1750000000123}',
                 '{"type":"hangup","id":"c1"}', '{"type":"status"}', '{"type":"history","missed":true,"limit":5}',
                 '{"type":"dnd","mode":"on"}'):
        save(b"\x01" + line.encode())
elif target in ("fritzbox", "ami"):
    # The fixtures' protocol lines (comments, '?' and '!' lines dropped), cut after byte 64.
    ending = b"\r\n" if target == "ami" else b"\n"
    for path in sorted(pathlib.Path("Tests/CallAlertBridgesTests/Fixtures").glob(target + "-*.txt")):
        lines = [l for l in path.read_text().splitlines() if not l.startswith(("#", "?", "!"))]
        save(bytes([64]) + b"".join(l.encode() + ending for l in lines))
PY
}

status=0
summary=()
for target in $targets; do
  dir=fuzz-artifacts/$target
  corpus=$dir/corpus
  mkdir -p "$corpus"
  seed "$target" "$corpus"
  jobs=${FUZZ_JOBS:-1}
  if [ -n "${FUZZ_RUNS:-}" ]; then
    budget=(-runs="$(((FUZZ_RUNS + jobs - 1) / jobs))")
  else
    budget=(-max_total_time="$seconds")
  fi
  if [ "$jobs" -gt 1 ]; then logs=$(seq -f "$dir/fuzz-%g.log" 1 "$jobs"); else logs=$dir/fuzz.log; fi
  started=$(date +%s)
  pids=()
  for log in $logs; do
    "$scratch/release/callalert-fuzz-$target" "$corpus" "${budget[@]}" -max_len=4096 -timeout=10 \
      -artifact_prefix="$dir/" -print_final_stats=1 >"$log" 2>&1 &
    pids+=($!)
  done
  code=0
  for pid in "${pids[@]}"; do wait "$pid" || code=$?; done
  elapsed=$(($(date +%s) - started))
  # shellcheck disable=SC2086 # $logs is a list of paths without spaces
  executions=$(cat $logs | awk '/^stat::number_of_executed_units/ {sum += $2} END {print sum + 0}')
  rate=$((executions / (elapsed > 0 ? elapsed : 1)))
  seconds=$elapsed
  crashes=$(find "$dir" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) \
    | wc -l)
  # shellcheck disable=SC2086
  grep -hE "SUMMARY|ERROR|==ERROR|Fatal error|precondition" $logs | head -5 || true
  line="fuzz $target: ${seconds}s, ${executions:-0} executions (${rate:-0}/s in $jobs process(es))"
  line="$line, corpus $(ls "$corpus" | wc -l)"
  line="$line, crashes: $crashes (log: $(echo $logs))"
  echo "$line"
  summary+=("$line")
  if [ "$code" -ne 0 ] || [ "$crashes" -ne 0 ]; then status=1; fi
done
printf '%s\n' "${summary[@]}"
exit $status
