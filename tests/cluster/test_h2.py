"""HTTP/2 (fc_h2.py, `--h2`): ALPN as kube-apiserver offers it, streams of
one connection answered as their HTTP/1.1 twins, flow control, a reset
stream, the client certificate and the audit's conn/proto/stream; the real
kubectl's GETs over h2 while its exec stays on HTTP/1.1."""
import json
import os
import socket
import ssl
import unittest

import h2.config
import h2.connection
import h2.events

import fc


class Client:
    """A minimal h2 client over TLS: opens streams, reads until each ends,
    acknowledging data so the server's windows reopen (as every client
    does; without it a body over 65,535 bytes would stall)."""

    def __init__(self, cluster, cert_user=None, alpn=("h2", "http/1.1")):
        ctx = ssl.create_default_context(cafile=cluster.cafile)
        ctx.set_alpn_protocols(list(alpn))
        if cert_user:
            ctx.load_cert_chain(*cluster.cert_files(cert_user))
        raw = socket.create_connection(("127.0.0.1", cluster.port), timeout=30)
        self.sock = ctx.wrap_socket(raw, server_hostname="127.0.0.1")
        self.alpn = self.sock.selected_alpn_protocol()
        self.cluster = cluster
        self.h2 = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        self.h2.initiate_connection()
        self.flush()
        self.status, self.body, self.ended, self.reset = {}, {}, set(), set()

    def flush(self):
        out = self.h2.data_to_send()
        if out:
            self.sock.sendall(out)

    def get(self, path, token="admin"):
        sid = self.h2.get_next_available_stream_id()
        hdrs = [(":method", "GET"), (":path", path), (":scheme", "https"),
                (":authority", "127.0.0.1:%d" % self.cluster.port)]
        if token:
            hdrs.append(("authorization", "Bearer %s" % self.cluster.token(token)))
        self.h2.send_headers(sid, hdrs, end_stream=True)
        self.flush()
        self.body[sid] = b""
        return sid

    def run(self, sids):
        while not set(sids) <= self.ended | self.reset:
            data = self.sock.recv(65536)
            if not data:
                break
            for ev in self.h2.receive_data(data):
                self.on_event(ev)
            self.flush()

    def on_event(self, ev):
        if isinstance(ev, h2.events.ResponseReceived):
            self.status[ev.stream_id] = int(dict(ev.headers)[b":status"])
        elif isinstance(ev, h2.events.DataReceived):
            self.body[ev.stream_id] = self.body.get(ev.stream_id, b"") + ev.data
            self.h2.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
        elif isinstance(ev, h2.events.StreamEnded):
            self.ended.add(ev.stream_id)
        elif isinstance(ev, h2.events.StreamReset):
            self.reset.add(ev.stream_id)

    def close(self):
        self.sock.close()


def pods(doc):
    return sorted(p["metadata"]["name"] for p in doc["items"])


class ServerCase(unittest.TestCase):
    """One server per class: SCENARIO started with ARGS."""
    SCENARIO, ARGS = "basic.yaml", []

    @classmethod
    def setUpClass(cls):
        cls.c = fc.Cluster(cls.SCENARIO, mode="v5", latency=0, args=cls.ARGS)

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()


