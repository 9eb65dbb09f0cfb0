"""No silent loss (issue 37 item 3): a worker whose command line is past
the plugin's 64 KiB read keeps its fw-* checks, skipped with the reason.

The scene, written before the tool ran on it: fw-vllm-side-channel-unset
(tests/cluster/scenarios: `vllm serve` with NixlConnector and no
VLLM_NIXL_SIDE_CHANNEL_HOST, both pods NOT READY on fw-vllm) with the
prefill's args grown by one 70,000-byte --served-model-name.  Before:
the prefill's args read as none, every fw-* result of it gone and the pod
READY.  After: its fw-vllm, fw-sglang, fw-trtllm, fw-mooncake and
fw-tp-nodes are each reported skipped ("over 64 KiB", with a remedy), and
the decode (args intact) still fails fw-vllm: exit 2.  (The prefill pod's
own verdict stays READY: product.md's verdict is by the KV path's links,
and a skipped fw-* check is no link; first written here as "not READY",
which that documented rule does not give.)
"""
import json
import os
import unittest

import yaml

from base import E2ECase, ROOT
from plugin import run

SCENARIO = os.path.join(ROOT, "tests", "cluster", "scenarios", "fw-vllm-side-channel-unset.yaml")
FW = ("fw-vllm", "fw-sglang", "fw-trtllm", "fw-mooncake", "fw-tp-nodes")


class TestArgsOverCap(E2ECase):
    TMP = "di-silent-"

    def test_long_argv_skips_not_drops(self):
        with open(SCENARIO) as f:
            doc = yaml.safe_load(f)
        for p in doc["pods"]:
            p["profile"] = os.path.join(os.path.dirname(SCENARIO), p["profile"])
        pre = [p for p in doc["pods"] if p["labels"]["nvidia.com/dynamo-component-type"] == "prefill"][0]
        pre["spec"]["containers"][0]["args"] += ["--served-model-name", "q" * 70000]
        c = self.new_cluster(self.write_scenario(doc, "long-argv.yaml"))
        rc, out, err = run(["check", "--kubeconfig", c.kubeconfig, "-n", "demo", "-o", "json"],
                           timeout=300)
        pods = {p["role"]: p for p in json.loads(out)["pods"]}
        got = {c["name"]: c for c in pods["prefill"]["checks"]}
        for name in FW:
            self.assertIn(name, got, sorted(got))
            self.assertEqual(got[name]["status"], "skipped", got[name])
            self.assertIn("over 64 KiB", got[name]["detail"])
            self.assertTrue(got[name].get("remedy"), got[name])
        dec = {c["name"]: c for c in pods["decode"]["checks"]}
        self.assertEqual(dec["fw-vllm"]["status"], "fail", dec.get("fw-vllm"))
        self.assertEqual(rc, 2, err)


class TestSpecEnvOverCap(E2ECase):
    """check --recipe on the canary scenario (tests/e2e/scenarios) with
    canary-prefill-0's spec env grown by 2,000 UCX_PAD<i> entries of 40
    bytes (past the 64 KiB the plugin reads).  Expected, written before the
    tool ran on it: that pod's env-drift is one skipped result naming the
    cap, never a drift judged against an empty spec (before: the spec read
    as empty, so the recipe's UCX_TLS showed as unset in the spec)."""
    TMP = "di-silent-env-"

    def test_spec_env_over_cap(self):
        scen = os.path.join(ROOT, "tests", "e2e", "scenarios")
        with open(os.path.join(scen, "canary.yaml")) as f:
            doc = yaml.safe_load(f)
        for p in doc["pods"]:
            p["profile"] = os.path.join(scen, p["profile"])
        env = doc["pods"][0]["spec"]["containers"][0]["env"]
        env += [{"name": "UCX_PAD%d" % i, "value": "%040d" % i} for i in range(2000)]
        c = self.new_cluster(self.write_scenario(doc, "canary-long-env.yaml"))
        rc, out, err = run(["check", "--kubeconfig", c.kubeconfig, "--recipe",
                            os.path.join(scen, "canary-recipe"), "-o", "json"], timeout=300)
        pods = {p["name"]: p for p in json.loads(out)["pods"]}
        drift = [c for c in pods["canary-prefill-0"]["checks"] if c["name"] == "env-drift"]
        self.assertEqual([(c["status"], "over 64 KiB" in c["detail"]) for c in drift],
                         [("skipped", True)], drift)
        self.assertNotIn("CANARY", out + err)


if __name__ == "__main__":
    unittest.main()
