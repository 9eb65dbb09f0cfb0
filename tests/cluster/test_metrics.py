"""The worker metrics behind the pod proxy (fc_metrics.py, issue 45): GET
.../pods/NAME:PORT/proxy/metrics answers the pod's text with each
per_read series advanced by its step per earlier read; RBAC (get on
pods/proxy) as the API server words it; other verbs 405; a port nothing
serves 503; a pod that does not exist 404; a bad `metrics:` entry is
refused at start."""
import json
import os
import tempfile
import time
import unittest

import fc_metrics
from scenario_case import ScenarioCase, assert_refused

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
      "29090": {hang: true}
"""
PATH = "/api/v1/namespaces/demo/pods/w:19090/proxy/metrics"
HUNG = "/api/v1/namespaces/demo/pods/w:29090/proxy/metrics"


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
        assert_refused(self, lambda bad, die: fc_metrics.read_metrics(bad, d, die), (
            {"x": {"text": "ok.prom"}}, {"1": {"text": "missing.prom"}},
            {"1": {"text": "ok.prom", "per_read": {"a": -1}}}, {"1": {"file": "ok.prom"}},
            {"1": "ok.prom"}, {"1": {"hang": False}}, {"1": {"hang": True, "text": "ok.prom"}}))


class TestProxy(ScenarioCase):
    SCENARIO = SCENARIO
    FILES = {"w.prom": PROM}

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

    def test_hang_holds_until_the_client_goes(self):
        """No answer; the log line comes when the client closes, status 0,
        and a GET sent after that close is not counted with it."""
        for _ in range(2):
            n0 = len(self.c.log())
            s = self.c.connect()
            s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n\r\n"
                       % (HUNG, self.c.token("admin"))).encode())
            s.settimeout(0.5)
            with self.assertRaises(OSError):      # socket.timeout: nothing came
                s.recv(1)
            s.close()
            held = []
            for _ in range(300):                  # waits for the server's line, no time asserted
                held = [q for q in self.c.log()[n0:] if q["path"] == HUNG]
                if held:
                    break
                time.sleep(0.1)
            self.assertEqual([(q["status"], q["hung_at_once"]) for q in held], [(0, 1)])


if __name__ == "__main__":
    unittest.main()
