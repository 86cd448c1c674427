#!/usr/bin/env python3
"""Which of a running executable's ELF sections are resident, from /proc/PID/pagemap (its present bits need no
privilege; root also sees frame numbers, which this does not use). Usage: footprint-resident.py PID BINARY, BINARY
being the file the process runs."""
import re, struct, subprocess, sys
pid, binary = sys.argv[1], sys.argv[2]
base = None
real = subprocess.run(["readlink", "-f", binary], capture_output=True, text=True).stdout.strip()
for line in open(f"/proc/{pid}/maps"):
    parts = line.split()
    if len(parts) >= 6 and parts[5] == real and int(parts[2], 16) == 0:
        base = int(parts[0].split("-")[0], 16); break
sections = []
for line in subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True).stdout.splitlines():
    m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\S+\s+(\S*)", line)
    if m and "A" in m.group(4):
        sections.append((m.group(1), int(m.group(2), 16), int(m.group(3), 16)))
page = 4096
with open(f"/proc/{pid}/pagemap", "rb") as pm:
    total = 0
    rows = []
    for name, addr, size in sections:
        if size == 0 or addr == 0 and name != ".interp": continue
        start, end = (base + addr) // page, (base + addr + size + page - 1) // page
        pm.seek(start * 8)
        data = pm.read((end - start) * 8)
        present = sum(1 for i in range(0, len(data), 8) if struct.unpack("<Q", data[i:i+8])[0] >> 63)
        rows.append((present * page, name, size))
        total += present * page
    for resident, name, size in sorted(rows, reverse=True)[:14]:
        print(f"  {name:22} {size:11d} bytes, {resident // 1024:7d} KiB resident ({100 * resident / max(size,1):5.1f}%)")
    print(f"  {'sections, all':22} {total // 1024:7d} KiB resident")
