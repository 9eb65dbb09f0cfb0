"""A TLS-terminating proxy for TLS matrix tests (issue 23): it presents a
certificate of the test's choosing (made here with the openssl CLI, in a
temporary directory) with the TLS versions and ciphers asked, and pipes the
decrypted bytes to the test cluster over a TLS connection of its own, so
that GETs and WebSocket execs reach the real fakecluster behind it.

Every accepted connection is recorded in order (Proxy.conns): the SNI the
client sent (None when none), whether the handshake completed, and the
request line of its first request (GET /api/v1/... or the exec's GET ...
/exec?...).  `first_good=N` serves the good certificate to the first N
connections and the case's certificate after them: a check's pod list (one
kept-alive connection) passes and its exec connection meets the case.  Which
connection met which certificate is asserted from the record, never from
timing.

Server behaviours after the handshake (`after=`), which Python's ssl module
cannot start by itself, are driven through OpenSSL's own functions on the
connection's SSL object (ctypes, the libssl that _ssl is linked to):
  "keyupdate"    a TLS 1.3 KeyUpdate (update_requested) before every chunk
                 of the answer: between the request and the response of a
                 GET, between the 101 and the frames of an exec, and
                 between frames;
  "renegotiate"  a TLS 1.2 HelloRequest before the answer;
  "alert"        the client's first record after the handshake is altered
                 on its way in, so that OpenSSL answers with a fatal
                 bad_record_mac alert, encrypted under the traffic keys
                 (TLS 1.3), and closes.
Each is counted in the connection's record ("keyupdates", "hellorequest",
"alert"), so a test asserts it happened.

Also: client certificates asked for and recorded ("client_cn"), one CN
answered 401 as an API server answers a certificate it refuses (Proxy
client_ca, refuse_cn), and an HTTPS proxy (ConnectProxy: TLS, then one
CONNECT tunnelled).  Python standard library only."""
import ctypes
import os
import select
import socket
import ssl
import subprocess
import threading
import warnings


_LIBSSL = None


def libssl():
    """The libssl that Python's _ssl uses (already loaded: the same one)."""
    global _LIBSSL
    if _LIBSSL is None:
        lib = ctypes.CDLL("libssl.so.3")
        for name, args in (("SSL_key_update", [ctypes.c_void_p, ctypes.c_int]),
                           ("SSL_renegotiate", [ctypes.c_void_p]),
                           ("SSL_do_handshake", [ctypes.c_void_p]),
                           ("SSL_version", [ctypes.c_void_p])):
            getattr(lib, name).argtypes = args
        _LIBSSL = lib
    return _LIBSSL


def ssl_ptr(tls):
    """The SSL * of an ssl.SSLSocket: CPython's PySSLSocket starts with
    PyObject_HEAD, then the socket's weakref, then SSL *ssl (Modules/_ssl.c).
    Checked: SSL_version must answer a TLS version of this connection."""
    obj = tls._sslobj
    ptr = ctypes.c_void_p.from_address(id(obj) + 3 * ctypes.sizeof(ctypes.c_void_p)).value
    want = {"TLSv1.2": 0x0303, "TLSv1.3": 0x0304}.get(tls.version())
    if not ptr or libssl().SSL_version(ptr) != want:
        raise RuntimeError("tls_proxy: cannot find the SSL object of this connection")
    return ptr


def chunks(a, b):
    """(socket, bytes) as either side sends, until one ends or 300 s pass
    in silence; what a TLS socket holds decrypted already comes first."""
    while True:
        ready = [s for s in (a, b) if isinstance(s, ssl.SSLSocket) and s.pending()]
        if not ready:
            ready, _, _ = select.select([a, b], [], [], 300)
            if not ready:
                return
        for s in ready:
            # Readable is not application data: a TLS peer's session
            # tickets wake select too, and a blocking read would then wait
            # for an answer to a request it holds up.
            s.settimeout(0)
            try:
                data = s.recv(65536)
            except (ssl.SSLWantReadError, ssl.SSLWantWriteError, BlockingIOError):
                continue
            finally:
                s.settimeout(None)
            if not data:
                return
            yield s, data


