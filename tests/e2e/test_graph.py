#!/usr/bin/python3
"""Consistency across the graph, end to end (issue 8): prefill and decode of
one graph must be able to meet, and the odd node out is named.  Scenario
tests/cluster/scenarios/mismatch.yaml holds four small graphs, each with one
mismatch; healthy-ib.yaml is a consistent graph that must give no such
finding.

Environment: DI_PLUGIN (the binary; default ./kubectl-dynamo_interconnect).
"""
import copy
import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_check import ROOT, CheckCase, fc, run  # noqa: E402

CROSS_POD = ("pair-consistency", "node-consistency")


def tearDownModule():
    fc.stop_shared()    # the clusters CheckCase shared in this module


class GraphCase(CheckCase):  # mixin
    def findings(self, name, needle=""):
        return [f for f in self.doc["verdict"]["findings"]
                if f["name"] == name and needle in f["detail"]]

    def one(self, name, needle):
        fs = self.findings(name, needle)
        self.assertEqual(len(fs), 1, (needle, self.doc["verdict"]["findings"]))
        return fs[0]

    def folded_under(self, root, pod, what):
        """The finding of check root naming pod, which lists what (a
        cross-pod finding it explains) as folded under it (checks.md N,
        one root cause per pod)."""
        fs = [f for f in self.findings(root) if pod in f["detail"]]
        self.assertEqual(len(fs), 1, (root, pod, self.doc["verdict"]["findings"]))
        self.assertIn(what, fs[0].get("folded", []), fs[0])
        return fs[0]


class TestMismatch(GraphCase, unittest.TestCase):
    SCENARIO = "mismatch.yaml"

    def test_not_ready(self):
        v = self.doc["verdict"]
        self.assertEqual((self.rc, v["status"]), (2, "NOT READY"), self.describe())

    def test_backend_mismatch_names_the_pair(self):
        f = self.one("pair-consistency", "NIXL backend")
        self.assertEqual(f["status"], "fail")
        self.assertEqual(f["detail"], "prefill backend-prefill-0 and decode backend-decode-0: "
                                      "NIXL backend UCX vs LIBFABRIC")
        self.assertEqual(f["pods"], ["backend-prefill-0", "backend-decode-0"])
        self.assertIn("same NIXL backend", f["remedy"])

    def test_net_devices_naming_a_missing_device(self):
        f = self.one("pair-consistency", "UCX_NET_DEVICES")
        self.assertEqual(f["status"], "fail")
        self.assertEqual(f["detail"], "prefill netdev-prefill-0 and decode netdev-decode-0: "
                                      "UCX_NET_DEVICES on decode netdev-decode-0 names "
                                      "mlx5_2:1 not an RDMA device here")
        # The pod alone only warns: the other rails are up.
        self.assertEqual(self.check("netdev-decode-0", "env-ucx-net-devices")["status"], "warn")

    def test_cross_node_pair_without_rdma(self):
        # The pair without RDMA across nodes follows from the prefill's own
        # missing devices: one line, the pair folded under it.
        self.assertEqual(self.findings("pair-consistency", "cross nodes over TCP"), [])
        f = self.folded_under("rdma-devices", "tcp-prefill-0", "pair-consistency")
        self.assertEqual(f["status"], "fail")
        self.assertEqual(f["family"], "RDMA")

    def test_odd_node_without_peermem(self):
        # The odd node out says what the pod's own gpudirect-peermem fail
        # says: folded under it, the node named there.
        self.assertEqual(self.findings("node-consistency", "nvidia_peermem"), [])
        f = self.folded_under("gpudirect-peermem", "gpu-h100-07", "node-consistency")
        self.assertEqual(f["status"], "fail")
        # No second line repeats the per-pod failure.
        self.assertFalse([f for f in self.doc["verdict"]["findings"] if "differs" in f["detail"]])

    def test_no_finding_for_consistent_pairs(self):
        # Each graph has exactly its own mismatch: no pair finding names
        # a pod of another graph, and the same images give no version skew.
        for f in self.findings("pair-consistency"):
            graphs = {p.split("-")[0] for p in f["pods"]}
            self.assertEqual(len(graphs), 1, f)
        self.assertEqual(self.findings("pair-consistency", "UCX 1."), [])
        self.assertEqual(self.findings("pair-consistency", "NIXL 0."), [])
        self.assertEqual(self.findings("pair-consistency", "RDMA resources"), [])
        self.assertEqual(self.findings("pair-consistency", "peermem-"), [])
        self.assertEqual(self.findings("node-consistency"), [])   # folded (test_odd_node_...)

    def test_schema(self):
        import jsonschema
        with open(os.path.join(ROOT, "schema", "interconnect-report.schema.json")) as f:
            v = jsonschema.Draft202012Validator(json.load(f))
        self.assertEqual([e.message for e in v.iter_errors(self.doc)], [])
        bad = copy.deepcopy(self.doc)
        for f in bad["verdict"]["findings"]:
            if "pods" in f:
                f["pods"] = f["pods"][:1]
        self.assertNotEqual([e.message for e in v.iter_errors(bad)], [])

    def test_table_lines(self):
        rc, out, err = run(["check", "--kubeconfig", self.c.kubeconfig, "-n", "demo"])
        self.assertEqual(rc, 2, err)
        self.assertRegex(out, r"(?m)^fail prefill backend-prefill-0 and decode backend-decode-0: "
                              r"NIXL backend UCX vs LIBFABRIC$")
        self.assertRegex(out, r"(?m)^     fix: configure the same NIXL backend on prefill and decode workers$")
        # the odd node out is folded under the pod's own peermem fail
        self.assertRegex(out, r"(?m)^     also caused by it: .*node-consistency")
        self.assertIsNone(re.search(r"(?m)^warn nvidia_peermem: not loaded", out), out)
        # The one-graph view (-l) sees only that pair.
        rc, out, err = run(["check", "--kubeconfig", self.c.kubeconfig, "-n", "demo", "-l",
                            "nvidia.com/dynamo-graph-deployment-name=netdev"])
        self.assertEqual(rc, 2, err)
        self.assertIn("UCX_NET_DEVICES on decode netdev-decode-0", out)
        self.assertNotIn("backend-", out)
        self.assertIsNone(re.search(r"(?m)^warn nvidia_peermem", out), out)


class TestConsistentGraph(GraphCase, unittest.TestCase):
    SCENARIO = "healthy-ib.yaml"

    def test_no_consistency_finding(self):
        self.assertEqual((self.rc, self.doc["verdict"]["status"]), (0, "READY"), self.describe())
        for name in CROSS_POD:
            self.assertEqual(self.findings(name), [], name)


if __name__ == "__main__":
    unittest.main()
