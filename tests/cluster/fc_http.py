"""The HTTP side of fakecluster: the request handler (HTTP/1.1 keep-alive,
Go-like response framing, the --log audit line, authentication, the
method check, routing) and the threaded TLS server.  Resources are in the
mixins fc_api (pods, namespaces, logs), fc_exec (exec) and fc_rbac; the
state of one run is self.st (fc_state.State)."""
import email.utils
import gzip
import http.server
import itertools
import json
import socket
import socketserver
import ssl
import threading
import urllib.parse

import fc_front
import fc_metrics
import fc_tls
from fc_api import ApiMixin
from fc_exec import ExecMixin
from fc_rbac import RbacMixin, User
from fc_wire import gojson, gopretty, now_iso, status_obj
from fc_ws import LineReader

# The audit's "conn": which TCP connection a request came on (1, 2, ...
# in accept order), so a test can count the connections a client opened.
CONN_NO = itertools.count(1)

AUDIT_HEAD = {"time", "user", "method", "path", "query", "raw_query"}


QUERY_CACHE = {}


QUERY_CACHE_LOCK = threading.Lock()


def parse_query_cached(raw):
    """parse_qs for --latency-ms mode, memoised: decoding the probe script's
    ~18000 %XX escapes costs ~1.3 ms of GIL per exec otherwise."""
    with QUERY_CACHE_LOCK:
        hit = QUERY_CACHE.get(("q", raw))
    if hit is None:
        hit = urllib.parse.parse_qs(raw, keep_blank_values=True)
        with QUERY_CACHE_LOCK:
            if len(QUERY_CACHE) > 256:
                QUERY_CACHE.clear()
            QUERY_CACHE[("q", raw)] = hit
    return hit


def query_json(raw, qlog):
    """', "query": ..., "raw_query": ...' of an audit line, memoised by raw query."""
    key = ("j", raw)
    with QUERY_CACHE_LOCK:
        hit = QUERY_CACHE.get(key)
    if hit is None:
        hit = ', "query": %s, "raw_query": %s' % (json.dumps(qlog), json.dumps(raw))
        with QUERY_CACHE_LOCK:
            QUERY_CACHE[key] = hit
    return hit


def pretty_wanted(handler, q):
    ua = handler.headers.get("User-Agent", "")
    p = q.get("pretty", [""])[0].lower()
    if p in ("true", "1"):
        return True
    if p in ("false", "0"):
        return False
    return ua.startswith("curl")


