"""The first pair rule and the first DGD rule added by following
docs/adding-a-check.md (issue 40 point 5), end to end: each rule's firing
case and its near miss, on scenarios whose headers hold the expectations
written before the tool ran on them (tests/e2e/scenarios/attn-backend.yaml,
dgd-connector.yaml)."""
import json
import os
import unittest

from base import E2ECase
from plugin import run

HERE = os.path.dirname(os.path.abspath(__file__))


class TestAttentionBackend(E2ECase):
    SCENARIO = os.path.join(HERE, "scenarios", "attn-backend.yaml")
    CHECK = ["-n", "demo"]

    def attn(self):
        return [f for f in self.doc["verdict"]["findings"]
                if f["name"] == "pair-consistency" and "attention backend" in f["detail"]]

    def test_mixed_fails(self):
        fs = self.attn()
        self.assertEqual(len(fs), 1, self.doc["verdict"]["findings"])
        f = fs[0]
        self.assertEqual(f["detail"], "prefill mixed-prefill-0 and decode mixed-decode-0: "
                                      "vLLM attention backend FLASHINFER vs FLASH_ATTN")
        self.assertEqual((f["status"], f["pods"]), ("fail", ["mixed-prefill-0", "mixed-decode-0"]))
        self.assertIn("same attention backend", f["remedy"])
        self.assertEqual((self.rc, self.doc["verdict"]["status"]), (2, "NOT READY"))

    def test_same_backend_is_quiet(self):
        self.assertFalse([f for f in self.attn() if "same-" in f["detail"]], self.attn())


class TestDgdConnector(E2ECase):
    SCENARIO = os.path.join(HERE, "scenarios", "dgd-connector.yaml")

    def check(self, *argv):
        return run(["check", "--kubeconfig", self.c.kubeconfig, "-n", "demo", "-o", "json"]
                   + list(argv), timeout=300)

    @staticmethod
    def findings(doc, check):
        return [f for d in doc["dynamoGraphDeployments"] for f in d["findings"]
                if f["check"] == check]

    def test_connector_without_kv_transfer_config_fails(self):
        rc, out, err = self.check("--dgd", "qwen")
        doc = json.loads(out)
        fs = self.findings(doc, "dgd-vllm-connector")
        self.assertEqual([(f["status"], f["detail"]) for f in fs],
                         [("fail", "component prefill: vllm-runtime:1.0.0rc5 passes --connector nixl "
                                   "and no --kv-transfer-config: the worker exits with a ValueError"),
                          ("fail", "component decode: vllm-runtime:1.0.0rc5 passes --connector nixl "
                                   "beside --kv-transfer-config: the worker exits with a ValueError")])
        self.assertEqual(rc, 2, err)

    def test_kv_transfer_config_is_quiet(self):
        rc, out, err = self.check("--dgd", "fixed")
        self.assertEqual(self.findings(json.loads(out), "dgd-vllm-connector"), [])


if __name__ == "__main__":
    unittest.main()
