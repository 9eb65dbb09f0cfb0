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


if __name__ == "__main__":
    unittest.main()
