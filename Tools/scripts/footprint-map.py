#!/usr/bin/env python3
"""What each module or library adds to a binary: a link map's input sections (gold's or GNU ld's `-Map`),
summed by where they came from (a SwiftPM module's object files, or a static library) and by output
section. Usage: footprint-map.py MAP [ROWS]. Debug sections are left out: a stripped binary has none."""
import collections
import re
import sys

ALLOCATED = (".text", ".rodata", ".data", ".data.rel.ro", ".bss", ".eh_frame", ".gcc_except_table", ".tbss",
             ".tdata", ".init_array", ".fini_array", "swift5_")


def origin(path):
    module = re.search(r"/([^/]+)\.build/", path)
    if module:
        return module.group(1)
    library = re.search(r"lib([^/]+)\.a\(", path)
    if library:
        return "lib" + library.group(1) + ".a"
    return path.split("/")[-1]


def main():
    path = sys.argv[1]
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    sums = collections.defaultdict(collections.Counter)
    in_memory_map = False
    output_section = None
    pending = None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("Memory map"):
            in_memory_map = True
            continue
        if not in_memory_map or not line:
            continue
        if not line[0].isspace():
            output_section = line.split()[0]
            continue
        whole = re.match(r"^ (\S+)\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+(\S.*)$", line)
        if whole:
            sums[origin(whole.group(4))][output_section] += int(whole.group(3), 16)
            pending = None
            continue
        if re.match(r"^ \S+$", line):
            pending = line.strip()  # a long input section name: its address, size and file follow
            continue
        rest = re.match(r"^\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+(\S.*)$", line)
        if rest and pending and not rest.group(3).startswith("**"):
            sums[origin(rest.group(3))][output_section] += int(rest.group(2), 16)
        pending = None
    table = []
    for name, sections in sums.items():
        total = sum(size for section, size in sections.items() if section and section.startswith(ALLOCATED))
        table.append((total, name, sections))
    table.sort(reverse=True)
    everything = sum(row[0] for row in table)
    print(f"  {'module or library':38} {'bytes':>11} {'.text':>11} {'.rodata':>11} {'share':>6}")
    for total, name, sections in table[:rows]:
        print(f"  {name:38} {total:11d} {sections['.text']:11d} {sections['.rodata']:11d}"
              f" {100 * total / max(everything, 1):5.1f}%")
    rest = sum(row[0] for row in table[rows:])
    print(f"  {'(the other ' + str(max(0, len(table) - rows)) + ')':38} {rest:11d}")
    print(f"  {'all':38} {everything:11d}")


main()
