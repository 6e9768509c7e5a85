#!/usr/bin/env python3
"""Latency-emulating TCP proxy for benchmarks (used by scripts/bench_dicom.sh).

Listens on 127.0.0.1:LISTEN_PORT and forwards every accepted connection to 127.0.0.1:CONNECT_PORT. Every chunk of
data, in each direction, is held back for DELAY_MS milliseconds before it is sent on, so the round-trip time seen
through the proxy grows by 2 x DELAY_MS. The delays are not serialised: a chunk received at time t is sent at
t + DELAY_MS whatever else is in flight, and the order of the bytes is preserved. This models propagation latency
(a long but wide pipe), not a slow link: throughput is limited only by this process's CPU and by the amount of data
that may be in flight (--max-inflight-mb per direction, the proxy's "bandwidth-delay product" cap; beyond it the
proxy stops reading, so TCP flow control pushes back on the sender as it would on a real path).

What it does not model: the TCP handshake (connecting costs no extra round trip), loss, jitter, bandwidth limits,
and the sender's congestion window (the proxy acknowledges data at once on loopback). Half-closes (EOF) are
forwarded after the same delay; a reset or close of one side closes the other once its queued data has gone out.

Implementation: asyncio protocols. The transports read up to 256 KiB per recv (asyncio's selector transport reads
max_size = 256 KiB); each direction keeps a FIFO of (due_time, bytes) and a single loop timer (call_at) drains every
chunk that is due, writing them with one transport.write call. No task or sleep per chunk.

Usage: latency_proxy.py --listen PORT --connect PORT --delay-ms D [--max-inflight-mb M]
Prints "ready" on stdout (one line, flushed) once listening; details and errors go to stderr. Exits 0 on SIGTERM or
SIGINT, closing every connection.
"""

import argparse
import asyncio
import collections
import selectors
import signal
import socket
import sys

HOST = "127.0.0.1"
# Timers fire this much before a chunk is due and the rest is spun out: waking a sleeping process from select()
# takes ~0.1-0.2 ms here, which would otherwise add to every delay.
WAKE_LEAD = 0.0002
_EOF = object()  # queue marker: forward a half-close
_CLOSE = object()  # queue marker: close the destination


class Direction:
    """One direction of one connection: a delayed FIFO from a source transport to a destination transport."""

    def __init__(self, loop, delay_s, max_inflight, name):
        self.loop = loop
        self.delay = delay_s
        self.max_inflight = max_inflight
        self.name = name
        self.queue = collections.deque()  # (due_time, bytes | _EOF | _CLOSE)
        self.queued_bytes = 0
        self.timer = None
        self.src = None  # transport we read from (paused when too much is in flight)
        self.dst = None  # transport we write to (None until the upstream connection is made)
        self.src_paused_inflight = False
        self.src_paused_dst = False  # the destination's write buffer is full
        self.dead = False  # the destination is gone or closed; drop whatever comes

    # -- input side -----------------------------------------------------------------------------------------------
    def push(self, item):
        if self.dead:
            return
        due = self.loop.time() + self.delay
        self.queue.append((due, item))
        if isinstance(item, bytes):
            self.queued_bytes += len(item)
            if self.queued_bytes > self.max_inflight and not self.src_paused_inflight:
                self.src_paused_inflight = True
                self._update_src_reading()
        if self.timer is None and self.dst is not None:
            self.timer = self.loop.call_at(self.queue[0][0] - WAKE_LEAD, self._flush)

    def set_destination(self, dst):
        self.dst = dst
        if self.queue and self.timer is None:
            self.timer = self.loop.call_at(self.queue[0][0] - WAKE_LEAD, self._flush)

    def _update_src_reading(self):
        if self.src is None or self.src.is_closing():
            return
        if self.src_paused_inflight or self.src_paused_dst:
            self.src.pause_reading()
        else:
            self.src.resume_reading()

    def dst_paused(self, paused):
        self.src_paused_dst = paused
        self._update_src_reading()

    # -- output side ----------------------------------------------------------------------------------------------
    def _flush(self):
        self.timer = None
        dst = self.dst
        q = self.queue
        # The timer was set WAKE_LEAD early to absorb the wake-up latency; spin out the rest (at most WAKE_LEAD).
        if q:
            due = q[0][0]
            while self.loop.time() < due:
                pass
        horizon = self.loop.time() + 1e-6
        parts = []
        while q and q[0][0] <= horizon:
            _, item = q.popleft()
            if isinstance(item, bytes):
                parts.append(item)
                self.queued_bytes -= len(item)
                continue
            if parts:
                dst.write(b"".join(parts) if len(parts) > 1 else parts[0])
                parts = []
            if item is _EOF:
                if not dst.is_closing() and dst.can_write_eof():
                    dst.write_eof()
            else:  # _CLOSE
                self.abort()
                dst.close()
                return
        if parts and not dst.is_closing():
            dst.write(b"".join(parts) if len(parts) > 1 else parts[0])
        if self.src_paused_inflight and self.queued_bytes <= self.max_inflight // 2:
            self.src_paused_inflight = False
            self._update_src_reading()
        if q:
            self.timer = self.loop.call_at(q[0][0] - WAKE_LEAD, self._flush)

    def abort(self):
        self.dead = True
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self.queue.clear()
        self.queued_bytes = 0


