#!/usr/bin/env bash
# The codec micro-benchmarks on ordo-one's benchmark package (Benchmarks/, a package of its own). It needs that
# package and its dependencies from their repositories; where they cannot be fetched (no network), it says so and
# exits 0: `callalert-bench --only codec` measures the same codec without them.
set -uo pipefail
cd "$(dirname "$0")/../../Benchmarks"
if ! swift package resolve >/tmp/callalert-bench-ordo-resolve.log 2>&1; then
  echo "codec micro-benchmarks (ordo-one/benchmark): skipped, its packages could not be resolved" \
    "(see /tmp/callalert-bench-ordo-resolve.log); callalert-bench's codec section covers the same figures"
  exit 0
fi
exec swift package --allow-writing-to-package-directory benchmark --format markdown "$@"
