#!/usr/bin/env python3
"""A scripted phone for the KDE Connect tests: the phone's side of the protocol, written here from KDE
Connect's protocol (protocol version 8, or 7 with --protocol 7) with Python's own socket and ssl modules, so
the daemon is tested against code it does not share.

It announces itself to the daemon over UDP, takes the daemon's TCP connection, reads the daemon's identity,
starts TLS as the client (the side that accepted), exchanges identities again inside TLS (protocol 8), and
then obeys commands on standard input, one per line:

  pair               ask to pair (kdeconnect.pair, pair true, with a timestamp in protocol 8)
  ring NUMBER [NAME] the phone rings (kdeconnect.telephony, event ringing)
  cancel             the ringing ends unanswered: ringing again with isCancel "true" (as the Android app)
  cancel-bool        the same with isCancel true (a boolean, as some implementations send it)
  missed             missedCall for the last number
  talk               the call is answered: talking
  hangup             talking again with isCancel "true"
  quit               close the link and exit

It prints what happens, one line each: "linked <daemon id>", "paired", "unpaired", "mute", "sent <command>",
"tls-failed <reason>", "closed". Every wait is bounded (--timeout); it never sleeps to synchronise.
"""
import argparse
import hashlib
import json
import os
import select
import socket
import ssl
import subprocess
import sys
import time
import uuid


def say(text):
    print(text, flush=True)


def packet(kind, body):
    return (json.dumps({"id": int(time.time() * 1000), "type": kind, "body": body}, separators=(",", ":")) + "\n").encode()


def make_certificate(directory, device_id):
    os.makedirs(directory, exist_ok=True)
    cert, key = os.path.join(directory, "certificate.pem"), os.path.join(directory, "private-key.pem")
    if not os.path.exists(cert):
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", key, "-out", cert, "-days", "3650", "-subj", f"/O=KDE/OU=KDE Connect/CN={device_id}"],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return cert, key


def public_key_info(certificate_der):
    """The certificate's SubjectPublicKeyInfo, DER, as OpenSSL writes it."""
    pem = subprocess.run(["openssl", "x509", "-inform", "DER", "-pubkey", "-noout"], input=certificate_der,
                         check=True, capture_output=True).stdout
    return subprocess.run(["openssl", "pkey", "-pubin", "-outform", "DER"], input=pem, check=True,
                          capture_output=True).stdout


def verification_key(ours_der, theirs_der, timestamp):
    """KDE Connect's pairing key (protocol 8): SHA-256 over both public keys, the larger first, and the
    request's timestamp; its first eight hexadecimal digits, upper case."""
    first, second = public_key_info(ours_der), public_key_info(theirs_der)
    if first < second:
        first, second = second, first
    return hashlib.sha256(first + second + str(timestamp).encode()).hexdigest()[:8].upper()


def read_line(sock, limit, deadline):
    """One line, byte by byte, so nothing after it (TLS) is taken from the socket."""
    data = b""
    while not data.endswith(b"\n"):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("no line in time")
        sock.settimeout(remaining)
        chunk = sock.recv(1)
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
        if len(data) > limit:
            raise ValueError("line too long")
    return json.loads(data)


class TLSLines:
    def __init__(self, tls):
        self.tls = tls
        self.pending = b""

    def line(self, deadline):
        while b"\n" not in self.pending:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no packet in time")
            self.tls.settimeout(remaining)
            chunk = self.tls.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return json.loads(line)

    def ready(self):
        return b"\n" in self.pending or self.tls.pending() > 0


