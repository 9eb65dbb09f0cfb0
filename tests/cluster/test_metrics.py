"""The worker metrics behind the pod proxy (fc_metrics.py, issue 45): GET
.../pods/NAME:PORT/proxy/metrics answers the pod's text with each
per_read series advanced by its step per earlier read; RBAC (get on
pods/proxy) as the API server words it; other verbs 405; a port nothing
serves 503; a pod that does not exist 404; a bad `metrics:` entry is
refused at start."""
import json
import os
import tempfile
import unittest

import fc
import fc_metrics

PROM = """# TYPE agent_rx_bytes_total counter
agent_rx_bytes_total{agent_name="a",hostname="h"} 100
vllm:prompt_tokens_by_source_total{engine="0",source="local_compute"} 1.5e+03
vllm:prompt_tokens_by_source_total{engine="0",source="external_kv_transfer"} 0.0
"""
SCENARIO = """namespace: demo
users:
  - name: noproxy
    token: noproxy-token
    allow: [list-pods, get-pods]
pods:
  - name: w
    node: n1
    metrics:
      "19090":
        text: w.prom
        per_read:
          agent_rx_bytes_total: 10
          'vllm:prompt_tokens_by_source_total{engine="0",source="local_compute"}': 5
"""
PATH = "/api/v1/namespaces/demo/pods/w:19090/proxy/metrics"


class TestRender(unittest.TestCase):
    def test_steps(self):
        lines = PROM.splitlines()
        per = {"agent_rx_bytes_total": 10}
        self.assertIn('agent_rx_bytes_total{agent_name="a",hostname="h"} 120.0',
                      fc_metrics.render(lines, per, 2).decode())
        self.assertIn("# TYPE agent_rx_bytes_total counter", fc_metrics.render(lines, per, 2).decode())

    def test_bad_entries_die(self):
        d = tempfile.mkdtemp(prefix="fc-metrics-")
        with open(os.path.join(d, "ok.prom"), "w") as f:
            f.write(PROM)
        for bad in ({"x": {"text": "ok.prom"}}, {"1": {"text": "missing.prom"}},
                    {"1": {"text": "ok.prom", "per_read": {"a": -1}}}, {"1": {"file": "ok.prom"}},
                    {"1": "ok.prom"}):
            msgs = []
            fc_metrics.read_metrics(bad, d, msgs.append)
            self.assertTrue(msgs, bad)


class TestProxy(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="fc-metrics-")
        with open(os.path.join(cls.dir, "w.prom"), "w") as f:
            f.write(PROM)
        path = os.path.join(cls.dir, "s.yaml")
        with open(path, "w") as f:
            f.write(SCENARIO)
        cls.c = fc.Cluster(path)

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()

    def test_reads_advance(self):
        first = self.c.request(PATH)
        second = self.c.request(PATH)
        self.assertEqual(first.status, 200)
        a = [ln for ln in first.body.decode().splitlines() if ln.startswith("agent_rx")][0]
        b = [ln for ln in second.body.decode().splitlines() if ln.startswith("agent_rx")][0]
        self.assertEqual(float(b.rsplit(" ", 1)[1]) - float(a.rsplit(" ", 1)[1]), 10)
        self.assertIn('source="external_kv_transfer"} 0.0', second.body.decode())

    def test_rbac_and_verbs(self):
        r = self.c.request(PATH, token="noproxy")
        self.assertEqual(r.status, 403)
        self.assertIn('cannot get resource "pods/proxy"', json.loads(r.body)["message"])
        r = self.c.request(PATH, method="POST", body=b"x")
        self.assertEqual(r.status, 405)

    def test_unserved(self):
        self.assertEqual(self.c.request("/api/v1/namespaces/demo/pods/w:9090/proxy/metrics").status, 503)
        self.assertEqual(self.c.request("/api/v1/namespaces/demo/pods/nope:9090/proxy/metrics").status, 404)


if __name__ == "__main__":
    unittest.main()
