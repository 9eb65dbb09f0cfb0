"""Issue 42: a non-EFA device in an EFA allocation (docs/checks.md G1).
Expectations written before the rule (see the scenario's header):
path-efa-ibp NOT READY, efa-devices failing on both workers naming mlx5_0
and aws/sagemaker-hyperpod-cli PR #282; its near miss on the fixed plugin
(profile path-efa-ibp-fixed: mlx5_0 in sysfs, no uverbs node for it):
READY, efa-devices ok."""
import os
import unittest

import yaml

from base import E2ECase, PairWorkers
from test_topo import SCENARIOS


def fixed():
    with open(os.path.join(SCENARIOS, "path-efa-ibp.yaml")) as f:
        doc = yaml.safe_load(f)
    for p in doc["pods"]:
        p["profile"] = os.path.normpath(os.path.join(SCENARIOS, "../profiles/path-efa-ibp-fixed"))
    return doc


class EfaIbp(PairWorkers, E2ECase):
    SCENARIO = "path-efa-ibp.yaml"
    VERDICT = "NOT READY"
    STATUS = "fail"

    def test_efa_devices(self):
        for p in self.doc["pods"]:
            c = self.check(p, "efa-devices")
            self.assertEqual(c["status"], self.STATUS, c)
            if self.STATUS == "fail":
                for w in ("mlx5_0", "ibp115s0f0", "aws/sagemaker-hyperpod-cli PR #282"):
                    self.assertIn(w, c["detail"], c)
                self.assertIn("0.5.10", c.get("remedy") or "", c)


class EfaIbpFixed(EfaIbp):
    SCENARIO = fixed()
    TMP = "path-efa-"
    VERDICT = "READY"
    STATUS = "ok"


# Issue 42 item 4: gpuNics for NIXL's LIBFABRIC backend on EFA (checks.md
# E9).  NIXL groups EFA devices per GPU from the PCI tree (ai-dynamo/nixl
# libfabric_topology.cpp groupNicsWithAccel): on efa-ok's p4de, GPUs 0-1
# share a PCIe switch with efa_0 (topo -m PXB), 2-3 with efa_1, 4-5 efa_2,
# 6-7 efa_3, and one device for two GPUs is given to both.
class EfaLibfabricNics(EfaIbpFixed):
    GPU_NICS = {0: ["efa_0:1"], 1: ["efa_0:1"], 2: ["efa_1:1"], 3: ["efa_1:1"],
                4: ["efa_2:1"], 7: ["efa_3:1"]}

    def test_gpu_nics(self):
        from test_path_mooncake import check_gpu_nics
        for e in check_gpu_nics(self, "LIBFABRIC", self.GPU_NICS):
            self.assertEqual(e["maxRails"], len(e["nics"]), e)
            self.assertEqual(e["link"], "PXB", e)


def with_backend(be):
    doc = fixed()
    for p in doc["pods"]:
        p["env"] = dict(p.get("env") or {}, SGLANG_DISAGGREGATION_NIXL_BACKEND=be)
    return doc


class EfaUcxNoNics(EfaIbpFixed):
    """SGLang naming NIXL's UCX backend: not LIBFABRIC's grouping (UCX on
    EFA is judged elsewhere): no gpuNics."""
    SCENARIO = with_backend("UCX")
    VERDICT = None

    def test_verdict(self):
        pass

    def test_no_gpu_nics(self):
        for p in self.doc["pods"]:
            self.assertEqual(p.get("gpuNics") or [], [], p.get("gpuNics"))


if __name__ == "__main__":
    unittest.main()
