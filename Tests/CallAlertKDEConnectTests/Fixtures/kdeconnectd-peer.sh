#!/usr/bin/env bash
# Discovery and pairing against Debian's KDE Connect (kdeconnectd, protocol 7), headless (Qt offscreen, a session
# bus of its own), with CallAlert's daemon: each in a network namespace of its own, joined by a veth pair on
# TEST-NET-1 (192.0.2.0/24), so nothing leaves this machine and no port of the host is taken. kdeconnectd hears
# the daemon's announcement, links to it (the daemon is TLS's client), asks to pair; the daemon shows the request,
# `callalert kdeconnect pair` accepts, and kdeconnectd pins the daemon's certificate. Every wait is bounded.
# Usage: kdeconnectd-peer.sh /path/to/callalert; prints what happened, ends with PASS or FAIL: <why>.
set -euo pipefail
callalert="$1"
kdeconnectd="$(ls /usr/lib/*/libexec/kdeconnectd 2>/dev/null | head -1)"
work="$(mktemp -d)"
tag="kc$$"
a="${tag}a"
b="${tag}b"
daemon=""
cleanup() {
  for ns in "$a" "$b"; do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
    ip netns delete "$ns" 2>/dev/null || true
  done
  [ -n "$daemon" ] && { wait "$daemon" 2>/dev/null || true; }
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  echo "--- daemon"; cat "$work/a/err" 2>/dev/null | tail -20
  echo "--- kdeconnectd"; cat "$work/b/out" 2>/dev/null | tail -20
  exit 1
}

ip netns add "$a"
ip netns add "$b"
ip link add "${tag}x" type veth peer name "${tag}y"
ip link set "${tag}x" netns "$a"
ip link set "${tag}y" netns "$b"
ip -n "$a" addr add 192.0.2.1/24 dev "${tag}x"
ip -n "$b" addr add 192.0.2.2/24 dev "${tag}y"
for ns in "$a" "$b"; do ip -n "$ns" link set lo up; done
ip -n "$a" link set "${tag}x" up
ip -n "$b" link set "${tag}y" up

mkdir -p "$work/a" "$work/b/home" "$work/b/run"
chmod 700 "$work/b/run"
cat > "$work/a/config.yaml" <<CONFIG
cap: 20s
boards:
  - name: desk
socket:
  path: $work/a/control.sock
history:
  path: $work/a/history.sqlite
kdeconnect:
  name: CallAlert Test
  broadcast: false
  peers: [192.0.2.2]
  announce_every: 1s
CONFIG
ip netns exec "$a" "$callalert" run --simulate --no-stdin --config "$work/a/config.yaml" > "$work/a/out" 2> "$work/a/err" &
daemon=$!

# kdeconnectd is started by the bus when kdeconnect-cli first asks for it, with the offscreen platform.
ip netns exec "$b" env HOME="$work/b/home" XDG_RUNTIME_DIR="$work/b/run" QT_QPA_PLATFORM=offscreen \
  dbus-run-session -- bash -c '
    for i in $(seq 150); do
      id="$(kdeconnect-cli -l --id-only 2>/dev/null | head -1)"
      [ -n "$id" ] && break
      sleep 0.2
    done
    [ -n "$id" ] || { echo "never saw CallAlert"; exit 1; }
    echo "reachable $id"
    kdeconnect-cli --pair -d "$id"
    for i in $(seq 150); do
      if grep -qs "$id" "$HOME/.config/kdeconnect/trusted_devices"; then echo "trusted $id"; exit 0; fi
      sleep 0.2
    done
    echo "not trusted"; exit 1
  ' > "$work/b/out" 2>&1 &
peer=$!

name=""
for i in $(seq 150); do
  name="$("$callalert" kdeconnect devices --socket "$work/a/control.sock" 2>/dev/null | grep pairing-requested | sed 's/ (.*//' || true)"
  [ -n "$name" ] && break
  sleep 0.2
done
[ -n "$name" ] || fail "no pairing request reached the daemon"
echo "daemon: $name asks to pair"
"$callalert" kdeconnect pair "$name" --socket "$work/a/control.sock"
wait "$peer" || fail "kdeconnectd did not pin the daemon"
grep "trusted" "$work/b/out"
for i in $(seq 100); do
  "$callalert" kdeconnect devices --socket "$work/a/control.sock" | grep -q ": connected" && break
  sleep 0.2
done
"$callalert" kdeconnect devices --socket "$work/a/control.sock"
"$callalert" kdeconnect devices --socket "$work/a/control.sock" | grep -q ": connected" || fail "not connected after pairing"
grep -q '"protocol_version" : 7' "$work/a/kdeconnect/trusted.json" || fail "the daemon did not pin kdeconnectd (protocol 7)"
echo PASS
