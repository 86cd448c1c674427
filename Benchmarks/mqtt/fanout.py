#!/usr/bin/env python3
"""MQTT fan-out on this machine: one mosquitto, N `callalert run --simulate` daemons with B boards each,
one call published (QoS 1); reports how long from the publish to each host's ringing event (the engine's
decision, which sends the PLAY at once), the slowest host, and the daemons' memory.

    python3 Benchmarks/mqtt/fanout.py --hosts 20 --boards 4 --binary .build/release/callalert
"""
import argparse, json, os, re, signal, socket, subprocess, sys, tempfile, time

parser = argparse.ArgumentParser()
parser.add_argument("--hosts", type=int, default=10)
parser.add_argument("--boards", type=int, default=4)
parser.add_argument("--binary", default=".build/debug/callalert")
parser.add_argument("--calls", type=int, default=3)
args = parser.parse_args()

work = tempfile.mkdtemp(prefix="callalert-fanout-")
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
with open(f"{work}/mosquitto.conf", "w") as f:
    f.write(f"listener {port} 127.0.0.1\nallow_anonymous true\nmax_queued_messages 10000\n")
children = []
def stop_all():
    for child in children:
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
    for child in children:
        try:
            child.wait(timeout=20)
        except subprocess.TimeoutExpired:
            child.kill()

try:
    broker = subprocess.Popen(["/usr/sbin/mosquitto", "-c", f"{work}/mosquitto.conf"], stderr=subprocess.DEVNULL)
    children.append(broker)
    deadline = time.time() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if time.time() > deadline: sys.exit("mosquitto did not start")
            time.sleep(0.05)
    outputs = []
    for h in range(args.hosts):
        folder = f"{work}/host{h}"
        os.makedirs(folder)
        boards = "\n".join(f"  - name: b{b}" for b in range(args.boards))
        with open(f"{folder}/config.yaml", "w") as f:
            f.write(f"cap: 30s\nboards:\n{boards}\nsocket:\n  path: {folder}/s.sock\nhistory:\n  path: {folder}/h.sqlite\n"
                    f"mqtt:\n  broker: mqtt://127.0.0.1:{port}\n  node_id: host{h}\n  discovery: false\n")
        out = open(f"{folder}/events.jsonl", "w")
        outputs.append(f"{folder}/events.jsonl")
        children.append(subprocess.Popen([args.binary, "run", "--simulate", "--config", f"{folder}/config.yaml"],
                                         stdout=out, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL))
    # Every host online (its retained availability).
    deadline = time.time() + 120
    while True:
        seen = subprocess.run(["mosquitto_sub", "-p", str(port), "-t", "callalert/hosts/+/availability", "-v",
                               "--retained-only", "-W", "2"], capture_output=True, text=True).stdout
        online = seen.count(" online")
        if online >= args.hosts: break
        if time.time() > deadline: sys.exit(f"only {online} of {args.hosts} hosts came online")
    time.sleep(3)  # boards connected (each host's first refresh)
    results = []
    for n in range(args.calls):
        call = f"fanout-{n}-{int(time.time()*1000)}"
        sent = time.time()
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(sent)) + f".{int(sent*1000)%1000:03d}Z"
        subprocess.run(["mosquitto_pub", "-p", str(port), "-q", "1", "-t", f"callalert/calls/{call}",
                        "-m", json.dumps({"type": "call", "id": call, "sent_at": stamp})], check=True)
        latencies = {}
        deadline = time.time() + 30
        while len(latencies) < args.hosts and time.time() < deadline:
            for h, path in enumerate(outputs):
                if h in latencies: continue
                for line in open(path):
                    if f'"id":"{call}"' in line and '"event":"ringing"' in line:
                        at = re.search(r'"at":"([^"]+)"', line).group(1)
                        t = time.mktime(time.strptime(at[:19], "%Y-%m-%dT%H:%M:%S")) - time.timezone + float("0" + at[19:-1])
                        latencies[h] = (t - sent) * 1000
            time.sleep(0.05)
        subprocess.run(["mosquitto_pub", "-p", str(port), "-q", "1", "-t", f"callalert/calls/{call}",
                        "-m", json.dumps({"type": "hangup", "id": call})], check=True)
        values = sorted(latencies.values())
        results.append(values)
        print(f"call {n}: {len(values)}/{args.hosts} hosts rang; publish -> ringing median "
              f"{values[len(values)//2]:.0f} ms, last {values[-1]:.0f} ms")
        time.sleep(1)
    rss = []
    for child in children[1:]:
        with open(f"/proc/{child.pid}/status") as f:
            rss.append(int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1)))
    print(f"{args.hosts} daemons x {args.boards} boards: RSS {sum(rss)/len(rss)/1024:.1f} MiB each "
          f"({sum(rss)/1024:.0f} MiB in all)")
finally:
    stop_all()