class Pki:
    """A CA and leaf certificates made with the openssl CLI under dir."""

    def __init__(self, d, name="tls-matrix-ca"):
        self.dir = d
        self.ca = self.path("ca.crt")
        self.ca_key = self.path("ca.key")
        self.openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                     "-nodes", "-keyout", self.ca_key, "-out", self.ca, "-days", "2",
                     "-subj", "/CN=" + name,
                     "-addext", "basicConstraints=critical,CA:TRUE",
                     "-addext", "keyUsage=critical,keyCertSign,cRLSign")

    def path(self, name):
        return os.path.join(self.dir, name)

    def openssl(self, *args):
        subprocess.run(("openssl",) + args, check=True, capture_output=True)

    def leaf(self, name, cn="localhost", san="DNS:localhost,IP:127.0.0.1", key="ec",
             key_usage=None, eku="serverAuth"):
        """(cert, key) paths of a leaf signed by the CA.  key: ec, ed25519,
        rsa:BITS.  san None: no SAN extension at all.  eku clientAuth: a
        client certificate."""
        crt, k, csr, ext = (self.path(name + s) for s in (".crt", ".key", ".csr", ".ext"))
        newkey = {"ec": ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"],
                  "ed25519": ["-newkey", "ed25519"]}.get(key, ["-newkey", key])
        self.openssl("req", "-new", *newkey, "-nodes", "-keyout", k, "-out", csr,
                     "-subj", "/CN=" + cn)
        lines = ["basicConstraints=critical,CA:FALSE", "extendedKeyUsage=" + eku]
        if san:
            lines.append("subjectAltName=" + san)
        if key_usage:
            lines.append("keyUsage=critical," + key_usage)
        with open(ext, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.openssl("x509", "-req", "-in", csr, "-CA", self.ca, "-CAkey", self.ca_key,
                     "-CAcreateserial", "-days", "2", "-out", crt, "-extfile", ext)
        return crt, k


class Proxy:
    """Listens on 127.0.0.1 (any free port) until stop()."""

    def __init__(self, upstream_port, cert, good=None, first_good=0,
                 max_version=None, ciphers=None, after=None, client_ca=None,
                 refuse_cn=None, upstream_cert=None):
        """client_ca: ask for a client certificate signed by it (recorded
        as "client_cn"); refuse_cn: a connection after the first_good
        whose client certificate has that CN is answered 401, as an API
        server answers a certificate it does not accept; upstream_cert:
        (cert, key) the proxy itself presents to the test cluster."""
        self.upstream_port = upstream_port
        self.first_good = first_good
        self.after = after
        self.client_ca, self.refuse_cn = client_ca, refuse_cn
        self.upstream_cert = upstream_cert
        self.conns = []
        self.lock = threading.Lock()
        self.ctx = self.context(cert, max_version, ciphers)
        self.good_ctx = self.context(good, None, None) if good else self.ctx
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self.accept_loop, daemon=True)
        self.thread.start()

    def context(self, cert, max_version, ciphers):
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.set_alpn_protocols(["http/1.1"])
        if max_version is not None:
            # An old server: TLS 1.0 and 1.1 need security level 0 in OpenSSL 3.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                ctx.minimum_version = ssl.TLSVersion.TLSv1
                ctx.maximum_version = max_version
            ctx.set_ciphers("DEFAULT:@SECLEVEL=0")
        elif ciphers:
            ctx.maximum_version = ssl.TLSVersion.TLSv1_2
            ctx.set_ciphers(ciphers)
        else:
            ctx.set_ciphers("DEFAULT:@SECLEVEL=0")   # the case decides, not our level
        ctx.load_cert_chain(*cert)   # after the level: a 1024-bit key loads
        if self.client_ca:
            ctx.verify_mode = ssl.CERT_OPTIONAL
            ctx.load_verify_locations(self.client_ca)
        # Python's default refuses a renegotiation; "renegotiate" starts one.
        ctx.options &= ~ssl.OP_NO_RENEGOTIATION
        if self.after == "alert":
            # No session tickets: after the altered record the server's
            # only record is its alert (relay_altered records it).
            ctx.num_tickets = 0

        # Called on every ClientHello, with None when it names no server
        # (checked with openssl s_client -noservername): whether a hello
        # came at all is what tells a connection closed before any TLS
        # from one whose hello named no server.
        def on_sni(sock, name, _ctx):
            sock.matrix_hello = True
            sock.matrix_sni = name
        ctx.sni_callback = on_sni
        return ctx

    def stop(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()

    def records(self):
        with self.lock:
            return [dict(c) for c in self.conns]

    def accept_loop(self):
        while True:
            try:
                raw, _ = self.sock.accept()
            except OSError:
                return
            with self.lock:
                rec = {"sni": None, "hello": False, "handshake": False, "request": None,
                       "good": len(self.conns) < self.first_good,
                       "keyupdates": 0, "hellorequest": False, "alert": False,
                       "client_cn": None, "answered_401": 0}
                self.conns.append(rec)
            threading.Thread(target=self.serve, args=(raw, rec), daemon=True).start()

    def serve(self, raw, rec):
        ctx = self.good_ctx if rec["good"] else self.ctx
        if self.after == "alert" and not rec["good"]:
            self.serve_alert(raw, ctx, rec)
            return
        tls = self.handshake(ctx, raw, rec)
        if tls is None:
            return
        if self.refuse_cn and rec["client_cn"] == self.refuse_cn and not rec["good"]:
            self.answer_401(tls, rec)
            return
        try:
            up = socket.create_connection(("127.0.0.1", self.upstream_port))
            uctx = ssl.create_default_context()
            uctx.check_hostname = False
            uctx.verify_mode = ssl.CERT_NONE
            if self.upstream_cert:
                uctx.load_cert_chain(*self.upstream_cert)
            up = uctx.wrap_socket(up, server_hostname="localhost")
            self.pipe(tls, up, rec)
        except (ssl.SSLError, OSError):
            pass
        finally:
            for s in (tls,):
                try:
                    s.close()
                except OSError:
                    pass

    def handshake(self, ctx, sock, rec):
        """The server's handshake on sock, recorded: the TLS socket, or
        None (sock closed)."""
        try:
            tls = ctx.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        except (ssl.SSLError, OSError):
            sock.close()
            return None
        try:
            tls.do_handshake()
        except (ssl.SSLError, OSError):
            # The hello's name is kept even when the handshake fails.
            with self.lock:
                rec["hello"] = getattr(tls, "matrix_hello", False)
                rec["sni"] = getattr(tls, "matrix_sni", None)
            tls.close()
            return None
        peer = tls.getpeercert() or {}
        with self.lock:
            rec["handshake"] = True
            rec["hello"] = True
            rec["sni"] = getattr(tls, "matrix_sni", None)
            rec["client_cn"] = next((v for rdn in peer.get("subject", ()) for k, v in rdn
                                     if k == "commonName"), None)
        return tls

    def answer_401(self, tls, rec):
        """Every request on this connection answered as kube-apiserver
        answers a client certificate it does not accept (the connection
        kept, as the API server keeps it)."""
        body = (b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
                b'"message":"Unauthorized","reason":"Unauthorized","code":401}')
        head = b""
        try:
            while True:
                data = tls.recv(65536)
                if not data:
                    return
                head += data
                while b"\r\n\r\n" in head:
                    req, head = head.split(b"\r\n\r\n", 1)
                    with self.lock:
                        rec["request"] = rec["request"] or req.split(b"\r\n", 1)[0].decode("latin-1")
                        rec["answered_401"] += 1
                    tls.sendall(b"HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\n"
                                b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        except (ssl.SSLError, OSError):
            pass
        finally:
            tls.close()

    def pipe(self, a, b, rec):
        try:
            for s, data in chunks(a, b):
                if s is a and rec["request"] is None:
                    with self.lock:
                        rec["request"] = data.split(b"\r\n", 1)[0].decode("latin-1")
                if s is b and self.after and not rec["good"]:
                    self.before_answer(a, rec)
                (b if s is a else a).sendall(data)
        finally:
            b.close()

    def before_answer(self, tls, rec):
        """The case's server behaviour before a chunk of the answer goes
        to the client (module docstring)."""
        lib = libssl()
        if self.after == "keyupdate":
            if lib.SSL_key_update(ssl_ptr(tls), 1) == 1:   # SSL_KEY_UPDATE_REQUESTED
                with self.lock:
                    rec["keyupdates"] += 1
        elif self.after == "renegotiate" and not rec["hellorequest"]:
            ptr = ssl_ptr(tls)
            if lib.SSL_renegotiate(ptr) == 1:
                # Recorded before it is sent: the client cannot have
                # answered (and its run ended) before the record says so.
                with self.lock:
                    rec["hellorequest"] = True
                # Writes the HelloRequest, then waits for the client's
                # answer (a refusal ends it).
                lib.SSL_do_handshake(ptr)

    def serve_alert(self, raw, ctx, rec):
        """The server's TLS runs on one end of a socket pair; the records
        between it and the client pass through here, where the client's
        first application record is altered (its last byte, in the AEAD
        tag).  TLS 1.3 without a client certificate: the client's records
        are its ClientHello(s), maybe a ChangeCipherSpec, then Finished as
        the first application_data (23) record: the second one is the
        request."""
        mine, theirs = socket.socketpair()
        threading.Thread(target=self.relay_altered, args=(raw, theirs, rec),
                         daemon=True).start()
        tls = self.handshake(ctx, mine, rec)
        if tls is None:
            return
        try:
            tls.recv(65536)
        except (ssl.SSLError, OSError):
            pass   # the altered record: OpenSSL wrote its alert and failed
        tls.close()

    def relay_altered(self, raw, theirs, rec):
        """What the server sends after the altered record is its alert:
        recorded before it goes to the client."""
        app_records = [0]

        def alter(record):
            if record[0] == 23:
                app_records[0] += 1
                if app_records[0] == 2:
                    return record[:-1] + bytes([record[-1] ^ 0x01])
            return record
        buf = b""
        try:
            for s, data in chunks(raw, theirs):
                if s is theirs:
                    if app_records[0] >= 2:
                        with self.lock:
                            rec["alert"] = True
                    raw.sendall(data)
                    continue
                buf += data
                while len(buf) >= 5 and len(buf) >= 5 + int.from_bytes(buf[3:5], "big"):
                    n = 5 + int.from_bytes(buf[3:5], "big")
                    theirs.sendall(alter(buf[:n]))
                    buf = buf[n:]
        except OSError:
            return
        finally:
            raw.close()
            theirs.close()


class ConnectProxy(Proxy):
    """An HTTPS proxy (kubeconfig proxy-url https://...): TLS with cert,
    then one CONNECT host:port, tunnelled to 127.0.0.1:port.  Each
    connection's record also holds "connect", the CONNECT's target."""

    def __init__(self, cert, good=None, first_good=0, max_version=None):
        super().__init__(None, cert, good=good, first_good=first_good, max_version=max_version)

    def serve(self, raw, rec):
        tls = self.handshake(self.good_ctx if rec["good"] else self.ctx, raw, rec)
        if tls is None:
            return
        try:
            head = b""
            while b"\r\n\r\n" not in head and len(head) < 8192:
                data = tls.recv(8192)
                if not data:
                    return
                head += data
            line = head.split(b"\r\n", 1)[0].decode("latin-1").split()
            with self.lock:
                rec["request"] = " ".join(line)
                rec["connect"] = line[1] if len(line) == 3 and line[0] == "CONNECT" else None
            if not rec["connect"]:
                tls.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
                return
            up = socket.create_connection(("127.0.0.1", int(rec["connect"].rsplit(":", 1)[1])))
            tls.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            with up:
                for s, data in chunks(tls, up):
                    (up if s is tls else tls).sendall(data)
        except (ssl.SSLError, OSError, ValueError):
            pass
        finally:
            tls.close()
