#!/usr/bin/env bash
# Checks Package.swift's library targets, and the import lines of their files, against the "Who may import whom"
# table in docs/ARCHITECTURE.md: fails on a dependency or an import the table does not allow, or a library module
# the table does not list; and on a chain of dependencies by which a module of its "What a module never reaches"
# table reaches a module that table forbids it.
set -euo pipefail
cd "$(dirname "$0")/../.."
SWIFT="${SWIFT:-swift}"
command -v python3 >/dev/null || { echo "check-architecture: python3 is needed (apt-get install python3)" >&2; exit 1; }
"$SWIFT" package dump-package | python3 -c '
import json, os, re, sys
package = json.load(sys.stdin)
rules = {}
never = {}
in_table = False
table = rules
for number, line in enumerate(open("docs/ARCHITECTURE.md", encoding="utf-8"), 1):
    if line.startswith("## "):
        in_table = line.strip() == "## Who may import whom"
        table = rules
        continue
    if in_table and line.startswith("### "):
        table = never if line.strip() == "### What a module never reaches" else None
        continue
    match = re.match(r"^\| *([A-Za-z][A-Za-z0-9]*) *\| *(.*?) *\|$", line.rstrip("\n"))
    if not in_table or table is None or not match or match.group(1) == "module":
        continue
    allowed = set()
    for word in match.group(2).split(","):
        word = word.strip().rstrip("\u2020")
        if word and not word.startswith("("):
            allowed.add(word)
    table[match.group(1)] = (allowed, number)
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
# What a module never reaches: every chain of dependencies in Package.swift from it, followed to the end.
edges = {}
for target in package["targets"]:
    edges[target["name"]] = [next(iter(dependency.values()))[0] for dependency in target["dependencies"]]
for name, (forbidden, number) in sorted(never.items()):
    if name not in edges:
        problems.append(f"docs/ARCHITECTURE.md:{number}: {name} is not a target of Package.swift")
        continue
    path = {name: [name]}
    pending = [name]
    while pending:
        current = pending.pop()
        for dependency in edges.get(current, []):
            if dependency in path:
                continue
            path[dependency] = path[current] + [dependency]
            pending.append(dependency)
            if dependency in forbidden:
                chain = " -> ".join(path[dependency])
                problems.append(f"Package.swift: {chain}, which docs/ARCHITECTURE.md:{number} forbids")
# The import lines too: a module that compiles only because a dependency of a dependency brought another in
# is an edge the table does not show. The toolchain modules are open to every host module (the portable
# ones are held to the standard library by make firmware-check).
toolchain = {"Swift", "Foundation", "FoundationEssentials", "FoundationNetworking", "Glibc", "Musl", "Darwin",
             "Android", "Dispatch", "Synchronization", "_Concurrency", "Observation", "RegexBuilder", "os"}
import_line = re.compile(
    r"^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+"
    r"(?:(?:struct|class|enum|protocol|typealias|func|var|let|actor)\s+)?([A-Za-z_][A-Za-z0-9_]*)")
imports_checked = 0
for target in package["targets"]:
    if target["type"] != "regular" or target["name"] not in rules:
        continue
    name = target["name"]
    allowed, number = rules[name]
    folder = target.get("path") or f"Sources/{name}"
    for root, _, files in sorted(os.walk(folder)):
        for file in sorted(files):
            if not file.endswith(".swift"):
                continue
            path = os.path.join(root, file)
            for line_number, line in enumerate(open(path, encoding="utf-8"), 1):
                match = import_line.match(line)
                if not match:
                    continue
                imports_checked += 1
                module = match.group(1)
                if module in toolchain or module == name or module in allowed:
                    continue
                problems.append(
                    f"{path}:{line_number}: {name} imports {module}, which docs/ARCHITECTURE.md:{number} does not allow")
for problem in problems:
    print("check-architecture: " + problem, file=sys.stderr)
if problems:
    sys.exit(1)
print(f"check-architecture: {len(rules)} modules, Package.swift and {imports_checked} import lines match docs/ARCHITECTURE.md; {len(never)} modules reach none of what they must not")
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
