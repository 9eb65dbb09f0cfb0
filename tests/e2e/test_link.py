#!/usr/bin/python3
"""Link health without a window (issue 45 point 3, docs/checks.md O4):
link-pcie-trained, in every `check`, judges the PCIe links from each RDMA
NIC and GPU up to its root port.  The scenarios make a Gen5 switch's tree
in sysfs at sandbox start (`make:`).  Each verdict was written here before
the tool ran on it:

- link-pcie-ok: every link x16 at 32.0 GT/s but the idle GPU's own link
  at 2.5 GT/s (the driver lowers it when the GPU is not in use): ok on
  both pods, 3 links judged (the switch's upstream link, shared by the GPU
  and the NIC, once); READY.
- link-pcie-narrow: on the decode's node mlx5_0's own link trained at x8
  of x16: warn on the decode naming that link by its two ends, ok on the
  prefill; still READY (a warning off the KV path's links).
- healthy-ib (no PCIe tree in its profile): skipped, not applicable; the
  verdict READY as before.
- link-fw-odd: a third node's ConnectX-7s on firmware 28.39.1002, the
  other two nodes' on 28.41.1000: node-consistency "HCA firmware" names
  gpu-h100-03 (warn), READY; link-pcie-ok's two nodes alike: no such
  finding.
- link-port-flap: the decode's mlx5_1/1 link_downed 3: link-port-flaps
  warns naming it, the prefill (link_error_recovery 2, never down) ok;
  READY.  Scenarios without port counters: not applicable.
"""
import os
import unittest

from base import EXIT, ROOT, E2ECase

SCENARIOS = os.path.join(ROOT, "tests", "cluster", "scenarios")
NAME = "link-pcie-trained"


class Link:
    CHECK = ["-n", "demo"]
    VERDICT = "READY"

    def row(self, pod, name=NAME):
        rows = [c for p in self.doc["pods"] if p["name"] == pod for c in p["checks"] if c["name"] == name]
        self.assertEqual(len(rows), 1, pod)
        return rows[0]

    def test_verdict(self):
        self.assertIsNotNone(self.doc, self.err)
        self.assertEqual(self.doc["verdict"]["status"], self.VERDICT, self.doc["verdict"]["findings"])
        self.assertEqual(self.rc, EXIT[self.VERDICT], self.err)


class LinkOk(Link, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "link-pcie-ok.yaml")

    def test_ok_on_both(self):
        for pod in ("qwen-prefill-0", "qwen-decode-0"):
            c = self.row(pod)
            self.assertEqual(c["status"], "ok", c)
            self.assertEqual(c["family"], "GPUDIRECT")
            self.assertIn("3 PCIe links", c["detail"])

    def test_no_firmware_finding(self):
        self.assertEqual([f for f in self.doc["verdict"]["findings"] if "HCA firmware" in f["detail"]], [])


class LinkNarrow(Link, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "link-pcie-narrow.yaml")

    def test_decode_warns_on_the_narrow_link(self):
        c = self.row("qwen-decode-0")
        self.assertEqual(c["status"], "warn", c)
        self.assertIn("1 of 3 PCIe links", c["detail"])
        self.assertIn("NIC mlx5_0: 0000:1d:00.0-0000:1a:01.0 x8 of x16", c["detail"])
        # the idle GPU's 2.5 GT/s is no finding
        self.assertNotIn("0000:1b:00.0", c["detail"])
        self.assertTrue(c.get("remedy"), c)

    def test_prefill_ok(self):
        self.assertEqual(self.row("qwen-prefill-0")["status"], "ok")


class NoTree(Link, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "healthy-ib.yaml")

    def test_not_applicable(self):
        for pod in ("qwen-prefill-0", "qwen-decode-0"):
            c = self.row(pod)
            self.assertEqual(c["status"], "skipped", c)
            self.assertFalse(c["applicable"], c)
            c = self.row(pod, "link-port-flaps")
            self.assertEqual(c["status"], "skipped", c)
            self.assertFalse(c["applicable"], c)


class FirmwareOdd(Link, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "link-fw-odd.yaml")

    def test_odd_node_named(self):
        fw = [f for f in self.doc["verdict"]["findings"] if "HCA firmware" in f["detail"]]
        self.assertEqual(len(fw), 1, self.doc["verdict"]["findings"])
        f = fw[0]
        self.assertEqual(f["name"], "node-consistency")
        self.assertEqual(f["status"], "warn")
        self.assertEqual(f["detail"], "HCA firmware: MT_0000000838 28.39.1002 on node gpu-h100-03; "
                         "MT_0000000838 28.41.1000 on the other 2 nodes")


class PortFlap(Link, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "link-port-flap.yaml")

    def test_decode_warns(self):
        c = self.row("qwen-decode-0", "link-port-flaps")
        self.assertEqual(c["status"], "warn", c)
        self.assertEqual(c["family"], "RDMA")
        self.assertIn("mlx5_1/1 went down 3 times since the port counters were cleared", c["detail"])
        self.assertNotIn("mlx5_0", c["detail"])

    def test_prefill_ok(self):
        c = self.row("qwen-prefill-0", "link-port-flaps")
        self.assertEqual(c["status"], "ok", c)
        self.assertIn("8 RDMA ports never went down", c["detail"])


if __name__ == "__main__":
    unittest.main()
