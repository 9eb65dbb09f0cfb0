"""Test helpers for tests/cluster: start/stop fakecluster, raw HTTPS and a
small raw-socket WebSocket client (stdlib only)."""
import atexit
import base64
import gzip
import hashlib
import json
import os
import select
import shutil
import signal
import socket
import ssl
import struct
import subprocess
import tempfile
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
FAKECLUSTER = os.path.join(HERE, "fakecluster")
SCENARIOS = os.path.join(HERE, "scenarios")
KUBECTL = os.environ.get("KUBECTL", "/usr/bin/kubectl")
WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def captures_dir():
    cands = [os.environ.get("FAKECLUSTER_CAPTURES", ""),
             os.path.join(HERE, "..", "fixtures", "captures-k8s-1.20")]
    for c in cands:
        if c and os.path.isfile(os.path.join(c, "INDEX.txt")):
            return os.path.abspath(c)
    return None


def mountinfo():
    with open("/proc/self/mountinfo") as f:
        return sorted(" ".join(l.split()[3:5]) for l in f)


class Cluster:
    def __init__(self, scenario, mode="v5", faults=(), latency=None, env=None, port=0, args=()):
        self.dir = tempfile.mkdtemp(prefix="fctest-")
        self.kubeconfig = os.path.join(self.dir, "kubeconfig")
        self.logpath = os.path.join(self.dir, "requests.jsonl")
        self.home = os.path.join(self.dir, "home")
        os.mkdir(self.home)
        cmd = [FAKECLUSTER, "--scenario", os.path.join(SCENARIOS, scenario) if "/" not in scenario else scenario,
               "--kubeconfig", self.kubeconfig, "--port", str(port), "--mode", mode, "--log", self.logpath]
        for f in faults:
            cmd += ["--fault", f]
        if latency is not None:
            cmd += ["--latency-ms", str(latency)]
        cmd += list(args)   # e.g. fc_front's --path-prefix, --max-request-line
        e = dict(os.environ)
        e.update(env or {})
        self.errf = open(os.path.join(self.dir, "server.err"), "wb")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=self.errf, env=e)
        line = b""
        deadline = time.time() + 60
        while not line.endswith(b"\n"):
            r, _, _ = select.select([self.proc.stdout], [], [], max(deadline - time.time(), 0))
            if not r:
                self.stop()
                raise RuntimeError("fakecluster did not become ready")
            c = os.read(self.proc.stdout.fileno(), 1)
            if not c:
                self.proc.wait()
                self.stop()
                raise RuntimeError("fakecluster exited (rc %s): %s" % (self.proc.returncode, self.stderr_text()))
            line += c
        self.ready_line = line.decode()
        assert self.ready_line.startswith("READY https://127.0.0.1:"), self.ready_line
        self.url = self.ready_line.split()[1]
        self.port = int(self.url.rsplit(":", 1)[1])
        with open(self.kubeconfig) as f:
            self.kc = yaml.safe_load(f)
        self.cafile = os.path.join(self.dir, "ca.crt")
        with open(self.cafile, "wb") as f:
            f.write(base64.b64decode(self.kc["clusters"][0]["cluster"]["certificate-authority-data"]))
        self.users = {u["name"]: u["user"] for u in self.kc["users"]}

    def token(self, user="admin"):
        return self.users[user].get("token")

    def cert_files(self, user):
        u = self.users[user]
        crt = os.path.join(self.dir, "%s.crt" % user)
        key = os.path.join(self.dir, "%s.key" % user)
        with open(crt, "wb") as f:
            f.write(base64.b64decode(u["client-certificate-data"]))
        with open(key, "wb") as f:
            f.write(base64.b64decode(u["client-key-data"]))
        return crt, key

    def stop(self, sig=signal.SIGTERM, timeout=30):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.errf.close()
        if self.proc.stdout:
            self.proc.stdout.close()
        return self.proc.returncode

    def cleanup(self):
        self.stop()
        if os.environ.get("FCTEST_KEEP"):
            return
        shutil.rmtree(self.dir, ignore_errors=True)

    def log(self):
        out = []
        if os.path.exists(self.logpath):
            with open(self.logpath) as f:
                for line in f:
                    out.append(json.loads(line))
        return out

    def stderr_text(self):
        with open(os.path.join(self.dir, "server.err")) as f:
            return f.read()

    # ---- raw connections
    def connect(self, cert_user=None, timeout=30):
        ctx = ssl.create_default_context(cafile=self.cafile)
        ctx.set_alpn_protocols(["http/1.1"])
        if cert_user:
            ctx.load_cert_chain(*self.cert_files(cert_user))
        s = socket.create_connection(("127.0.0.1", self.port), timeout=timeout)
        return ctx.wrap_socket(s, server_hostname="127.0.0.1")

    def request(self, path, method="GET", token="admin", headers=(), body=None, cert_user=None,
                raw=None, timeout=30):
        """One request on a fresh connection; returns Response."""
        s = self.connect(cert_user=cert_user, timeout=timeout)
        try:
            if raw is None:
                lines = ["%s %s HTTP/1.1" % (method, path), "Host: 127.0.0.1:%d" % self.port]
                if token:
                    tok = self.token(token) if token in self.users else token
                    lines.append("Authorization: Bearer %s" % tok)
                lines += ["%s: %s" % h for h in headers]
                if body is not None:
                    lines.append("Content-Length: %d" % len(body))
                lines.append("Connection: close")
                raw = ("\r\n".join(lines) + "\r\n\r\n").encode() + (body or b"")
            s.sendall(raw)
            return read_response(s)
        finally:
            s.close()

    def get_json(self, path, token="admin", headers=()):
        r = self.request(path, token=token, headers=headers)
        return r.status, json.loads(r.body.decode()) if r.body else None

    def kubectl(self, *args, context=None, timeout=60, env=None):
        e = dict(os.environ)
        e.update({"KUBECONFIG": self.kubeconfig, "HOME": self.home})
        e.update(env or {})
        cmd = [KUBECTL] + (["--context", context] if context else []) + list(args)
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e, timeout=timeout)
        return r.returncode, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")


