"""HTTP/2 for fakecluster (`--h2`), as kube-apiserver serves it: Go's
net/http offers "h2" and "http/1.1" by ALPN on its TLS port, and a client
that picks h2 sends its GETs as streams of one connection (client-go's
transport does; an upgrade, exec's WebSocket, needs HTTP/1.1 and its own
connection).  Each stream is answered by the same HTTP/1.1 handler as any
other request, through a socket pair: this module only frames.

The connection's thread does every read and write of the TLS socket
(OpenSSL's SSL object must not be read and written from two threads); a
stream's thread turns its handler's HTTP/1.1 answer into HEADERS and DATA
under the connection's lock, within the peer's flow-control window, and
wakes the connection's thread to send them.

Server settings: MAX_CONCURRENT_STREAMS 250, x/net/http2's defaultMaxStreams
(kube-apiserver's --http2-max-streams-per-connection, 0 = Go's default;
aggregated servers built on RecommendedOptions set 1000).

The audit line of a request that came as a stream has "proto": "h2" and
"stream": its id; "conn" is the TCP connection, as for HTTP/1.1 (whose
lines have "proto": "http/1.1" when the server runs with --h2)."""
import http.client
import os
import select
import socket
import ssl
import threading

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import h2.settings

MAX_STREAMS = 250
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"}


def negotiated(sock):
    """True when the TLS handshake picked h2 (the handshake is done here:
    the server wraps its sockets with do_handshake_on_connect=False)."""
    if not isinstance(sock, ssl.SSLSocket):
        return False
    try:
        sock.do_handshake()
    except (ssl.SSLError, OSError):
        return False
    return sock.selected_alpn_protocol() == "h2"


class Conn:
    """One h2 connection: the state the stream threads share with the
    connection's thread."""

    def __init__(self, handler):
        self.outer = handler                     # the connection's fc_http.Handler
        self.sock = handler.connection
        cfg = h2.config.H2Configuration(client_side=False, header_encoding="utf-8")
        self.h2 = h2.connection.H2Connection(config=cfg)
        self.lock = threading.Condition()
        self.wake_r, self.wake_w = os.pipe()
        self.requests = {}                       # stream id -> [headers, body bytes]
        self.backends = {}                       # stream id -> the handler's socket end
        self.closed = False

    def wake(self):
        try:
            os.write(self.wake_w, b"x")
        except OSError:
            pass

    def flush(self):
        """Writes what h2 has queued; only the connection's thread calls it."""
        with self.lock:
            out = self.h2.data_to_send()
        if out:
            self.sock.sendall(out)

    # ---- the connection's thread
    def serve(self):
        self.h2.update_settings({h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: MAX_STREAMS})
        with self.lock:
            self.h2.initiate_connection()
        try:
            self.flush()
            while self.step():
                self.flush()
        except (ssl.SSLError, OSError, h2.exceptions.ProtocolError):
            pass
        finally:
            self.close()

    def step(self):
        r, _, _ = select.select([self.sock, self.wake_r], [], [], 1.0)
        if self.wake_r in r:
            os.read(self.wake_r, 4096)
        if self.sock not in r and not self.sock.pending():
            return not self.closed
        data = self.sock.recv(65536)
        if not data:
            return False
        with self.lock:
            events = self.h2.receive_data(data)
        for ev in events:
            if not self.on_event(ev):
                return False
        return True

    def on_event(self, ev):
        if isinstance(ev, h2.events.RequestReceived):
            self.requests[ev.stream_id] = [ev.headers, b""]
        elif isinstance(ev, h2.events.DataReceived):
            if ev.stream_id in self.requests:
                self.requests[ev.stream_id][1] += ev.data
            with self.lock:
                self.h2.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
        elif isinstance(ev, h2.events.StreamEnded):
            req = self.requests.pop(ev.stream_id, None)
            if req is not None:
                threading.Thread(target=self.stream, args=(ev.stream_id, req[0], req[1]),
                                 daemon=True).start()
        elif isinstance(ev, h2.events.StreamReset):
            self.requests.pop(ev.stream_id, None)
            self.drop_backend(ev.stream_id)
        elif isinstance(ev, h2.events.ConnectionTerminated):
            return False
        with self.lock:
            self.lock.notify_all()               # a window may have opened
        return True

    def drop_backend(self, sid):
        with self.lock:
            b = self.backends.pop(sid, None)
        if b is not None:
            try:
                b.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self):
        with self.lock:
            self.closed = True
            backends = list(self.backends)
            self.lock.notify_all()
        for sid in backends:
            self.drop_backend(sid)
        for fd in (self.wake_r, self.wake_w):
            try:
                os.close(fd)
            except OSError:
                pass

    # ---- a stream's thread
    def stream(self, sid, headers, body):
        front, back = socket.socketpair()
        with self.lock:
            self.backends[sid] = front
        t = threading.Thread(target=self.run_handler, args=(back, sid), daemon=True)
        t.start()
        try:
            front.sendall(h1_request(headers, body))
            resp = http.client.HTTPResponse(front)
            resp.begin()
            self.answer(sid, resp)
        except (OSError, http.client.HTTPException, h2.exceptions.H2Error):
            self.reset(sid)
        finally:
            with self.lock:
                self.backends.pop(sid, None)
            front.close()

    def run_handler(self, sock, sid):
        try:
            self.stream_handler(sock, self.outer, sid)
        except OSError:
            pass
        finally:
            sock.close()

    def answer(self, sid, resp):
        hdrs = [(":status", str(resp.status))]
        hdrs += [(k.lower(), v) for k, v in resp.getheaders() if k.lower() not in HOP_BY_HOP]
        with self.lock:
            self.h2.send_headers(sid, hdrs)
        self.wake()
        while True:
            piece = resp.read1(16384) if hasattr(resp, "read1") else resp.read(16384)
            if not piece:
                break
            self.send(sid, piece)
        with self.lock:
            self.h2.end_stream(sid)
        self.wake()

    def send(self, sid, data):
        """DATA within the peer's windows, waiting for WINDOW_UPDATE."""
        while data:
            with self.lock:
                while not self.closed and self.window(sid) <= 0:
                    self.lock.wait(1.0)
                if self.closed:
                    raise OSError("connection closed")
                n = min(len(data), self.window(sid), self.h2.max_outbound_frame_size)
                self.h2.send_data(sid, data[:n])
            data = data[n:]
            self.wake()

    def window(self, sid):
        try:
            return self.h2.local_flow_control_window(sid)
        except h2.exceptions.StreamClosedError:
            raise OSError("stream reset")

    def reset(self, sid):
        with self.lock:
            try:
                self.h2.reset_stream(sid, h2.errors.ErrorCodes.INTERNAL_ERROR)
            except h2.exceptions.H2Error:
                pass
        self.wake()


def h1_request(headers, body):
    """The stream's request as the HTTP/1.1 text the handler reads."""
    pseudo = {k: v for k, v in headers if k.startswith(":")}
    lines = ["%s %s HTTP/1.1" % (pseudo.get(":method", "GET"), pseudo.get(":path", "/")),
             "Host: %s" % pseudo.get(":authority", "")]
    lines += ["%s: %s" % (k, v) for k, v in headers if not k.startswith(":") and k.lower() not in HOP_BY_HOP]
    lines.append("Connection: close")
    if body:
        lines.append("Content-Length: %d" % len(body))
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def serve(handler, stream_handler):
    """Serves an h2 connection on the handler's socket until it ends;
    stream_handler(sock, outer, stream_id) answers one stream's request."""
    conn = Conn(handler)
    conn.stream_handler = stream_handler
    conn.serve()
