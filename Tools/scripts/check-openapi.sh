#!/usr/bin/env bash
# docs/openapi.yaml against the running server, by an independent client: schemathesis (PyPI) drives
# `callalert run --simulate --http` on a free loopback port (port 0, read back from the log) with the token the
# server asks for, every check on (no 5xx, no undocumented status or content type, answers valid against
# their schemas, auth enforced, unsupported methods refused), a bounded number of examples per operation.
# GET /v1/events is left out: an event stream never ends (the Swift tests read it through a reconnect).
# Run by `make test` after the Swift tests; CHECK_OPENAPI_EXAMPLES for more examples (default 10).
set -euo pipefail
cd "$(dirname "$0")/../.."
SWIFT="${SWIFT:-swift}"
command -v schemathesis >/dev/null || {
  echo "check-openapi: schemathesis is needed (make deps installs it: pip install schemathesis)" >&2
  exit 1
}
BIN="$("$SWIFT" build --show-bin-path)/callalert"
[ -x "$BIN" ] || "$SWIFT" build --product callalert
dir="$(mktemp -d /tmp/callalert-openapi.XXXXXX)"
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT
printf 'openapi-check-token\n' >"$dir/token"
chmod 600 "$dir/token"
cat >"$dir/config.yaml" <<YAML
boards:
  - name: desk
socket:
  path: $dir/control.sock
history:
  path: $dir/history.sqlite
http:
  listen: 127.0.0.1:0
  token_file: $dir/token
YAML
: >"$dir/daemon.log"
HOME="$dir" "$BIN" run --simulate --no-stdin --config "$dir/config.yaml" >"$dir/events.log" 2>"$dir/daemon.log" &
pid=$!
port=""
for _ in $(seq 1 200); do  # at most 20 s for the daemon to listen
  port="$(sed -n 's|.*http: listening on http://127.0.0.1:\([0-9]*\).*|\1|p' "$dir/daemon.log" | head -n 1)"
  [ -n "$port" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$dir/daemon.log" >&2; echo "check-openapi: the daemon ended" >&2; exit 1; }
  sleep 0.1
done
[ -n "$port" ] || { cat "$dir/daemon.log" >&2; echo "check-openapi: the daemon did not listen within 20 s" >&2; exit 1; }
status=0
spec="$PWD/docs/openapi.yaml"
# What the schema cannot express is in schemathesis.toml (a do-not-disturb end's rule of time).
# From the temporary folder: schemathesis keeps its example cache (.schemathesis/) where it runs.
config="$PWD/Tools/scripts/schemathesis.toml"
(cd "$dir" && schemathesis --config-file "$config" run "$spec" --url "http://127.0.0.1:$port" \
  -H "Authorization: Bearer openapi-check-token" --checks all --max-examples "${CHECK_OPENAPI_EXAMPLES:-10}" \
  --exclude-path /v1/events --request-timeout 5 --generation-deterministic --no-color "$@") || status=$?
if ! kill -0 "$pid" 2>/dev/null; then
  cat "$dir/daemon.log" >&2
  echo "check-openapi: the daemon did not survive the run" >&2
  exit 1
fi
exit "$status"
