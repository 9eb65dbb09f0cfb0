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
timing.  Python standard library only."""
import os
import select
import socket
import ssl
import subprocess
import threading
import warnings


class Pki:
    """A CA and leaf certificates made with the openssl CLI under dir."""

    def __init__(self, d):
        self.dir = d
        self.ca = self.path("ca.crt")
        self.ca_key = self.path("ca.key")
        self.openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                     "-nodes", "-keyout", self.ca_key, "-out", self.ca, "-days", "2",
                     "-subj", "/CN=tls-matrix-ca",
                     "-addext", "basicConstraints=critical,CA:TRUE",
                     "-addext", "keyUsage=critical,keyCertSign,cRLSign")

    def path(self, name):
        return os.path.join(self.dir, name)

    def openssl(self, *args):
        subprocess.run(("openssl",) + args, check=True, capture_output=True)

    def leaf(self, name, cn="localhost", san="DNS:localhost,IP:127.0.0.1", key="ec",
             key_usage=None):
        """(cert, key) paths of a leaf signed by the CA.  key: ec, ed25519,
        rsa:BITS.  san None: no SAN extension at all."""
        crt, k, csr, ext = (self.path(name + s) for s in (".crt", ".key", ".csr", ".ext"))
        newkey = {"ec": ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"],
                  "ed25519": ["-newkey", "ed25519"]}.get(key, ["-newkey", key])
        self.openssl("req", "-new", *newkey, "-nodes", "-keyout", k, "-out", csr,
                     "-subj", "/CN=" + cn)
        lines = ["basicConstraints=critical,CA:FALSE", "extendedKeyUsage=serverAuth"]
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
                 max_version=None, ciphers=None):
        self.upstream_port = upstream_port
        self.first_good = first_good
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

        def on_sni(sock, name, _ctx):
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
                rec = {"sni": None, "handshake": False, "request": None,
                       "good": len(self.conns) < self.first_good}
                self.conns.append(rec)
            threading.Thread(target=self.serve, args=(raw, rec), daemon=True).start()

    def serve(self, raw, rec):
        ctx = self.good_ctx if rec["good"] else self.ctx
        try:
            tls = ctx.wrap_socket(raw, server_side=True)
        except (ssl.SSLError, OSError):
            raw.close()
            return
        with self.lock:
            rec["handshake"] = True
            rec["sni"] = getattr(tls, "matrix_sni", None)
        try:
            up = socket.create_connection(("127.0.0.1", self.upstream_port))
            uctx = ssl.create_default_context()
            uctx.check_hostname = False
            uctx.verify_mode = ssl.CERT_NONE
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

    def pipe(self, a, b, rec):
        try:
            while True:
                ready = [s for s in (a, b) if s.pending()]
                if not ready:
                    ready, _, _ = select.select([a, b], [], [], 300)
                    if not ready:
                        return
                for s in ready:
                    data = s.recv(65536)
                    if not data:
                        return
                    if s is a and rec["request"] is None:
                        with self.lock:
                            rec["request"] = data.split(b"\r\n", 1)[0].decode("latin-1")
                    (b if s is a else a).sendall(data)
        finally:
            b.close()