class TestH2(ServerCase):
    SCENARIO, ARGS = "basic.yaml", ["--h2"]

    def test_alpn_offers_h2(self):
        cl = Client(self.c)
        self.assertEqual(cl.alpn, "h2")
        cl.close()
        cl = Client(self.c, alpn=("http/1.1",))
        self.assertEqual(cl.alpn, "http/1.1")
        cl.close()

    def test_streams_share_one_connection(self):
        cl = Client(self.c)
        before = len(self.c.log())
        a = cl.get("/api/v1/namespaces/demo/pods")
        b = cl.get("/version")
        d = cl.get("/api/v1/namespaces/demo/pods/nope")
        cl.run([a, b, d])
        cl.close()
        self.assertEqual((cl.status[a], cl.status[b], cl.status[d]), (200, 200, 404))
        st, doc = self.c.get_json("/api/v1/namespaces/demo/pods")
        self.assertEqual(pods(json.loads(cl.body[a])), pods(doc))
        self.assertEqual(json.loads(cl.body[b])["gitVersion"], self.c.get_json("/version")[1]["gitVersion"])
        lines = [r for r in self.c.log()[before:] if r.get("proto") == "h2"]
        self.assertEqual(sorted(r["stream"] for r in lines), sorted([a, b, d]))
        self.assertEqual(len({r["conn"] for r in lines}), 1)
        self.assertTrue(all(r["user"] == "admin" for r in lines if r["status"] == 200))

    def test_http11_lines_say_so(self):
        self.c.request("/version")
        self.assertEqual(self.c.log()[-1]["proto"], "http/1.1")

    def test_reset_stream_leaves_the_others(self):
        cl = Client(self.c)
        a = cl.get("/api/v1/namespaces/demo/pods?pretty=true")
        cl.h2.reset_stream(a)
        cl.flush()
        b = cl.get("/version")
        cl.run([b])
        cl.close()
        self.assertEqual(cl.status[b], 200)

    def test_unauthenticated_stream(self):
        cl = Client(self.c)
        sid = cl.get("/api/v1/namespaces/demo/pods", token=None)
        cl.run([sid])
        cl.close()
        self.assertEqual(cl.status[sid], 401)

    def test_client_certificate_is_the_connections(self):
        cl = Client(self.c, cert_user="cert-user")
        sid = cl.get("/api/v1/namespaces/demo/pods", token=None)
        cl.run([sid])
        cl.close()
        last = [r for r in self.c.log() if r.get("stream") == sid and r.get("user")][-1]
        self.assertEqual(last["user"], "cert-user")
        self.assertIn(last["tls"], ("full", "resumed"))

    @unittest.skipUnless(os.path.exists(fc.KUBECTL), "kubectl not installed")
    def test_kubectl_gets_on_h2_exec_on_http11(self):
        before = len(self.c.log())
        rc, out, err = self.c.kubectl("get", "pods", "-n", "demo")
        self.assertEqual(rc, 0, err)
        name = out.splitlines()[1].split()[0]
        rc, out, err = self.c.kubectl("exec", "-n", "demo", name, "--", "true")
        lines = self.c.log()[before:]
        gets = [r for r in lines if r["path"] == "/api/v1/namespaces/demo/pods"]
        execs = [r for r in lines if r["path"].endswith("/exec")]
        self.assertTrue(gets and all(r["proto"] == "h2" for r in gets), gets)
        self.assertTrue(execs and all(r["proto"] == "http/1.1" for r in execs), execs)


class TestH2Window(ServerCase):
    SCENARIO, ARGS = "many.yaml", ["--h2"]

    def test_body_past_the_window(self):
        # a pretty pod list of many.yaml (400 pods) is larger than h2's initial
        # 65,535-byte window: the server must wait for WINDOW_UPDATE
        path = "/api/v1/namespaces/bulk-a/pods?pretty=true"
        cl = Client(self.c)
        sid = cl.get(path)
        cl.run([sid])
        cl.close()
        ref = self.c.request(path).body
        self.assertGreater(len(ref), 65535)
        self.assertEqual(pods(json.loads(cl.body[sid])), pods(json.loads(ref)))
        self.assertEqual(len(cl.body[sid]), len(ref))


class TestNoH2(ServerCase):
    """Without --h2 the server offers HTTP/1.1 only and its lines have no proto."""

    SCENARIO, ARGS = "basic.yaml", []

    def test_alpn_http11(self):
        cl = Client(self.c)
        self.assertEqual(cl.alpn, "http/1.1")
        cl.close()
        self.c.request("/version")
        self.assertNotIn("proto", self.c.log()[-1])


if __name__ == "__main__":
    unittest.main()