class Side(asyncio.Protocol):
    """Protocol for one socket of a proxied connection; feeds `out` (data read here) and is written by `inp`."""

    def __init__(self, conn, out, inp):
        self.conn = conn
        self.out = out  # Direction whose source is this socket
        self.inp = inp  # Direction whose destination is this socket
        self.transport = None
        self.eof = False

    def connection_made(self, transport):
        self.transport = transport
        self.out.src = transport
        self.out._update_src_reading()
        if self is self.conn.client and not self.conn.client_ready.done():
            self.conn.client_ready.set_result(None)

    def data_received(self, data):
        self.out.push(data)

    def eof_received(self):
        self.eof = True
        self.out.push(_EOF)
        self.conn.check_both_eof()
        return True  # keep the write side open (half-close)

    def pause_writing(self):
        self.inp.dst_paused(True)

    def resume_writing(self):
        self.inp.dst_paused(False)

    def connection_lost(self, exc):
        self.out.src = None
        self.conn.side_lost(self)


class Connection:
    count = 0

    def __init__(self, proxy):
        self.proxy = proxy
        loop = proxy.loop
        Connection.count += 1
        self.id = Connection.count
        self.up = Direction(loop, proxy.delay, proxy.max_inflight, f"#{self.id} client->server")
        self.down = Direction(loop, proxy.delay, proxy.max_inflight, f"#{self.id} server->client")
        self.client = Side(self, self.up, self.down)
        self.server = Side(self, self.down, self.up)
        self.closed = False
        self.lost = set()
        self.client_ready = loop.create_future()  # set by the client side's connection_made

    async def connect_upstream(self):
        loop = self.proxy.loop
        try:
            transport, _ = await loop.create_connection(lambda: self.server, HOST, self.proxy.connect_port)
        except OSError as e:
            print(f"latency_proxy: #{self.id}: cannot connect to {HOST}:{self.proxy.connect_port}: {e}",
                  file=sys.stderr, flush=True)
            self.close_all()
            return
        await self.client_ready
        if self.closed:
            transport.close()
            return
        self.up.set_destination(transport)
        self.down.set_destination(self.client.transport)

    def check_both_eof(self):
        if self.client.eof and self.server.eof:
            # Both sides half-closed: close each once its queued data and EOF have gone out.
            for d in (self.up, self.down):
                d.push(_CLOSE)

    def side_lost(self, side):
        self.lost.add(id(side))
        side.inp.abort()  # nothing more can be written to this side
        # Forward the close after the delay (data already queued from this side still goes out first).
        side.out.push(_CLOSE)
        if side.out.dst is None:  # upstream never connected
            self.close_all()
        if len(self.lost) == 2:
            self.closed = True
            self.proxy.connections.discard(self)

    def close_all(self):
        self.closed = True
        for d in (self.up, self.down):
            d.abort()
        for s in (self.client, self.server):
            if s.transport is not None and not s.transport.is_closing():
                s.transport.close()
        self.proxy.connections.discard(self)


class Proxy:
    def __init__(self, loop, connect_port, delay_ms, max_inflight):
        self.loop = loop
        self.connect_port = connect_port
        self.delay = delay_ms / 1000.0
        self.max_inflight = max_inflight
        self.connections = set()

    def accept(self):
        conn = Connection(self)
        self.connections.add(conn)
        # The client side may send before upstream is connected; its data waits in the queue (due times run from
        # arrival, so an instant loopback connect costs nothing extra).
        self.loop.create_task(conn.connect_upstream())
        return conn.client


async def main():
    ap = argparse.ArgumentParser(description="TCP proxy on 127.0.0.1 that delays every chunk by D ms each way")
    ap.add_argument("--listen", type=int, required=True, help="port to listen on (127.0.0.1)")
    ap.add_argument("--connect", type=int, required=True, help="port to forward to (127.0.0.1)")
    ap.add_argument("--delay-ms", type=float, required=True, help="one-way delay in ms (RTT grows by twice this)")
    ap.add_argument("--max-inflight-mb", type=float, default=64.0,
                    help="per direction and connection, data held in the delay line before reading pauses (64)")
    args = ap.parse_args()
    if args.delay_ms < 0:
        ap.error("--delay-ms must be >= 0")

    loop = asyncio.get_running_loop()
    proxy = Proxy(loop, args.connect, args.delay_ms, int(args.max_inflight_mb * 1024 * 1024))
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        server = await loop.create_server(proxy.accept, HOST, args.listen, reuse_address=True, backlog=64)
    except OSError as e:
        print(f"latency_proxy: cannot listen on {HOST}:{args.listen}: {e}", file=sys.stderr, flush=True)
        return 1
    port = server.sockets[0].getsockname()[1]
    print(f"latency_proxy: {HOST}:{port} -> {HOST}:{args.connect}, {args.delay_ms:g} ms each way "
          f"(RTT + {2 * args.delay_ms:g} ms), pid {__import__('os').getpid()}", file=sys.stderr, flush=True)
    print("ready", flush=True)
    await stop.wait()
    server.close()
    for conn in list(proxy.connections):
        conn.close_all()
    await server.wait_closed()
    await asyncio.sleep(0)  # let the transports' close callbacks run
    return 0


def new_loop():
    # select(2) takes its timeout in microseconds; epoll_wait (asyncio's default selector on Linux) in whole
    # milliseconds, rounded up, which would make every delay up to 1 ms too long. A proxy has few sockets, so
    # select's FD_SETSIZE limit does not matter.
    return asyncio.SelectorEventLoop(selectors.SelectSelector())


if __name__ == "__main__":
    loop = new_loop()
    asyncio.set_event_loop(loop)
    try:
        rc = loop.run_until_complete(main())
    except KeyboardInterrupt:
        rc = 0
    finally:
        loop.close()
    sys.exit(rc)
