"""check --dgd NAME (issue 27 item 1, checks.md P): the DynamoGraphDeployment
read from the API server (tests/e2e/scenarios/dgd.yaml, whose header holds
the expectations written before the tool ran on it) against the pods."""
import copy
import os
import unittest

import yaml

from base import E2ECase
from plugin import run

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "scenarios", "dgd.yaml")


def lines(out, word):
    return [l for l in out.splitlines() if word in l]


class TestDgd(E2ECase):
    SCENARIO = SCENARIO
    TMP = "di-dgd-"

    def check(self, *argv):
        return run(["check", "--kubeconfig", self.c.kubeconfig, "-n", "demo"] + list(argv), timeout=300)

    def test_beta(self):
        rc, out, err = self.check("--dgd", "qwen")
        self.assertIn("DynamoGraphDeployment demo/qwen (v1beta1, state successful, Ready True, "
                      "worker hash aaa):", out)
        gen = lines(out, "dgd-generation")
        self.assertEqual(len(gen), 1, out)
        self.assertIn("qwen-decode-1 is of worker generation old", gen[0])
        env = lines(out, "dgd-env")
        self.assertEqual(len(env), 1, out)
        self.assertIn('qwen-decode-1: UCX_TLS is "tcp", the DGD says rc,cuda_copy', env[0])
        comp = lines(out, "dgd-component-pods")
        self.assertEqual(len(comp), 1, out)
        self.assertIn("component prefill (type prefill) has no running pod", comp[0])
        self.assertEqual(rc, 2, err)   # P2 fails the run: no disaggregated path
        self.assertNotIn("Frontend", out)
        self.assertNotIn("HF_TOKEN", out)

    def test_json_stays_whole(self):
        rc, out, err = run(["check", "--kubeconfig", self.c.kubeconfig, "-n", "demo", "-o", "json",
                            "--dgd", "qwen"], timeout=300)
        import json
        json.loads(out)
        self.assertIn("dgd-generation", err)

    def test_missing(self):
        rc, out, err = self.check("--dgd", "missing")
        self.assertEqual(rc, 1, err)

    def test_forbidden(self):
        rc, out, err = self.check("--dgd", "qwen", "--user", "nodgd")
        self.assertIn(rc, (0, 2, 3), err)
        notes = lines(err, "cannot read DynamoGraphDeployments (403")
        self.assertEqual(len(notes), 1, err)
        self.assertNotIn("dgd-generation", out)
        self.assertIn("qwen-decode-1", out)

    def test_alpha_only(self):
        with open(SCENARIO) as f:
            doc = yaml.safe_load(f)
        doc = copy.deepcopy(doc)
        doc["dynamoGraphDeployments"] = [{
            "apiVersion": "nvidia.com/v1alpha1",
            "metadata": {"name": "qwen", "annotations": {"nvidia.com/current-worker-hash": "aaa"}},
            "spec": {"envs": [{"name": "UCX_TLS", "value": "tcp"}],
                     "services": {"decode": {"componentType": "decode", "replicas": 2}}},
            "status": {"state": "successful"}}]
        for p in doc["pods"]:
            p["profile"] = os.path.join(HERE, "scenarios", p["profile"])
        c = self.new_cluster(self.write_scenario(doc, "alpha.yaml"))
        rc, out, err = run(["check", "--kubeconfig", c.kubeconfig, "-n", "demo", "--dgd", "qwen"],
                           timeout=300)
        self.assertIn("DynamoGraphDeployment demo/qwen (v1alpha1,", out)
        env = lines(out, "dgd-env")
        self.assertEqual(len(env), 1, out)
        self.assertIn('qwen-decode-0: UCX_TLS is "rc,cuda_copy", the DGD says tcp', env[0])
        self.assertEqual(lines(out, "dgd-component-pods"), [])
        # P1/P3 only warn: the exit code is the pods' own, as without --dgd
        rc0, _, err0 = run(["check", "--kubeconfig", c.kubeconfig, "-n", "demo",
                            "-l", "nvidia.com/dynamo-graph-deployment-name=qwen"], timeout=300)
        self.assertEqual(rc, rc0, err + err0)

    def test_component_without_pod_fails_run(self):
        # The same pods, judged alone, are not NOT READY (asserted: the
        # premise); a prefill component with replicas and no pod (P2) makes
        # the run NOT READY.
        with open(SCENARIO) as f:
            doc = yaml.safe_load(f)
        doc["dynamoGraphDeployments"] = [{
            "apiVersion": "nvidia.com/v1alpha1",
            "metadata": {"name": "qwen", "annotations": {"nvidia.com/current-worker-hash": "aaa"}},
            "spec": {"services": {"decode": {"componentType": "decode", "replicas": 2},
                                  "prefill": {"componentType": "prefill", "replicas": 1}}},
            "status": {"state": "successful"}}]
        # One healthy pod: output.yaml's first (IPC_LOCK, /dev/shm, h100-ib-ok)
        # with the decode pod's name and labels.
        with open(os.path.join(HERE, "scenarios", "output.yaml")) as f:
            good = yaml.safe_load(f)["pods"][0]
        mine = [p for p in doc["pods"] if p["name"] == "qwen-decode-0"][0]
        good.update({k: mine[k] for k in ("name", "labels") if k in mine})
        if "namespace" in mine:
            good["namespace"] = mine["namespace"]
        good["profile"] = os.path.join(HERE, "scenarios", good["profile"])
        doc["pods"] = [good]
        c = self.new_cluster(self.write_scenario(doc, "p2.yaml"))
        base = ["check", "--kubeconfig", c.kubeconfig, "-n", "demo"]
        rc0, _, err0 = run(base + ["-l", "nvidia.com/dynamo-graph-deployment-name=qwen"], timeout=300)
        self.assertNotEqual(rc0, 2, err0 + _)
        rc, out, err = run(base + ["--dgd", "qwen"], timeout=300)
        self.assertEqual(len(lines(out, "dgd-component-pods")), 1, out)
        self.assertEqual(rc, 2, err)


if __name__ == "__main__":
    unittest.main()
