#!/usr/bin/python3
"""check --observe reads the workers' KV metrics (issue 45 point 1,
docs/checks.md O7-O10): through the API server's pod proxy (GET
.../pods/NAME:PORT/proxy/metrics, the ports from the pod object's env),
once before the probes and once after, and the OBSERVED rows O7-O10 judge
the differences beside the rails the probe sampled.  The test cluster's
`metrics:` key (tests/cluster/fc_metrics.py) serves real NIXL and vLLM
metric text whose series advance by a fixed step per read, so every
difference below is exact, whatever the timing.  Each scenario's verdict
was written here before the tool ran on it:

- obs-kv-healthy: the decode pulls KV and the rails move; old failure
  counts do not rise: O7-O10 ok on the decode; the prefill's own counters
  moved no KV (no KV traffic, O9 not applicable); READY.  Exactly two GETs per port per pod, all GET,
  all on the fixed path; none without --observe, and no KV row then.
- obs-kv-no-rdma (aws-samples/aws-do-eks PR #66): the decode pulls KV, no
  rail byte: observed-kv-on-rdma fails on it, NOT READY.
- obs-kv-failed (vllm-project/vllm#52234): the decode's failed transfers
  +3: fail (the prefill's stay: ok).
- obs-kv-nixl-errors: the decode's agent_errors_total +7: fail.
- obs-kv-recompute: the decode computes, pulls nothing: O9 warn, READY.
- obs-kv-idle: nothing moves: "no KV traffic in the window", verdict as
  without --observe.
- obs-kv-unread: an HTML page on the NIXL port and a port nothing listens
  on: every KV row skipped with the reason, never ok; READY.
- -o prometheus: dynamo_interconnect_kv_metric_increase per kept series
  with --observe, none without.
- obs-kv-forbidden: no get on pods/proxy (403): skipped "no get on
  pods/proxy", never a failure; READY.
- obs-kv-hung: four workers whose metrics ports never answer: every KV
  row skipped "could not be read"; the reads go out together, as many at
  once as --parallel allows (the server's count of GETs it held at once).
"""
import os
import unittest

from base import EXIT, ROOT, E2ECase, check_json, parse_json
from plugin import run

SCENARIOS = os.path.join(ROOT, "tests", "cluster", "scenarios")
KV_ROWS = ["observed-kv-failed-transfers", "observed-kv-on-rdma", "observed-kv-recompute",
           "observed-nixl-errors"]
PODS = ("qwen-prefill-0", "qwen-decode-0")
PRE, DEC = PODS
RDMA, FAILED, RECOMP, ERRS = ("observed-kv-on-rdma", "observed-kv-failed-transfers",
                              "observed-kv-recompute", "observed-nixl-errors")


def kv_rows(doc, pod):
    return {c["name"]: c for p in doc["pods"] if p["name"] == pod
            for c in p["checks"] if c["name"] in KV_ROWS}


class KV:
    """Mixin: `check --observe 1s` on the scenario, and without it.  ROWS:
    (pod, row, status or None: not asserted, texts its detail holds...)."""
    VERDICT = None
    USER = ()
    ROWS = ()

    @classmethod
    def fixture(cls):
        n0 = len(cls.c.log())
        rc, out, cls.err = check_json(cls.c, "-n", "demo", "--observe", "1s", *cls.USER, timeout=300)
        cls.rc, cls.doc = rc, parse_json(out)
        cls.proxied = [q for q in cls.c.log()[n0:] if "/proxy/" in q["path"]]
        n0 = len(cls.c.log())
        rc0, out0, _ = check_json(cls.c, "-n", "demo", *cls.USER, timeout=300)
        cls.rc0, cls.doc0 = rc0, parse_json(out0)
        cls.proxied0 = [q for q in cls.c.log()[n0:] if "/proxy/" in q["path"]]

    def row(self, pod, name):
        return kv_rows(self.doc, pod)[name]

    def test_verdict(self):
        self.assertIsNotNone(self.doc, self.err)
        self.assertEqual(self.doc["verdict"]["status"], self.VERDICT, self.doc["verdict"]["findings"])
        self.assertEqual(self.rc, EXIT[self.VERDICT], self.err)

    def test_rows(self):
        for pod, name, status, *texts in self.ROWS:
            with self.subTest(pod=pod, row=name):
                r = self.row(pod, name)
                if status is not None:
                    self.assertEqual(r["status"], status, r)
                for t in texts:
                    self.assertIn(t, r["detail"])

    def test_four_rows_per_pod_and_none_without_observe(self):
        for pod in PODS:
            self.assertEqual(sorted(kv_rows(self.doc, pod)), KV_ROWS, pod)
            self.assertEqual(kv_rows(self.doc0, pod), {}, pod)
        self.assertEqual(self.proxied0, [])


