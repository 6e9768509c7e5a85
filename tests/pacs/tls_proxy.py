#!/usr/bin/env python3
# A TLS terminator for the DICOMweb HTTPS test: accepts TLS on 127.0.0.1:LISTEN with CERT/KEY and forwards the bytes
# to plain HTTP on 127.0.0.1:TARGET. Debian's Orthanc 1.10.1 crashes on its first HTTPS connection here (its
# civetweb with OpenSSL 3), so the test puts this in front of a plain Orthanc instead of Orthanc's SslEnabled.
import socket
import ssl
import sys
import threading

cert, key, listen_port, target_port = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
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
    try:
        upstream = socket.create_connection(("127.0.0.1", target_port))
    except OSError:
        tls.close()
        return
    threading.Thread(target=pump, args=(tls, upstream), daemon=True).start()
    pump(upstream, tls)


while True:
    connection, _ = server.accept()
    threading.Thread(target=handle, args=(connection,), daemon=True).start()