class Handler(RbacMixin, ApiMixin, ExecMixin, http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    rbufsize = 0
    server_version = "fakecluster"

    def log_message(self, fmt, *args):
        pass

    def setup(self):
        self.st = self.server.st
        http.server.BaseHTTPRequestHandler.setup(self)
        outer = getattr(self, "outer", None)   # an h2 stream: its connection's number
        self.conn_no = outer.conn_no if outer is not None else next(CONN_NO)
        try:
            self.connection.settimeout(None)
        except OSError:
            pass
        if self.st.latency is not None:
            self.rfile = LineReader(self.connection)

    def handle(self):
        # --h2: a connection whose ALPN picked h2 is served by fc_h2, each
        # stream by a StreamHandler on a socket pair (fc_h2's docstring)
        if self.st.h2:
            import fc_h2   # python3-h2, needed with --h2 only
            if fc_h2.negotiated(self.connection):
                fc_h2.serve(self, StreamHandler)
                return
        http.server.BaseHTTPRequestHandler.handle(self)

    # ---- logging
    def audit(self, status, nbytes, **extra):
        if not self.st.logf:
            return
        rec = {"time": now_iso(), "user": getattr(self, "user_name", None), "method": self.command,
               "path": self.req_path, "query": self.req_query_log, "raw_query": self.req_raw_query,
               "status": status, "bytes": nbytes, "conn": getattr(self, "conn_no", 0)}
        if self.st.h2:
            rec.update(proto="h2" if getattr(self, "h2_stream", None) else "http/1.1")
            if getattr(self, "h2_stream", None):
                rec["stream"] = self.h2_stream
        rec.update(fc_front.audit_extra(self))
        rec.update(fc_tls.audit_fields(self))
        rec.update(getattr(self, "fault_audit", None) or {})
        rec.update(extra)
        if self.st.latency is not None and not (set(extra) & AUDIT_HEAD):
            # --latency-ms: every exec repeats the same ~20 KiB query (the
            # probe script); encode it once (same bytes as json.dumps(rec)).
            q = query_json(self.req_raw_query, self.req_query_log)
            head = {k: rec[k] for k in ("time", "user", "method", "path")}
            tail = {k: v for k, v in rec.items() if k not in AUDIT_HEAD}
            line = json.dumps(head)[:-1] + q + (", " + json.dumps(tail)[1:] if tail else "}") + "\n"
        else:
            line = json.dumps(rec) + "\n"
        with self.st.loglock:
            self.st.logf.write(line)
            self.st.logf.flush()

    # ---- response helpers
    def write_response(self, code, headers, body=b"", reason=None, chunked=False):
        if reason is None:
            reason = http.server.BaseHTTPRequestHandler.responses.get(code, ("",))[0]
        lines = ["HTTP/1.1 %d %s" % (code, reason)]
        for k, v in headers:
            lines.append("%s: %s" % (k, v))
        if self.close_connection and not any(k.lower() == "connection" for k, _ in headers):
            lines.append("Connection: close")
        if chunked:
            lines.append("Transfer-Encoding: chunked")
            head = ("\r\n".join(lines) + "\r\n\r\n").encode()
            out = [head]
            for i in range(0, len(body), 1 << 20):
                piece = body[i:i + (1 << 20)]
                out.append(b"%x\r\n" % len(piece) + piece + b"\r\n")
            out.append(b"0\r\n\r\n")
            self.wfile.write(b"".join(out))
        else:
            head = ("\r\n".join(lines) + "\r\n\r\n").encode()
            self.wfile.write(head + body)
        return len(body)

    def send_json(self, code, obj, extra_headers=(), pretty=None, nosniff=False, allow_gzip=False,
                  log_extra=None):
        if pretty is None:
            pretty = pretty_wanted(self, self.q)
        body = (gopretty(obj) if pretty else gojson(obj) + "\n").encode()
        headers = [("Cache-Control", "no-cache, private"), ("Content-Type", "application/json")]
        if nosniff:
            headers.append(("X-Content-Type-Options", "nosniff"))
        headers += list(extra_headers)
        if code == 200:
            headers += [("X-Kubernetes-Pf-Flowschema-Uid", self.st.pf_fs), ("X-Kubernetes-Pf-Prioritylevel-Uid", self.st.pf_pl)]
        headers.append(("Date", email.utils.formatdate(usegmt=True)))
        ae = self.headers.get("Accept-Encoding", "")
        chunked = False
        if allow_gzip and "gzip" in ae.lower() and (len(body) >= 128 * 1024 or self.st.faults.flag("gzip")):
            body = gzip.compress(body, 6)
            headers.insert(2, ("Content-Encoding", "gzip"))
            chunked = True
        elif len(body) > 2048:
            chunked = True
        if not chunked:
            headers.append(("Content-Length", str(len(body))))
        self.audit(code, len(body), **(log_extra or {}))
        self.write_response(code, headers, body, chunked=chunked)

    def send_status(self, code, reason, message, details=None, **kw):
        self.send_json(code, status_obj(code, reason, message, details), nosniff=(code == 403), **kw)

    def send_text(self, code, text, headers_first=True):
        body = text.encode()
        headers = [("Content-Length", str(len(body))), ("Content-Type", "text/plain; charset=utf-8"),
                   ("Date", email.utils.formatdate(usegmt=True))]
        self.audit(code, len(body))
        self.write_response(code, headers, body)

    def not_found_generic(self):
        self.send_status(404, "NotFound", "the server could not find the requested resource", {})

    # ---- request entry points
    def do_GET(self):
        self.dispatch()

    def do_POST(self):
        self.dispatch()

    def do_PUT(self):
        self.dispatch()

    def do_PATCH(self):
        self.dispatch()

    def do_DELETE(self):
        self.dispatch()

    def do_HEAD(self):
        self.dispatch()

    def do_OPTIONS(self):
        self.dispatch()

    def drain_body(self):
        te = self.headers.get("Transfer-Encoding", "")
        if "chunked" in te.lower():
            self.close_connection = True
            return
        n = int(self.headers.get("Content-Length", "0") or 0)
        while n > 0:
            chunk = self.rfile.read(min(n, 65536))
            if not chunk:
                break
            n -= len(chunk)

    def dispatch(self):
        self.impersonation = self.stdin_hash = None
        self.pings = 0
        if fc_front.at_door(self):
            return
        u = urllib.parse.urlsplit(self.path)
        self.req_path = u.path
        self.req_raw_query = u.query
        if self.st.latency is not None:
            self.q = {k: list(v) for k, v in parse_query_cached(u.query).items()}
        else:
            self.q = urllib.parse.parse_qs(u.query, keep_blank_values=True)
        self.req_query_log = {k: (v[0] if len(v) == 1 else v) for k, v in self.q.items()}
        self.user_name = None
        self.fault_audit = None
        path = u.path
        if path in ("/healthz", "/livez", "/readyz") and self.command == "GET":
            body = b"ok"
            self.write_response(200, [("Content-Type", "text/plain; charset=utf-8"),
                                      ("X-Content-Type-Options", "nosniff"),
                                      ("Date", email.utils.formatdate(usegmt=True)),
                                      ("Content-Length", "2")], body)
            return
        if self.command != "GET":
            self.drain_body()
        user = self.authenticate()
        if user is None:
            self.send_status(401, "Unauthorized", "Unauthorized")
            return
        user = fc_front.impersonate(self, user, self.st.users, User)
        if user is None:
            return
        self.user = user
        self.user_name = user.name
        parts = [p for p in path.split("/") if p]
        is_exec = len(parts) == 7 and parts[:3] == ["api", "v1", "namespaces"] and parts[4] == "pods" \
            and parts[6] == "exec"
        if self.command != "GET" and not (is_exec and self.command == "POST"):
            self.send_status(405, "MethodNotAllowed",
                             "the server does not allow this method on the requested resource", {})
            return
        if not is_exec and self.st.faults.run("door", self):
            return
        try:
            self.route(parts)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, socket.timeout, OSError):
            self.close_connection = True

    def route(self, parts):
        n = len(parts)
        if parts == ["version"]:
            return self.send_json(200, self.st.version_doc)
        if parts == ["api"]:
            return self.send_json(200, self.st.disc_api)
        if parts == ["apis"]:
            return self.send_json(200, self.st.disc_apis)
        if self.st.dra.route(self, parts):
            return None
        if self.st.dgd.route(self, parts):
            return None
        if n == 3 and parts[0] == "apis" and "%s/%s" % (parts[1], parts[2]) in self.st.group_versions:
            return self.send_json(200, {"kind": "APIResourceList", "apiVersion": "v1",
                                        "groupVersion": "%s/%s" % (parts[1], parts[2]), "resources": []})
        if parts == ["api", "v1"]:
            return self.send_json(200, self.st.disc_v1)
        if n < 3 or parts[:2] != ["api", "v1"]:
            return self.not_found_generic()
        if parts[2] == "pods" and n == 3:
            return self.list_pods(None)
        if parts[2] != "namespaces":
            return self.not_found_generic()
        if n == 3:
            return self.list_namespaces()
        ns = parts[3]
        if n == 4:
            return self.get_namespace(ns)
        if parts[4] != "pods":
            return self.not_found_generic()
        if n == 5:
            return self.list_pods(ns)
        name = parts[5]
        if n == 6:
            return self.get_pod(ns, name)
        if n == 7 and parts[6] == "log":
            return self.pod_log(ns, name)
        if n == 7 and parts[6] == "exec":
            return self.exec_entry(ns, name)
        if n >= 7 and parts[6] == "proxy":
            return fc_metrics.proxy(self, ns, name, parts[7:])
        return self.not_found_generic()


