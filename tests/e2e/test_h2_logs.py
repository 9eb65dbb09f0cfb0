#!/usr/bin/python3
"""The pod log reads on the client's one multiplexed connection (issue 46).

kubectl (client-go, Go's net/http2) sends its GETs as HTTP/2 streams on
one connection per host.  The plugin's GETs go through one libcurl multi
handle owned by one thread of the HTTP client (src/kube/http/mux.c)
instead of each worker's own connection.  What must hold, whatever the
scheduling (counts and words, never a time):

  - One hung log read ends alone by its deadline while the other pods'
    logs are read (a TLS proxy in front of the test cluster that never
    forwards one pod's log request), worded as the request's deadline:
    the old code called a deadline met on a kept-alive connection a
    connect timeout ("dial tcp ...: i/o timeout"), as curl counts no
    connect time for a reused connection.
  - On a server that speaks HTTP/2 (the test cluster's --h2, ALPN h2 and
    http/1.1 as kube-apiserver), every GET of a run, the pod list and
    all 24 log reads of --parallel 24, is an h2 stream on ONE connection
    (the audit's proto and conn).  The old code performed each GET in its
    worker's thread: curl negotiated h2 too, but each thread's GET found
    the shared connection busy and opened its own.
  - (TLS failures through the mux keep their words: test_tls_matrix's
    "get" column, every GET now riding the mux.)

Environment: DI_PLUGIN (the binary; default ./kubectl-dynamo_interconnect).
"""
import base64
import json
import os
import ssl
import sys
import unittest

import yaml

import test_observe_metrics
from base import ROOT, E2ECase, check_json
from plugin import run
from tls_proxy import Pki, Proxy, chunks  # (tests/cluster, on the path base sets)

NS = "h2logs"
PODS = ["h2l-decode-%d" % i for i in range(4)]
LOG = os.path.join(ROOT, "tests", "cluster", "scenarios", "logs", "nixl-ucx-rdma.txt")
READ_FAILED = "cannot read the log of container"


def scenario_doc(profile):
    pods = [{"name": n, "node": "gpu-%d" % i, "profile": profile, "logs": LOG,
             "labels": {"nvidia.com/dynamo-component-type": "decode", "idx": str(i)}}
            for i, n in enumerate(PODS)]
    return {"namespace": NS, "pods": pods}


class RelayProxy(Proxy):
    """tls_proxy's Proxy, two changes: every request whose request line has
    self.hang in it is held unanswered (the connection stays open, nothing
    more goes either way; the held request lines are in self.held), and
    after the test cluster closes its side the proxy reads what the client
    still sends until the client closes, instead of closing a connection
    with unread data (a TCP reset, which may reach the client before the
    exec's last frames: "Connection reset by peer")."""

    hang = None

    def pipe(self, a, b, rec):
        held = False
        try:
            for s, data in chunks(a, b):
                line = data.split(b"\r\n", 1)[0]
                if s is a and rec["request"] is None:
                    with self.lock:
                        rec["request"] = line.decode("latin-1")
                if s is a and not held and self.hang and self.hang in line:
                    held = True
                    with self.lock:
                        self.held.append(line.decode("latin-1"))
                if held:
                    continue
                (b if s is a else a).sendall(data)
        except (ssl.SSLError, OSError):
            pass   # the test cluster's end closed without a TLS close_notify
        finally:
            b.close()
        drain(a)


def drain(sock):
    """Reads sock until its peer closes (or a minute passes: a bound, not
    a time anything waits for)."""
    try:
        sock.settimeout(60)
        while sock.recv(65536):
            pass
    except (ssl.SSLError, OSError):
        pass


def log_details(doc):
    """{pod: the detail of its log-read result when it could not read}."""
    out = {}
    for p in doc["pods"]:
        for c in p.get("checks", []):
            if READ_FAILED in (c.get("detail") or ""):
                out[p["name"]] = c["detail"]
    return out


