#!/usr/bin/python3
"""A small HTTP CONNECT proxy for tests (issue 12: proxy selection).

    connect_proxy.py LOGFILE [NAME=ADDR ...]

Listens on 127.0.0.1, prints "READY PORT" once listening, and tunnels every
CONNECT host:port (NAME is first mapped to ADDR, so a test can give the
server a name that only the proxy can resolve).  Each CONNECT is appended
to LOGFILE as "CONNECT host:port".  Anything but CONNECT gets a 405.
"""
import select
import socket
import sys
import threading


def pipe(a, b):
    socks = [a, b]
    try:
        while True:
            r, _, _ = select.select(socks, [], [], 60)
            if not r:
                return
            for s in r:
                data = s.recv(65536)
                if not data:
                    return
                (b if s is a else a).sendall(data)
    except OSError:
        return
    finally:
        a.close()
        b.close()


def handle(conn, logf, lock, names):
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = conn.recv(4096)
        if not chunk:
            conn.close()
            return
        head += chunk
        if len(head) > 65536:
            conn.close()
            return
    line = head.split(b"\r\n", 1)[0].decode("latin-1")
    parts = line.split()
    if len(parts) != 3 or parts[0] != "CONNECT":
        conn.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
        conn.close()
        return
    with lock:
        logf.write("CONNECT %s\n" % parts[1])
        logf.flush()
    host, _, port = parts[1].rpartition(":")
    host = host.strip("[]")
    try:
        up = socket.create_connection((names.get(host, host), int(port)), timeout=10)
        up.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except (OSError, ValueError):
        conn.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
        conn.close()
        return
    conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
    rest = head.split(b"\r\n\r\n", 1)[1]
    if rest:
        up.sendall(rest)
    pipe(conn, up)


def main():
    logf = open(sys.argv[1], "a")
    names = dict(a.split("=", 1) for a in sys.argv[2:])
    lock = threading.Lock()
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(64)
    print("READY %d" % srv.getsockname()[1], flush=True)
    while True:
        conn, _ = srv.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as fakecluster: no Nagle stall
        threading.Thread(target=handle, args=(conn, logf, lock, names), daemon=True).start()


if __name__ == "__main__":
    main()
