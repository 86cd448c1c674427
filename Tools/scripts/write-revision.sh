#!/usr/bin/env bash
# Writes Sources/CBuildInfo/revision.h (untracked) with the git revision `callalert --version` reports:
# $1 when given (a release tarball, the Debian build), else `git describe --always --dirty`, else "unknown".
# The file is rewritten only when the revision changed, so an unchanged tree rebuilds nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
revision="${1:-}"
if [ -z "$revision" ]; then
  revision="$(git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)"
fi
case "$revision" in *[!A-Za-z0-9._+~-]*) echo "error: unusable revision: $revision" >&2; exit 1 ;; esac
header=Sources/CBuildInfo/revision.h
content="#define CALLALERT_GIT_REVISION \"$revision\""
if [ ! -f "$header" ] || [ "$(cat "$header")" != "$content" ]; then
  printf '%s\n' "$content" > "$header"
  # A build that compiled build_info.c before revision.h existed does not know it depends on it: touching the
  # source (its content unchanged) makes SwiftPM compile it again.
  touch Sources/CBuildInfo/build_info.c
fi
