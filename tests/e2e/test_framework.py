#!/usr/bin/python3
"""The framework rule book end to end (issue 26 items 3 and 4, checks.md
J5-J7, J9): `env` on recipes carrying the settings of a public report,
each with the verdict written here before the tool was run on them.

- vllm-side-channel-unset: `vllm serve` with NixlConnector and no
  VLLM_NIXL_SIDE_CHANNEL_HOST (vllm-project/vllm#27083): NOT READY (exit
  2) on fw-vllm; the same with the host from status.podIP is clean.
- trtllm-both-backends: NIXL_BACKEND and TRTLLM_NIXL_KVCACHE_BACKEND
  (NVIDIA/TensorRT-LLM#10024): NOT READY on fw-trtllm.
- trtllm-buffer-short: max_tokens_in_buffer 8192 below max_input_len 32768
  in the engine ConfigMap (ai-dynamo/dynamo PR #5523): NOT READY on
  fw-trtllm, naming both numbers.
- sglang-tp-mismatch: prefill TP 3, decode TP 2 (llm-d/llm-d#2433): the
  decode fails fw-pd-parallel; TP 4 against 2 is clean.
- The stock recipes of tests/fixtures/recipes (Dynamo's own) raise no fw-*
  failure.

Environment: DI_PLUGIN (the binary; default ./kubectl-dynamo_interconnect).
"""
import json
import os
import unittest

from base import ROOT
from plugin import run

FW = os.path.join(ROOT, "tests", "fixtures", "framework")
RECIPES = os.path.join(ROOT, "tests", "fixtures", "recipes")


def env_json(path):
    rc, out, err = run(["env", path, "-o", "json"])
    return rc, json.loads(out), err


# env's JSON findings carry no check name: each fw-* check is known by
# words only its details use.
MARK = {
    "fw-vllm": "VLLM_NIXL_SIDE_CHANNEL",
    "fw-trtllm": ("TRTLLM_NIXL_KVCACHE_BACKEND", "max_tokens_in_buffer"),
    "fw-pd-parallel": "SGLang attention TP",
}


def findings(doc, check):
    """(component, status, detail) of every finding of check."""
    marks = MARK[check] if isinstance(MARK[check], tuple) else (MARK[check],)
    return [(c["name"], f["status"], f["detail"]) for c in doc["components"]
            for f in c.get("findings", []) if any(m in f["detail"] for m in marks)]


class Framework(unittest.TestCase):
    def judge(self, name):
        return env_json(os.path.join(FW, name + ".yaml"))

    def test_vllm_side_channel_unset(self):
        rc, doc, err = self.judge("vllm-side-channel-unset")
        got = findings(doc, "fw-vllm")
        self.assertEqual(sorted(s for _, s, _ in got), ["fail", "fail"], got)
        self.assertIn("VLLM_NIXL_SIDE_CHANNEL_HOST unset", got[0][2])
        self.assertEqual(rc, 2, err)

    def test_vllm_side_channel_podip(self):
        rc, doc, err = self.judge("vllm-side-channel-podip")
        self.assertEqual(findings(doc, "fw-vllm"), [])

    def test_trtllm_both_backends(self):
        rc, doc, err = self.judge("trtllm-both-backends")
        got = findings(doc, "fw-trtllm")
        self.assertEqual(sorted(s for _, s, _ in got), ["fail", "fail"], got)
        self.assertIn("TRTLLM_NIXL_KVCACHE_BACKEND", got[0][2])
        self.assertEqual(rc, 2, err)

    def test_trtllm_buffer_short(self):
        rc, doc, err = self.judge("trtllm-buffer-short")
        got = findings(doc, "fw-trtllm")
        self.assertEqual(sorted(s for _, s, _ in got), ["fail", "fail"], got)
        self.assertIn("8192", got[0][2])
        self.assertIn("32768", got[0][2])
        self.assertEqual(rc, 2, err)

    def test_sglang_tp_mismatch(self):
        rc, doc, err = self.judge("sglang-tp-mismatch")
        got = findings(doc, "fw-pd-parallel")
        self.assertEqual([(n, s) for n, s, _ in got], [("DecodeWorker", "fail")], got)
        self.assertIn("prefill 3, decode 2", got[0][2])
        self.assertEqual(rc, 2, err)

    def test_sglang_tp_divisible(self):
        rc, doc, err = self.judge("sglang-tp-divisible")
        self.assertEqual(findings(doc, "fw-pd-parallel"), [])

    def test_stock_recipes_clean(self):
        rc, doc, err = env_json(RECIPES)
        bad = [(check, got) for check in MARK for got in findings(doc, check)
               if got[1] == "fail"]
        self.assertEqual(bad, [])


if __name__ == "__main__":
    unittest.main()