# ---- clusters shared by the test classes of a module
_SHARED = {}


def shared_cluster(scenario, **kw):
    """The running Cluster(scenario, **kw) of this module, started on first
    use: test classes that need the same scenario, mode and faults share one
    server instead of starting one each.  Tests on it must not depend on
    being its only client (count requests as before/after deltas).  The
    module's tearDownModule = stop_shared stops them."""
    key = (scenario, repr(sorted(kw.items())))
    c = _SHARED.get(key)
    if c is None or c.proc.poll() is not None:
        c = _SHARED[key] = Cluster(scenario, **kw)
    return c


def stop_shared():
    while _SHARED:
        _SHARED.popitem()[1].cleanup()


atexit.register(stop_shared)    # a module without tearDownModule still stops them


class Response:
    def __init__(self):
        self.status_line = ""
        self.status = 0
        self.headers = []
        self.body = b""
        self.raw_head = b""
        self.rest = b""
        self.sock = None

    def header(self, name, default=None):
        for k, v in self.headers:
            if k.lower() == name.lower():
                return v
        return default


def recv_until_head(s, timeout=30):
    buf = b""
    s.settimeout(timeout)
    while b"\r\n\r\n" not in buf:
        try:
            c = s.recv(65536)
        except (ConnectionResetError, ssl.SSLError):
            c = b""
        if not c:
            break
        buf += c
    head, _, rest = buf.partition(b"\r\n\r\n")
    return head, rest


def parse_head(head):
    r = Response()
    r.raw_head = head
    lines = head.decode("latin-1").split("\r\n")
    r.status_line = lines[0]
    parts = lines[0].split(" ", 2)
    r.status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
    for ln in lines[1:]:
        if ":" in ln:
            k, v = ln.split(":", 1)
            r.headers.append((k, v.strip()))
    return r


