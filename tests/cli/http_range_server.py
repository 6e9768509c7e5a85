#!/usr/bin/env python3
"""A small HTTP server on loopback for the model-download tests (tests/cli/test_cli_model.cpp). It serves the files
of one folder, honours `Range: bytes=N-` (206, or 416 past the end) unless --no-ranges, and with --break-after N it
breaks the connection after N bytes of the body of its first --break-times answers (the full length announced), as
a network that drops does. Every request is logged as a line (path and Range header) to --log. The port it listens
on is the first line of its standard output."""
import argparse
import http.server
import os
import sys
import threading
import urllib.parse

parser = argparse.ArgumentParser()
parser.add_argument("folder")
parser.add_argument("--break-after", type=int, default=0)
parser.add_argument("--break-times", type=int, default=1)
parser.add_argument("--no-ranges", action="store_true")
parser.add_argument("--log", default=os.devnull)
args = parser.parse_args()
lock = threading.Lock()
breaks_left = [args.break_times if args.break_after else 0]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *unused):
        pass

    def do_GET(self):
        rng = self.headers.get("Range")
        with lock, open(args.log, "a") as log:
            log.write(f"GET {self.path} {rng or '-'}\n")
        name = urllib.parse.unquote(self.path.split("?")[0].lstrip("/"))
        path = os.path.join(args.folder, name)
        if "/" in name or not os.path.isfile(path):
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        with open(path, "rb") as f:
            data = f.read()
        start = 0
        if rng and not args.no_ranges and rng.startswith("bytes=") and rng.endswith("-"):
            start = int(rng[6:-1])
            if start >= len(data):
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{len(data)}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        else:
            self.send_response(200)
        body = data[start:]
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        with lock:
            breaking = breaks_left[0] > 0 and len(body) > args.break_after
            if breaking:
                breaks_left[0] -= 1
        if breaking:
            self.wfile.write(body[: args.break_after])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(2)
            return
        self.wfile.write(body)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
