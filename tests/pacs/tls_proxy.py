#!/usr/bin/env python3
# A TLS terminator for the DICOMweb HTTPS test: accepts TLS on 127.0.0.1:LISTEN with CERT/KEY and forwards the bytes
# to plain HTTP on 127.0.0.1:TARGET. Debian's Orthanc 1.10.1 crashes on its first HTTPS connection here (its
# civetweb with OpenSSL 3), so the test puts this in front of a plain Orthanc instead of Orthanc's SslEnabled.
#
# Usage: tls_proxy.py CERT KEY LISTEN TARGET [--client-ca CA] [--bearer TOKEN]
#   --client-ca: clients must present a certificate that CA signed (the handshake fails otherwise).
#   --bearer: every request must carry "Authorization: Bearer TOKEN", else it is answered 401 (Orthanc has no bearer
#   authentication of its own). Each connection then carries one request (Connection: close is forced), so every
#   request's head is checked.
import socket
import ssl
import sys
import threading

cert, key, listen_port, target_port = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
options = dict(zip(sys.argv[5::2], sys.argv[6::2]))
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
if "--client-ca" in options:
    context.verify_mode = ssl.CERT_REQUIRED
    context.load_verify_locations(options["--client-ca"])
bearer = options.get("--bearer")
server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", listen_port))
server.listen(16)


def pump(source, sink):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def handle(client):
    try:
        tls = context.wrap_socket(client, server_side=True)
    except (OSError, ssl.SSLError):
        client.close()
        return
    head = b""
    if bearer is not None:
        try:
            while b"\r\n\r\n" not in head and len(head) < 65536:
                data = tls.recv(65536)
                if not data:
                    break
                head += data
        except OSError:
            tls.close()
            return
        end = head.find(b"\r\n\r\n")
        lines = head[:end].split(b"\r\n")
        given = [l.split(b":", 1)[1].strip() for l in lines[1:] if l.lower().startswith(b"authorization:")]
        if end < 0 or given != [b"Bearer " + bearer.encode()]:
            tls.sendall(b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer\r\nContent-Length: 0\r\n"
                        b"Connection: close\r\n\r\n")
            tls.close()
            return
        kept = [l for l in lines if not l.lower().startswith(b"connection:")]
        head = b"\r\n".join(kept) + b"\r\nConnection: close" + head[end:]
    try:
        upstream = socket.create_connection(("127.0.0.1", target_port))
    except OSError:
        tls.close()
        return
    if head:
        upstream.sendall(head)
    threading.Thread(target=pump, args=(tls, upstream), daemon=True).start()
    pump(upstream, tls)


while True:
    connection, _ = server.accept()
    threading.Thread(target=handle, args=(connection,), daemon=True).start()
