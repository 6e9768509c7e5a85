#!/usr/bin/env python3
"""Checks and measures scripts/latency_proxy.py: round-trip time, that delays are not serialised, throughput.

Starts a small server (echo / sink / source, plain sockets in threads) on 127.0.0.1, runs the proxy in front of it
with --delay-ms D, and measures through the proxy:
  rtt       ping-pong of 64-byte messages, one at a time: median and 90th percentile (expected ~2 x D plus the
            proxy's timer granularity)
  overlap   64 pings sent back to back without waiting: the last reply should arrive ~2 x D after the first was
            sent, not 64 x 2 x D (delays overlap; a serialising proxy fails here)
  upload    MB client -> server (client sends, server counts and answers one byte at the end)
  download  MB server -> client
Exits non-zero when a check fails.

Usage: latency_proxy_test.py [--delay-ms D] [--mb MB] [--quick]   (--quick: rtt and overlap only)
"""

import argparse
import os
import socket
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROXY = os.path.join(HERE, "latency_proxy.py")
CHUNK = 1 << 20


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def recv_exact(sock, n):
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        k = sock.recv_into(view[got:])
        if k == 0:
            raise ConnectionError("closed early")
        got += k
    return bytes(buf)


def serve_one(conn):
    """First line says what to do: 'echo', 'sink N' or 'source N'."""
    with conn:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        f = b""
        while not f.endswith(b"\n"):
            b = conn.recv(1)
            if not b:
                return
            f += b
        cmd = f.decode().split()
        if cmd[0] == "echo":
            while True:
                b = conn.recv(65536)
                if not b:
                    return
                conn.sendall(b)
        elif cmd[0] == "sink":
            n = int(cmd[1])
            buf = bytearray(CHUNK)
            got = 0
            while got < n:
                k = conn.recv_into(buf)
                if k == 0:
                    return
                got += k
            conn.sendall(b"!")
        elif cmd[0] == "source":
            n = int(cmd[1])
            block = memoryview(os.urandom(CHUNK))
            sent = 0
            while sent < n:
                k = min(CHUNK, n - sent)
                conn.sendall(block[:k])
                sent += k


def server(lsock):
    while True:
        try:
            conn, _ = lsock.accept()
        except OSError:
            return
        threading.Thread(target=serve_one, args=(conn,), daemon=True).start()


def connect(port, cmd):
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.sendall(cmd.encode() + b"\n")
    return s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--delay-ms", type=float, default=1.0)
    ap.add_argument("--mb", type=int, default=300)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    d = args.delay_ms

    lsock = socket.socket()
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(16)
    threading.Thread(target=server, args=(lsock,), daemon=True).start()
    sport = lsock.getsockname()[1]
    pport = free_port()
    proxy = subprocess.Popen([sys.executable, PROXY, "--listen", str(pport), "--connect", str(sport),
                              "--delay-ms", str(d)], stdout=subprocess.PIPE, text=True)
    ok = True
    try:
        line = proxy.stdout.readline().strip()
        if line != "ready":
            print(f"FAIL: proxy said {line!r} instead of 'ready'")
            return 1

        def rtts(port, n):
            s = connect(port, "echo")
            out = []
            msg = b"x" * 64
            for _ in range(n):
                t = time.perf_counter()
                s.sendall(msg)
                recv_exact(s, len(msg))
                out.append((time.perf_counter() - t) * 1e3)
            s.close()
            return out

        base = rtts(sport, 200)
        via = rtts(pport, 200)
        q = lambda v, p: sorted(v)[int(p * (len(v) - 1))]
        added = statistics.median(via) - statistics.median(base)
        print(f"rtt      direct median {statistics.median(base):.3f} ms; through proxy median "
              f"{statistics.median(via):.3f} ms, p10 {q(via, .1):.3f}, p90 {q(via, .9):.3f} ms "
              f"(target 2 x {d:g} = {2 * d:g} ms; added {added:.3f} ms)")
        if added < 2 * d - 0.05 or added > 2 * d + max(1.0, 0.5 * d):
            print("FAIL: added RTT off target")
            ok = False

        s = connect(pport, "echo")
        n = 64
        t0 = time.perf_counter()
        for i in range(n):
            s.sendall(b"%07d\n" % i)
            time.sleep(0.0002)
        t_sent = time.perf_counter()
        data = recv_exact(s, 8 * n)
        t_last = time.perf_counter()
        s.close()
        span = (t_last - t0) * 1e3
        send_span = (t_sent - t0) * 1e3
        in_order = data == b"".join(b"%07d\n" % i for i in range(n))
        print(f"overlap  {n} pings sent over {send_span:.1f} ms; last reply {span:.1f} ms after the first send "
              f"(overlapped: ~{send_span + 2 * d:.1f}; serialised would be >= {n * 2 * d:.0f}); "
              f"order {'kept' if in_order else 'BROKEN'}")
        if not in_order or span > send_span + 2 * d + max(2.0, d):
            print("FAIL: delays look serialised or order broken")
            ok = False

        if not args.quick:
            nbytes = args.mb * 1_000_000
            for direction in ("upload", "download"):
                t0 = time.perf_counter()
                if direction == "upload":
                    s = connect(pport, f"sink {nbytes}")
                    block = memoryview(os.urandom(CHUNK))
                    sent = 0
                    while sent < nbytes:
                        k = min(CHUNK, nbytes - sent)
                        s.sendall(block[:k])
                        sent += k
                    recv_exact(s, 1)
                else:
                    s = connect(pport, f"source {nbytes}")
                    buf = bytearray(CHUNK)
                    got = 0
                    while got < nbytes:
                        k = s.recv_into(buf)
                        if k == 0:
                            raise ConnectionError("closed early")
                        got += k
                dt = time.perf_counter() - t0
                s.close()
                print(f"{direction:8s} {args.mb} MB in {dt:.2f} s = {args.mb / dt:.0f} MB/s through the proxy "
                      f"({d:g} ms each way)")
    finally:
        proxy.terminate()
        try:
            rc = proxy.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proxy.kill()
            rc = "killed"
        print(f"proxy exit status after SIGTERM: {rc}")
        if rc != 0:
            ok = False
        lsock.close()
    print("latency proxy check:", "OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