class StreamHandler(Handler):
    """One h2 stream's request, read as HTTP/1.1 from its socket pair end
    (fc_h2), seen as its connection: the connection's number in the audit,
    its TLS facts and client certificate (tls_conn)."""

    def __init__(self, sock, outer, stream_id):
        self.outer = outer
        self.h2_stream = stream_id
        Handler.__init__(self, sock, outer.client_address, outer.server)

    def setup(self):
        Handler.setup(self)
        self.tls_conn = self.outer.connection

    def handle(self):
        http.server.BaseHTTPRequestHandler.handle(self)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    request_queue_size = 1024
    allow_reuse_address = True

    def __init__(self, addr, st):
        self.st = st    # fc_state.State: the one run's scenario, faults, log
        http.server.HTTPServer.__init__(self, addr, Handler)

    def get_request(self):
        sock, addr = self.socket.accept()
        # Small writes (status line, headers, WebSocket frames) must not wait for
        # the client's delayed ACK: without TCP_NODELAY each GET on a fresh
        # connection stalls ~40 ms on Nagle (issue 16 item 7).
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self.st.faults.run("connection", self.st, sock):
            raise OSError("held by a fault")   # socketserver skips it
        return self.st.sslctx.wrap_socket(sock, server_side=True, do_handshake_on_connect=False), addr

    def handle_error(self, request, client_address):
        pass
