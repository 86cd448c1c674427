#!/usr/bin/env bash
# Checks Package.swift's library targets against the "Who may import whom" table in docs/ARCHITECTURE.md:
# fails on a dependency the table does not allow, or a library module the table does not list.
set -euo pipefail
cd "$(dirname "$0")/../.."
SWIFT="${SWIFT:-swift}"
command -v python3 >/dev/null || { echo "check-architecture: python3 is needed (apt-get install python3)" >&2; exit 1; }
"$SWIFT" package dump-package | python3 -c '
import json, re, sys
package = json.load(sys.stdin)
rules = {}
in_table = False
for number, line in enumerate(open("docs/ARCHITECTURE.md", encoding="utf-8"), 1):
    if line.startswith("## "):
        in_table = line.strip() == "## Who may import whom"
        continue
    match = re.match(r"^\| *([A-Za-z][A-Za-z0-9]*) *\| *(.*?) *\|$", line.rstrip("\n"))
    if not in_table or not match or match.group(1) == "module":
        continue
    allowed = set()
    for word in match.group(2).split(","):
        word = word.strip().rstrip("\u2020")
        if word and not word.startswith("("):
            allowed.add(word)
    rules[match.group(1)] = (allowed, number)
problems = []
for target in package["targets"]:
    if target["type"] not in ("regular", "system"):
        continue  # executables and tests may import any module
    name = target["name"]
    if name not in rules:
        problems.append(f"Package.swift: library target {name} is not in docs/ARCHITECTURE.md\u0027s table")
        continue
    allowed, number = rules[name]
    for dependency in target["dependencies"]:
        (kind, value), = dependency.items()
        if value[0] not in allowed:
            problems.append(
                f"Package.swift: {name} depends on {value[0]}, which docs/ARCHITECTURE.md:{number} does not allow")
for problem in problems:
    print("check-architecture: " + problem, file=sys.stderr)
if problems:
    sys.exit(1)
print(f"check-architecture: {len(rules)} modules, Package.swift matches docs/ARCHITECTURE.md")
'

# No descriptor is handed to libdispatch (docs/ARCHITECTURE.md, "No descriptor for libdispatch"): dispatch read/write
# sources, DispatchIO and FileHandle's readability handlers crashed the process inside
# _dispatch_event_loop_drain when their descriptor was closed before libdispatch let go of it. Descriptors go
# through CallAlertTransport's DescriptorChannel or DescriptorWatch; signal sources are fine.
if grep -rnE "makeReadSource|makeWriteSource|DispatchIO|readabilityHandler|writeabilityHandler" \
  --include='*.swift' Sources Tests Tools | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//'; then
  echo "check-architecture: the lines above hand a descriptor to libdispatch; use DescriptorChannel or DescriptorWatch" >&2
  exit 1
fi
