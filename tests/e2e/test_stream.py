#!/usr/bin/python3
"""`-o json` and `-o yaml` written pod by pod (report/stream.c, issue 27):
on varied scenarios (the demo, a healthy InfiniBand pair, a mismatching
fleet, EFA, hostile text) the streamed JSON is one valid document, the
streamed YAML holds the same document, and every pod's verdict in it is the
one the table prints for that pod, in the table's order.  With DI_BASELINE
set to another build (e.g. main's, which builds the document whole) the
bytes of both formats must be equal to that build's.

The byte-level comparison of the streamed and the whole-tree writers on
synthetic reports is tests/unit/test_stream.c; this file covers the path
through a real run.
"""
import json
import os
import subprocess
import unittest

import yaml

from base import ROOT, running
from plugin import plugin_env, run, untimed

CLUSTER = os.path.join(ROOT, "tests", "cluster", "scenarios")
E2E = os.path.join(ROOT, "tests", "e2e", "scenarios")
SCENARIOS = [
    (os.path.join(CLUSTER, "demo.yaml"), "demo"),
    (os.path.join(CLUSTER, "healthy-ib.yaml"), "demo"),
    (os.path.join(CLUSTER, "mismatch.yaml"), "demo"),
    (os.path.join(CLUSTER, "efa-ok.yaml"), "demo"),
    (os.path.join(E2E, "hostile-escapes.yaml"), "hostile"),
]
# The table's last column against the JSON's verdict (product.md "Output").
TOKEN = {"Ready": "READY", "NotReady": "NOT READY", "Unverified": "UNVERIFIED"}
BASELINE = os.environ.get("DI_BASELINE")


def run_with(prog, argv):
    """(exit code, stdout bytes) of another build of the plugin."""
    p = subprocess.run([prog] + argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       timeout=300, env=plugin_env())
    return p.returncode, p.stdout


class StreamTest(unittest.TestCase):

    def each(self, body):
        for path, ns in SCENARIOS:
            with self.subTest(scenario=os.path.basename(path)), running(path) as c:
                body(c, ["check", "--kubeconfig", c.kubeconfig, "-n", ns, "--color", "never"])

    def test_yaml_holds_the_json_document(self):
        def body(c, argv):
            rcj, out, _ = run(argv + ["-o", "json"], timeout=300)
            rcy, yout, _ = run(argv + ["-o", "yaml"], timeout=300)
            doc = json.loads(out)
            self.assertEqual(rcj, rcy)
            self.assertTrue(out.endswith("\n"))
            self.assertGreater(len(doc["pods"]), 0)
            # two runs: the probe's measured times differ (issue 46)
            self.assertEqual(untimed(yaml.safe_load(yout)), untimed(doc))
        self.each(body)

    def test_pod_verdicts_are_the_tables(self):
        def body(c, argv):
            _, out, _ = run(argv + ["-o", "json"], timeout=300)
            # -o wide: VERDICT is the last cell (the default ends in NOT OK).
            _, table, _ = run(argv + ["--no-headers", "-o", "wide"], timeout=300)
            doc = json.loads(out)
            rows = [l.split() for l in table.splitlines() if l.strip()]
            rows = [(r[0], r[-1]) for r in rows if r[-1] in TOKEN]
            self.assertEqual(len(rows), len(doc["pods"]), table)
            for (name, tok), pod in zip(rows, doc["pods"]):
                if pod["name"].isprintable():   # the table escapes the rest
                    self.assertEqual(name, pod["name"])
                self.assertEqual(TOKEN[tok], pod["verdict"], pod["name"])
        self.each(body)

    # Opt-in (DI_BASELINE): defined only then, as make test counts a
    # skipped test as failed.
    def bytes_equal_the_baseline(self):
        def body(c, argv):
            for fmt in ("json", "yaml"):
                rc, out = run_with(os.environ.get("DI_PLUGIN") or
                                   os.path.join(ROOT, "kubectl-dynamo_interconnect"), argv + ["-o", fmt])
                brc, bout = run_with(BASELINE, argv + ["-o", fmt])
                self.assertEqual((rc, out), (brc, bout), fmt)
        self.each(body)

    if BASELINE:
        test_bytes_equal_the_baseline = bytes_equal_the_baseline


if __name__ == "__main__":
    unittest.main()
