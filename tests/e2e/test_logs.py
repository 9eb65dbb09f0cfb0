#!/usr/bin/python3
"""Log evidence end to end: `check` reads the tail of each probed worker's
log (GET pods/log with container, tailLines, limitBytes) from the test
cluster and judges the lines that say which NIXL backend and UCX/NCCL
transport were chosen or refused (tests/e2e/scenarios/logs.yaml, logs in
tests/cluster/scenarios/logs/).  A healthy log gives LOGS ok with the line
quoted, a TCP fallback fails the pod, secrets in a log never reach any
output, a user without pods/log gets a skipped result that leaves READY
alone, and --logs=false reads no log.

Environment: DI_PLUGIN (the binary; default ./kubectl-dynamo_interconnect).
"""
import json
import os
import tempfile
import subprocess
import unittest

from base import E2ECase
from plugin import PLUGIN, run

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "scenarios", "logs.yaml")
SECRET = "E2eSecret"




class TestLogs(E2ECase):
    SCENARIO = SCENARIO

    def check(self, *args):
        return run(["check", "--kubeconfig", self.c.kubeconfig, "-n", "demo"] + list(args))

    def doc(self, *args):
        rc, out, err = self.check("-o", "json", *args)
        try:
            return rc, json.loads(out), err
        except ValueError:
            self.fail("not JSON (rc %d): %s %s" % (rc, out, err))

    @staticmethod
    def result(doc, pod, name):
        for p in doc["pods"]:
            if p["name"] == pod:
                for c in p["checks"]:
                    if c["name"] == name:
                        return c
                return None
        raise AssertionError("pod %s not in report" % pod)

    def log_requests(self, since):
        return [r for r in self.c.log()[since:] if r["path"].endswith("/log")]

    def test_healthy_log_is_ok_with_the_line_quoted(self):
        rc, doc, err = self.doc("-l", "case=healthy")
        self.assertEqual(rc, 0, err)
        self.assertEqual(doc["verdict"]["status"], "READY")
        c = self.result(doc, "lg-decode-0", "logs-nixl")
        self.assertEqual((c["family"], c["status"]), ("LOGS", "ok"))
        self.assertIn('"NIXL INFO Backend UCX was instantiated"', c["detail"])
        c = self.result(doc, "lg-decode-0", "logs-ucx")
        self.assertEqual(c["status"], "ok")
        self.assertIn("rma(rc_mlx5/mlx5_ib2:1)", c["detail"])
        # Only the transport line: nothing else of the log is shown.
        self.assertNotIn("api_server", json.dumps(doc))

    def test_table_has_a_logs_column(self):
        since = len(self.c.log())
        # -o wide: a column per family (the default names the not-ok ones).
        rc, out, err = self.check("-l", "case=healthy", "-o", "wide")
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        head = lines[0].split()
        self.assertEqual(head[head.index("SPEC") + 1], "LOGS")
        rows = [l.split() for l in lines[1:3]]
        self.assertEqual(sorted(r[0] for r in rows), ["lg-decode-0", "lg-prefill-0"])
        for r in rows:
            self.assertEqual(r[head.index("LOGS")], "ok", r)
        reqs = self.log_requests(since)
        self.assertEqual(len(reqs), 2)
        for r in reqs:
            self.assertEqual(r["method"], "GET")
            self.assertEqual(r["query"].get("container"), "main")
            self.assertEqual(r["query"].get("tailLines"), "5000")
            self.assertEqual(r["query"].get("limitBytes"), "1048576")

    def test_tcp_fallback_fails_the_pod(self):
        rc, doc, err = self.doc("-l", "case=tcp")
        self.assertEqual(rc, 2, err)
        self.assertEqual(doc["verdict"]["status"], "NOT READY")
        c = self.result(doc, "lg-decode-tcp", "logs-nixl")
        self.assertEqual(c["status"], "fail")
        self.assertIn('NIXL fell back to TCP: "NIXL INFO falling back to TCP transport"', c["detail"])
        self.assertTrue(c["remedy"])
        c = self.result(doc, "lg-decode-tcp", "logs-ucx")
        self.assertEqual(c["status"], "fail")
        self.assertIn("rma_am(tcp/eth1)", c["detail"])
        self.assertIn("logs-nixl", doc["verdict"]["fixFirst"])
        rc, out, err = self.check("-l", "case=tcp")
        self.assertEqual(rc, 2)
        self.assertIn('"NIXL INFO falling back to TCP transport"', out)

    def test_log_tail_bounds_what_is_read(self):
        # The last line alone is the 1800 ms transfer setup: a warning,
        # and no UCX line is seen.  A warning is listed with the verdict,
        # it does not withhold READY (checks.md N).
        since = len(self.c.log())
        rc, doc, err = self.doc("-l", "case=tcp", "--log-tail", "1")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.result(doc, "lg-decode-tcp", "logs-nixl")["status"], "warn")
        self.assertIsNone(self.result(doc, "lg-decode-tcp", "logs-ucx"))
        self.assertEqual([r["query"].get("tailLines") for r in self.log_requests(since)], ["1"])

    def test_secrets_in_logs_are_never_printed(self):
        for args in (["-o", "json"], ["-o", "yaml"], [], ["-o", "wide"], ["-v", "9"],
                     ["-o", "json", "-v", "9"]):
            rc, out, err = self.check("-l", "case=secret", *args)
            self.assertEqual(rc, 2, (args, err[-2000:]))
            self.assertNotIn(SECRET, out, args)
            self.assertNotIn(SECRET, err, args)
            self.assertIn("HF_TOKEN=<masked>", out, args)

    def test_forbidden_log_is_skipped_and_ready_stays_ready(self):
        since = len(self.c.log())
        rc, doc, err = self.doc("-l", "case=healthy", "--user", "nologs")
        self.assertEqual(rc, 0, err)
        self.assertEqual(doc["verdict"]["status"], "READY")
        for pod in ("lg-decode-0", "lg-prefill-0"):
            c = self.result(doc, pod, "logs-read")
            self.assertEqual(c["status"], "skipped")
            self.assertIn("Forbidden", c["detail"])
            self.assertIn('"pods/log"', c["detail"])
            self.assertIn("pods/log", c["remedy"])
            self.assertEqual(doc["pods"][0]["verdict"], "READY")
        self.assertEqual(sorted(r["status"] for r in self.log_requests(since)), [403, 403])
        rc, out, _ = self.check("-l", "case=healthy", "--user", "nologs", "-o", "wide")
        self.assertEqual(rc, 0)
        head = out.splitlines()[0].split()
        for line in out.splitlines()[1:3]:
            self.assertEqual(line.split()[head.index("LOGS")], "skipped")

    def test_log_without_transport_lines_is_skipped(self):
        rc, doc, err = self.doc("-l", "case=quiet")
        self.assertEqual(rc, 0, err)
        c = self.result(doc, "lg-decode-quiet", "logs-read")
        self.assertEqual(c["status"], "skipped")
        self.assertIn("no NIXL/UCX/NCCL/libfabric transport line in the last 5000 lines", c["detail"])
        self.assertIn("NIXL_LOG_LEVEL", c["remedy"])

    def test_logs_false_reads_no_log(self):
        since = len(self.c.log())
        rc, doc, err = self.doc("--logs=false")
        self.assertEqual(rc, 0, err)   # without the logs every worker is healthy
        self.assertEqual(self.log_requests(since), [])
        for p in doc["pods"]:
            self.assertEqual([c for c in p["checks"] if c["family"] == "LOGS"], [], p["name"])
        rc, _, err = self.check("--log-tail", "-1")
        self.assertEqual(rc, 1)
        self.assertIn("--log-tail", err)

    def test_node_pod_reads_the_log_too(self):
        rc, out, err = run(["node", "--kubeconfig", self.c.kubeconfig, "-n", "demo",
                            "--pod", "lg-decode-tcp", "-o", "json"])
        self.assertEqual(rc, 2, err)
        c = self.result(json.loads(out), "lg-decode-tcp", "logs-nixl")
        self.assertEqual(c["status"], "fail")

    def test_only_gets(self):
        self.check("-l", "case=tcp")
        for r in self.c.log():
            self.assertEqual(r["method"], "GET", r["path"])


if __name__ == "__main__":
    unittest.main()
