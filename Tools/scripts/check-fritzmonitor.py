#!/usr/bin/env python3
"""Reads a FRITZ!Box call monitor with an independent client, PyPI fritzconnection's FritzMonitor, and checks
each line against AVM's documented format, so the fake box of the tests speaks what a real box speaks.

usage: check-fritzmonitor.py HOST PORT COUNT

Prints each line it received (as fritzconnection hands it over, without its line end) and exits 0 when COUNT
lines came and each is 'date;EVENT;id;...' with the date as %d.%m.%y %H:%M:%S; exits 1 on a bad line or a
timeout, and 77 when fritzconnection is not installed (Tools/scripts/install-deps.sh installs it).
"""
import datetime
import queue
import sys

try:
    from fritzconnection.core.fritzmonitor import FritzMonitor
except ImportError:
    print("fritzconnection is not installed (pip install fritzconnection)", file=sys.stderr)
    sys.exit(77)

FIELDS = {"RING": 6, "CALL": 7, "CONNECT": 5, "DISCONNECT": 4}


def check(line):
    fields = line.split(";")
    if fields and fields[-1] == "":
        fields.pop()
    datetime.datetime.strptime(fields[0], "%d.%m.%y %H:%M:%S")
    event = fields[1]
    if event not in FIELDS:
        raise ValueError(f"unknown event {event!r}")
    if len(fields) != FIELDS[event]:
        raise ValueError(f"{event} has {len(fields)} fields, AVM documents {FIELDS[event]}")
    int(fields[2])
    if event == "DISCONNECT":
        int(fields[3])


def main():
    host, port, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    monitor = FritzMonitor(address=host, port=port, timeout=0.2)
    events = monitor.start(reconnect_tries=0)
    status = 0
    try:
        for _ in range(count):
            line = events.get(timeout=10).strip()
            print(line, flush=True)
            try:
                check(line)
            except ValueError as error:
                print(f"not an AVM call monitor line: {line!r}: {error}", file=sys.stderr)
                status = 1
    except queue.Empty:
        print("timed out waiting for a line", file=sys.stderr)
        status = 1
    finally:
        monitor.stop()
    sys.exit(status)


if __name__ == "__main__":
    main()
