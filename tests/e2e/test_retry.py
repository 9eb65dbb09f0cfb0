#!/usr/bin/python3
"""Retries as client-go does them for GETs (rest/with_retry.go): API
Priority and Fairness's plain-text 429 with Retry-After: 1 is waited out,
at most 10 retries; a connection reset is retried; an exec is never tried
again once it upgraded.  Counted in the test cluster's request log."""
import os
import unittest

from base import running
from plugin import run

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "scenarios", "frontdoor.yaml")


def with_cluster(faults, argv):
    """A server of its own with FAULTS (they count from its start), and
    the run of ARGV on it with the server's request log."""
    with running(SCENARIO, faults=faults) as c:
        rc, out, err = run(argv + ["--kubeconfig", c.kubeconfig, "--context", "fakecluster"])
        return rc, out, err, c.log()


class Retry(unittest.TestCase):
    def test_apf_429_waited_out(self):
        rc, out, err, log = with_cluster(["apf-429=3"], ["pods", "-n", "fd"])
        self.assertEqual(rc, 0, err)
        self.assertIn("w-prefill-0", out)
        self.assertEqual([q["status"] for q in log], [429, 429, 429, 200])

    def test_at_most_ten_retries(self):
        rc, out, err, log = with_cluster(["apf-429=50"], ["pods", "-n", "fd"])
        self.assertEqual(rc, 1, err)
        self.assertIn("TooManyRequests", err)
        self.assertEqual([q["status"] for q in log], [429] * 11)

    def test_connection_reset_retried(self):
        rc, out, err, log = with_cluster(["conn-reset=2"], ["pods", "-n", "fd"])
        self.assertEqual(rc, 0, err)
        self.assertEqual([q.get("fault") for q in log], ["conn-reset", "conn-reset", None])

    def test_exec_not_retried_after_upgrade(self):
        rc, out, err, log = with_cluster(["exec-drop-mid-frame"], ["check", "-n", "fd", "--logs=false"])
        execs = [q for q in log if q["path"].endswith("/exec")]
        self.assertEqual(sorted(q["path"].split("/")[-2] for q in execs), ["w-decode-0", "w-prefill-0"])


if __name__ == "__main__":
    unittest.main()