def take_daemon_connection(args, identity, cert, key, device_id, deadline):
    """Announces the phone to the daemon, which connects; the phone is then TLS's client."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    host, udp_port = args.daemon.rsplit(":", 1)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.sendto(packet("kdeconnect.identity", dict(identity, tcpPort=port)), (host, int(udp_port)))
    listener.settimeout(args.timeout)
    connection, _ = listener.accept()
    theirs = read_line(connection, 8192, deadline)
    body = theirs["body"]
    if theirs["type"] != "kdeconnect.identity" or body.get("targetDeviceId") not in (None, device_id):
        return None, None
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # KDE Connect pins certificates itself; there is no CA
    context.load_cert_chain(cert, key)
    connection.settimeout(args.timeout)
    return context.wrap_socket(connection, server_side=False), body


def connect_to_daemon(args, identity, cert, key, deadline):
    """Waits for the daemon's announcement and connects to it; the phone is then TLS's server."""
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    udp.bind(("127.0.0.1", args.listen_udp))
    udp.settimeout(args.timeout)
    datagram, (host, _) = udp.recvfrom(65536)
    theirs = json.loads(datagram)
    body = theirs["body"]
    if theirs["type"] != "kdeconnect.identity" or "tcpPort" not in body:
        return None, None
    connection = socket.create_connection((host, body["tcpPort"]), timeout=args.timeout)
    hello = dict(identity, targetDeviceId=body["deviceId"], targetProtocolVersion=body["protocolVersion"])
    connection.sendall(packet("kdeconnect.identity", hello))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.verify_mode = ssl.CERT_NONE  # the daemon's certificate is not checked here: this phone pins nothing
    context.load_cert_chain(cert, key)
    return context.wrap_socket(connection, server_side=True), body


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--daemon", help="the daemon's UDP announcement address, host:port: the phone announces "
                        "itself there and the daemon connects (the phone is TLS's client)")
    parser.add_argument("--listen-udp", type=int, help="a UDP port on 127.0.0.1 where the phone waits for the "
                        "daemon's announcement and connects to it (the phone is TLS's server)")
    parser.add_argument("--name", default="Test Phone")
    parser.add_argument("--id", default=None)
    parser.add_argument("--state", required=True, help="folder for this phone's certificate")
    parser.add_argument("--protocol", type=int, default=8)
    parser.add_argument("--timeout", type=float, default=20)
    args = parser.parse_args()

    device_id = args.id or uuid.uuid4().hex
    cert, key = make_certificate(args.state, device_id)
    identity = {"deviceId": device_id, "deviceName": args.name, "deviceType": "phone",
                "protocolVersion": args.protocol, "incomingCapabilities": ["kdeconnect.telephony.request_mute"],
                "outgoingCapabilities": ["kdeconnect.telephony"]}

    deadline = time.monotonic() + args.timeout
    try:
        if args.listen_udp:
            tls, body = connect_to_daemon(args, identity, cert, key, deadline)
        else:
            tls, body = take_daemon_connection(args, identity, cert, key, device_id, deadline)
    except (ssl.SSLError, OSError) as error:
        say(f"tls-failed {error}")
        return 0
    if tls is None:
        say("refused identity")
        return 1
    lines = TLSLines(tls)
    try:
        if args.protocol >= 8:
            tls.sendall(packet("kdeconnect.identity", identity))
            secure = lines.line(time.monotonic() + args.timeout)
            if secure["body"].get("deviceId") != body["deviceId"]:
                say("refused identity inside TLS")
                return 1
    except (ssl.SSLError, OSError, TimeoutError) as error:
        say(f"tls-failed {error}")
        return 0
    say(f"linked {body['deviceId']}")

    number, name, last = None, None, None
    stdin = sys.stdin.fileno()
    typed = b""
    while True:
        if b"\n" in typed:
            command, _, typed = typed.partition(b"\n")
            words = command.decode().split()
            if not words:
                continue
            verb = words[0]
            if verb == "quit":
                tls.close()
                return 0
            if verb == "pair":
                pair = {"pair": True}
                if args.protocol >= 8:
                    pair["timestamp"] = int(time.time())
                tls.sendall(packet("kdeconnect.pair", pair))
                daemon_der = tls.getpeercert(binary_form=True)
                if args.protocol >= 8 and daemon_der:
                    with open(cert, "rb") as handle:
                        ours_der = ssl.PEM_cert_to_DER_cert(handle.read().decode())
                    say(f"key {verification_key(ours_der, daemon_der, pair['timestamp'])}")
            elif verb == "ring":
                number = words[1]
                name = " ".join(words[2:]) or number
                last = {"event": "ringing", "phoneNumber": number, "contactName": name}
                tls.sendall(packet("kdeconnect.telephony", last))
            elif verb in ("cancel", "cancel-bool", "hangup"):
                flag = True if verb == "cancel-bool" else "true"
                tls.sendall(packet("kdeconnect.telephony", dict(last, isCancel=flag)))
            elif verb == "missed":
                missed = {"event": "missedCall", "phoneNumber": number, "contactName": name}
                tls.sendall(packet("kdeconnect.telephony", missed))
            elif verb == "talk":
                last = {"event": "talking", "phoneNumber": number, "contactName": name}
                tls.sendall(packet("kdeconnect.telephony", last))
            else:
                say(f"unknown command {verb}")
                continue
            say(f"sent {verb}")
            continue
        if lines.ready():
            readable = [tls]
        else:
            readable, _, _ = select.select([stdin, tls], [], [], args.timeout)
        if not readable:
            say("idle")
            return 1
        if stdin in readable:
            chunk = os.read(stdin, 4096)
            if not chunk:
                tls.close()
                return 0
            typed += chunk
        if tls in readable:
            try:
                received = lines.line(time.monotonic() + args.timeout)
            except (ConnectionError, ssl.SSLError, OSError, TimeoutError):
                say("closed")
                return 0
            if received["type"] == "kdeconnect.pair":
                say("paired" if received["body"].get("pair") else "unpaired")
            elif received["type"] == "kdeconnect.telephony.request_mute":
                say("mute")
            else:
                say(f"received {received['type']}")


if __name__ == "__main__":
    sys.exit(main())