class Unchanged:
    def test_verdict_as_without_observe(self):
        self.assertEqual(self.doc["verdict"]["status"], self.doc0["verdict"]["status"])
        self.assertEqual(self.rc, self.rc0)


class Healthy(KV, Unchanged, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "obs-kv-healthy.yaml")
    VERDICT = "READY"

    ROWS = [(DEC, RDMA, "ok", "NIXL agents moved 4.3 GB, 65536 prompt tokens pulled in ",
             "its node's 8 RDMA ports moved"),
            # the prefill's own counters moved no KV (the decode pulls)
            (PRE, RDMA, None, "no KV traffic in the window"),
            (DEC, RECOMP, "ok", "pulled 65536 prompt tokens and computed 32"),
            (PRE, RECOMP, "skipped")]
    # the old counts (5 failed transfers, 2 NIXL errors) do not rise
    ROWS += [(pod, name, "ok") for pod in PODS for name in (FAILED, ERRS)]

    def test_two_gets_per_port_on_the_fixed_path(self):
        want = {"/api/v1/namespaces/demo/pods/%s:%s/proxy/metrics" % (p, port): 2
                for p in PODS for port in ("19090", "9090")}
        got = {}
        for q in self.proxied:
            self.assertEqual(q["method"], "GET", q)
            self.assertEqual(q["status"], 200, q)
            got[q["path"]] = got.get(q["path"], 0) + 1
        self.assertEqual(got, want)


class Prometheus(E2ECase):
    """-o prometheus: the KV series' increases with --observe only."""
    SCENARIO = os.path.join(SCENARIOS, "obs-kv-failed.yaml")

    def prom(self, want_rc, *argv):
        rc, out, err = run(["check", "--kubeconfig", self.c.kubeconfig, "-n", "demo",
                            "-o", "prometheus"] + list(argv), timeout=300)
        self.assertEqual(rc, want_rc, err)
        return [ln for ln in out.splitlines() if "kv_metric_increase" in ln]

    def test_kv_series(self):
        lines = self.prom(2, "--observe", "1s")
        lbl = 'namespace="demo",pod="qwen-decode-0",role="decode",node="gpu-h100-02"'
        self.assertIn('dynamo_interconnect_kv_metric_increase{%s,series="vllm_nixl_failed_transfers"} 3'
                      % lbl, lines)
        self.assertIn('dynamo_interconnect_kv_metric_increase{%s,series="nixl_rx_bytes"} 4294967296'
                      % lbl, lines)
        self.assertIn('dynamo_interconnect_kv_metric_increase{%s,series="prompt_tokens_pulled"} 65536'
                      % lbl, lines)
        self.assertEqual(self.prom(0), [])


class NoRdma(KV, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "obs-kv-no-rdma.yaml")
    VERDICT = "NOT READY"
    ROWS = [(DEC, RDMA, "fail", "none of the node's 8 RDMA ports moved a byte", "aws-do-eks PR #66"),
            (PRE, RDMA, "skipped")]


class Failed(KV, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "obs-kv-failed.yaml")
    VERDICT = "NOT READY"
    ROWS = [(DEC, FAILED, "fail", "vllm:nixl_num_failed_transfers_total rose by 3"),
            (DEC, RDMA, "ok"), (PRE, FAILED, "ok")]