def read_all(s, initial=b"", timeout=30):
    data = initial
    s.settimeout(timeout)
    while True:
        try:
            c = s.recv(65536)
        except (ConnectionResetError, ssl.SSLError, socket.timeout):
            break
        if not c:
            break
        data += c
    return data


def read_response(s, timeout=30):
    head, rest = recv_until_head(s, timeout)
    r = parse_head(head)
    te = (r.header("Transfer-Encoding") or "").lower()
    cl = r.header("Content-Length")
    if r.status == 101:
        r.rest = rest
        return r
    if "chunked" in te:
        data = rest
        body = b""
        while True:
            while b"\r\n" not in data:
                more = s.recv(65536)
                if not more:
                    raise IOError("EOF in chunked body")
                data += more
            line, _, data = data.partition(b"\r\n")
            n = int(line.split(b";")[0], 16)
            while len(data) < n + 2:
                more = s.recv(65536)
                if not more:
                    raise IOError("EOF in chunk")
                data += more
            if n == 0:
                break
            body += data[:n]
            data = data[n + 2:]
        r.body = body
    elif cl is not None:
        n = int(cl)
        data = rest
        while len(data) < n:
            more = s.recv(65536)
            if not more:
                break
            data += more
        r.body = data[:n]
    else:
        r.body = read_all(s, rest, timeout)
    if (r.header("Content-Encoding") or "") == "gzip":
        r.gzipped = True
        r.body = gzip.decompress(r.body)
    return r


def ws_key():
    return base64.b64encode(os.urandom(16)).decode()


def ws_accept(key):
    return base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()


def ws_frame(opcode, payload, fin=True, masked=True):
    b0 = (0x80 if fin else 0) | opcode
    n = len(payload)
    mb = 0x80 if masked else 0
    if n < 126:
        hdr = struct.pack("!BB", b0, mb | n)
    elif n < 65536:
        hdr = struct.pack("!BBH", b0, mb | 126, n)
    else:
        hdr = struct.pack("!BBQ", b0, mb | 127, n)
    if masked:
        key = os.urandom(4)
        payload = bytes(b ^ key[i % 4] for i, b in enumerate(payload))
        hdr += key
    return hdr + payload


class Frame:
    def __init__(self, fin, opcode, masked, payload, rsv=0):
        self.fin, self.opcode, self.masked, self.payload, self.rsv = fin, opcode, masked, payload, rsv

    @property
    def channel(self):
        return self.payload[0] if self.payload and self.opcode in (1, 2) else None

    def __repr__(self):
        return "Frame(fin=%d op=%d masked=%s len=%d %r)" % (self.fin, self.opcode, self.masked,
                                                           len(self.payload), self.payload[:60])


class FrameReader:
    """Reads server frames strictly (reports what is on the wire)."""

    def __init__(self, sock, initial=b""):
        self.sock = sock
        self.buf = initial
        self.eof = False

    def _need(self, n, timeout):
        while len(self.buf) < n:
            self.sock.settimeout(timeout)
            try:
                c = self.sock.recv(65536)
            except (ConnectionResetError, ssl.SSLError):
                c = b""
            if not c:
                self.eof = True
                return False
            self.buf += c
        return True

    def next(self, timeout=30, max_len=1 << 26):
        """Returns a Frame, None at clean EOF, or raises ValueError('truncated')."""
        if not self._need(2, timeout):
            if self.buf:
                raise ValueError("truncated header")
            return None
        b0, b1 = self.buf[0], self.buf[1]
        n = b1 & 0x7F
        pos = 2
        if n == 126:
            if not self._need(4, timeout):
                raise ValueError("truncated length")
            n = struct.unpack("!H", self.buf[2:4])[0]
            pos = 4
        elif n == 127:
            if not self._need(10, timeout):
                raise ValueError("truncated length")
            n = struct.unpack("!Q", self.buf[2:10])[0]
            pos = 10
            if n >> 63:
                raise ValueError("length with top bit set: %#x" % n)
        masked = bool(b1 & 0x80)
        if masked:
            if not self._need(pos + 4, timeout):
                raise ValueError("truncated mask")
            key = self.buf[pos:pos + 4]
            pos += 4
        if n > max_len:
            raise ValueError("frame too large: %d" % n)
        if not self._need(pos + n, timeout):
            raise ValueError("truncated payload: have %d of %d" % (len(self.buf) - pos, n))
        payload = self.buf[pos:pos + n]
        if masked:
            payload = bytes(b ^ key[i % 4] for i, b in enumerate(payload))
        self.buf = self.buf[pos + n:]
        return Frame(b0 >> 7, b0 & 0x0F, masked, payload, rsv=(b0 >> 4) & 7)