class TestLogsThroughMux(E2ECase):
    TMP = "e2e-h2-logs-"
    # The real probe in a sandbox: tls_proxy's relay may hold back a
    # canned answer (--latency-ms) sent at once with the server's close.
    LATENCY = 0
    SCENARIO = scenario_doc(os.path.join(ROOT, "tests", "cluster", "profiles", "h100-ib-ok"))

    @classmethod
    def fixture(cls):
        pki = Pki(cls.tmp)
        cls.good = pki.leaf("good")
        with open(pki.ca, "rb") as f:
            cls.ca_data = base64.b64encode(f.read()).decode()
        cls.n = 0

    def kubeconfig(self, port):
        with open(self.c.kubeconfig) as f:
            kc = yaml.safe_load(f)
        for cl in kc["clusters"]:
            cl["cluster"]["server"] = "https://localhost:%d" % port
            cl["cluster"]["certificate-authority-data"] = self.ca_data
        TestLogsThroughMux.n += 1
        path = os.path.join(self.tmp, "kc-%d" % self.n)
        with open(path, "w") as f:
            yaml.safe_dump(kc, f)
        return path

    def proxy(self, **kw):
        p = RelayProxy(self.c.port, self.good, **kw)
        self.addCleanup(p.stop)
        return p

    def check(self, kc, *argv):
        rc, out, err = run(["check", "--kubeconfig", kc, "-n", NS, "-o", "json",
                            "--logs=true"] + list(argv), timeout=180)
        self.assertIn(rc, (0, 2, 3), err)
        return json.loads(out)

    def test_hung_log_read_ends_alone(self):
        p = self.proxy()
        p.hang, p.held = ("/pods/%s/log" % PODS[1]).encode(), []
        doc = self.check(self.kubeconfig(p.port), "-l", "", "--parallel", str(len(PODS)),
                         "--request-timeout", "8s")
        self.assertEqual(len(p.held), 1, p.held)
        details = log_details(doc)
        self.assertEqual(sorted(details), [PODS[1]], details)
        self.assertIn("Unable to connect to the server: ", details[PODS[1]])
        self.assertIn("timed out", details[PODS[1]])


class TestH2OneConnection(E2ECase):
    TMP = "e2e-h2-one-"
    ARGS = ["--h2"]
    LATENCY = 50   # bench's canned report after 50 ms: every exec ends together
    PODS = 24

    @classmethod
    def scenario(cls):
        sys.path.insert(0, os.path.join(ROOT, "bench"))
        import bench
        profile = os.path.join(cls.tmp, "profile")
        bench.write_profile(profile)
        path = os.path.join(cls.tmp, "s.yaml")
        bench.write_scenario(path, cls.PODS, profile)
        return path

    def test_every_get_is_a_stream_of_one_connection(self):
        since = len(self.c.log())
        rc, out, err = check_json(self.c, "-n", "bench", "--parallel", str(self.PODS),
                                  "--logs=true", timeout=300)
        self.assertIn(rc, (0, 2, 3), err)
        log = self.c.log()[since:]
        gets = [r for r in log if r["method"] == "GET" and not r["path"].endswith("/exec")]
        logs = [r for r in gets if r["path"].endswith("/log")]
        self.assertEqual(len(logs), self.PODS, [r["path"] for r in logs])
        self.assertEqual({r.get("proto") for r in gets}, {"h2"}, gets)
        self.assertEqual(len({r["conn"] for r in gets}), 1,
                         sorted((r["conn"], r["path"]) for r in gets))


class HungOverH2(test_observe_metrics.Hung):
    """test_observe_metrics.Hung (workers whose metrics ports never answer,
    read through the pod proxy) on the --h2 test cluster: the held reads
    are streams of the one connection, each ends by its own deadline, and
    as many are held at once as --parallel lets out, as over HTTP/1.1."""
    ARGS = ["--h2"]

    def test_held_reads_are_streams_of_one_connection(self):
        _, held = self.observe(4)
        self.assertEqual(len(held), len(self.HUNG))
        self.assertEqual({q.get("proto") for q in held}, {"h2"}, held)
        self.assertEqual(len({q["conn"] for q in held}), 1, held)


if __name__ == "__main__":
    unittest.main()