class NixlErrors(KV, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "obs-kv-nixl-errors.yaml")
    VERDICT = "NOT READY"
    ROWS = [(DEC, ERRS, "fail", "agent_errors_total rose by 7"), (PRE, ERRS, "ok")]


class Recompute(KV, Unchanged, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "obs-kv-recompute.yaml")
    VERDICT = "READY"
    ROWS = [(DEC, RECOMP, "warn", "computed 8192 prompt tokens itself and pulled none"),
            (PRE, RECOMP, "skipped"),
            # nothing pulled, no NIXL byte: no KV traffic for O7
            (DEC, RDMA, None, "no KV traffic in the window")]


class Idle(KV, Unchanged, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "obs-kv-idle.yaml")
    VERDICT = "READY"
    ROWS = [(pod, RDMA, "skipped", "no KV traffic in the window") for pod in PODS]


class Unread(KV, Unchanged, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "obs-kv-unread.yaml")
    VERDICT = "READY"

    ROWS = [(PRE, name, "skipped", "not the Prometheus text format at line 1") for name in KV_ROWS]
    ROWS += [(DEC, name, "skipped", "HTTP 503 for the metrics on port 9090") for name in KV_ROWS]

    def test_pod_text_not_shown(self):
        for name in KV_ROWS:
            self.assertNotIn("html", self.row(PRE, name)["detail"].lower())
            self.assertNotIn("dial tcp", self.row(DEC, name)["detail"])


class Forbidden(KV, Unchanged, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "obs-kv-forbidden.yaml")
    VERDICT = "READY"
    USER = ("--user", "viewer")

    ROWS = [(pod, name, "skipped", "no get on pods/proxy") for pod in PODS for name in KV_ROWS]

    def test_one_refused_get_per_pod(self):
        # the second read is not tried
        self.assertEqual(sorted(q["status"] for q in self.proxied), [403, 403])


class Hung(E2ECase):
    """obs-kv-hung: four workers whose metrics ports never answer.  Each
    read ends at the pod-proxy timeout with the reason said; the reads go
    out together, at most --parallel at once: the server logs how many
    GETs it held at once (a count, not a time)."""
    SCENARIO = os.path.join(SCENARIOS, "obs-kv-hung.yaml")
    HUNG = PODS + ("qwen-prefill-1", "qwen-decode-1")

    def observe(self, parallel):
        """(report, the proxied GETs) of `check --observe 1s --parallel N`."""
        n0 = len(self.c.log())
        _, out, err = check_json(self.c, "-n", "demo", "--observe", "1s", "--parallel", str(parallel),
                                 timeout=300)
        doc = parse_json(out)
        self.assertIsNotNone(doc, err)
        return doc, [q for q in self.c.log()[n0:] if "/proxy/" in q["path"]]

    def test_read_together_and_skipped(self):
        doc, held = self.observe(4)
        self.assertEqual(doc["verdict"]["status"], "READY", doc["verdict"]["findings"])
        # one held GET per pod: the first port's; after a failed first read
        # neither the second port nor the second read is tried
        self.assertEqual(sorted(q["path"] for q in held),
                         sorted("/api/v1/namespaces/demo/pods/%s:19090/proxy/metrics" % p
                                for p in self.HUNG))
        self.assertEqual(max(q["hung_at_once"] for q in held), 4)
        for pod in self.HUNG:
            for name in KV_ROWS:
                r = kv_rows(doc, pod)[name]
                self.assertEqual(r["status"], "skipped", r)
                self.assertIn("the metrics on port 19090 could not be read through the pod proxy",
                              r["detail"])

    def test_bounded_by_parallel(self):
        _, held = self.observe(2)
        self.assertEqual(len(held), 4)
        self.assertEqual(max(q["hung_at_once"] for q in held), 2)


if __name__ == "__main__":
    unittest.main()