class WSExec:
    """Result of a raw WebSocket exec."""

    def __init__(self):
        self.response = None
        self.frames = []
        self.error = None
        self.eof = False
        self.key = None


def ws_exec(cluster, path, protocols="v5.channel.k8s.io,v4.channel.k8s.io", token="admin",
            extra_headers=(), send_frames=(), raw=None, key=None, cert_user=None, timeout=30,
            read_frames=True, max_frames=100000):
    res = WSExec()
    key = key or ws_key()
    res.key = key
    s = cluster.connect(cert_user=cert_user, timeout=timeout)
    res.sock = s
    if raw is None:
        lines = ["GET %s HTTP/1.1" % path, "Host: 127.0.0.1:%d" % cluster.port, "Upgrade: websocket",
                 "Connection: Upgrade", "Sec-WebSocket-Key: %s" % key, "Sec-WebSocket-Version: 13"]
        if protocols is not None:
            lines.append("Sec-WebSocket-Protocol: %s" % protocols)
        if token:
            lines.append("Authorization: Bearer %s" % (cluster.token(token) if token in cluster.users else token))
        lines += ["%s: %s" % h for h in extra_headers]
        raw = ("\r\n".join(lines) + "\r\n\r\n").encode()
    s.sendall(raw)
    head, rest = recv_until_head(s, timeout)
    r = parse_head(head)
    res.response = r
    if r.status != 101:
        cl = r.header("Content-Length")
        data = rest
        if cl is not None:
            while len(data) < int(cl):
                more = s.recv(65536)
                if not more:
                    break
                data += more
            r.body = data[:int(cl)]
        else:
            r.body = read_all(s, rest, timeout=5)
        s.close()
        return res
    for op, payload in send_frames:
        s.sendall(ws_frame(op, payload))
    if not read_frames:
        res.reader = FrameReader(s, rest)
        return res
    fr = FrameReader(s, rest)
    try:
        while len(res.frames) < max_frames:
            f = fr.next(timeout=timeout)
            if f is None:
                res.eof = True
                break
            res.frames.append(f)
            if f.opcode == 8:
                try:
                    s.sendall(ws_frame(8, f.payload[:2]))
                except OSError:
                    pass
                # after the Close, the server closes TCP
                nxt = fr.next(timeout=5) if True else None
                res.eof = nxt is None
                break
    except (ValueError, socket.timeout) as e:
        res.error = e
    s.close()
    return res


def decode_exec(res):
    """Splits frames into channels (binary protocols)."""
    out = {1: b"", 2: b"", 3: b""}
    for f in res.frames:
        if f.opcode == 2 and f.payload:
            out.setdefault(f.payload[0], b"")
            out[f.payload[0]] += f.payload[1:]
    return out


def exec_path(ns, pod, argv, container=None, stdout=True, stderr=True, stdin=False, tty=False):
    from urllib.parse import quote
    q = ["command=%s" % quote(a, safe="") for a in argv]
    if container:
        q.append("container=%s" % quote(container, safe=""))
    if stdin:
        q.append("stdin=true")
    if stdout:
        q.append("stdout=true")
    if stderr:
        q.append("stderr=true")
    if tty:
        q.append("tty=true")
    return "/api/v1/namespaces/%s/pods/%s/exec?%s" % (ns, pod, "&".join(q))
