#!/usr/bin/python3
"""`env` on Dynamo's disaggregated recipes as they are today (issue 38 point
6): tests/fixtures/recipes/today-2026-12-07/, copied verbatim from
ai-dynamo/dynamo (tests/fixtures/SOURCES.md), judged against expected.yaml
there, which was written from reading each recipe against the sources before
the tool was run.  Every finding the tool gives must be listed there and
every listed one given: a finding a recipe author should not act on fails
this test.  No cluster needed for that; RolesLive runs `check` on the test
cluster's roles-worker-args scenario (pods labelled `worker` only, the role
in their args).  MooncakeNvlink runs `check` on nvlink-domain-two (two GB200
trays in different NVLink domains, a ComputeDomain claim each) as SGLang
workers on Mooncake (its default backend) with SGLang's NVLINK memory pool:
NOT READY on the pair-consistency line naming both domains and Mooncake
(issue 38: Dynamo's deepseek-v4.1-flash sglang disagg-gb200 recipe, "reports
Ready and chat completions return HTTP 200 with content null" across
cliques); its near miss without the NVLINK pool (Mooncake over the
InfiniBand rails) has no such line.  Written before the tool was run.
"""
import json
import os
import unittest

import yaml

from base import E2ECase
from plugin import run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tests", "fixtures", "recipes", "today-2026-12-07")


def expectations():
    with open(os.path.join(CORPUS, "expected.yaml")) as f:
        return yaml.safe_load(f)["recipes"]


def matches(finding, want):
    status, _, text = want.partition(": ")
    return finding["status"] == status and text in finding["detail"]


class TestRecipesToday(unittest.TestCase):
    def test_every_recipe_listed(self):
        listed = {r["file"] for r in expectations()}
        found = set()
        for d, _, files in os.walk(CORPUS):
            for f in files:
                if f.endswith(".yaml") and f != "expected.yaml":
                    found.add(os.path.relpath(os.path.join(d, f), CORPUS))
        self.assertEqual(found, listed)

    def test_verdicts_and_findings(self):
        for r in expectations():
            with self.subTest(file=r["file"]):
                rc, out, err = run(["env", r["file"], "-o", "json"], cwd=CORPUS)
                self.assertEqual(err, "")
                doc = json.loads(out)
                self.assertEqual(doc["verdict"]["status"], r["verdict"], out)
                got = {c["name"]: c for c in doc["components"]
                       if c["name"] in r["components"] or c["findings"]}
                self.assertEqual(set(got), set(r["components"]), out)
                for name, want in r["components"].items():
                    c = got[name]
                    self.assertEqual(c["role"], want["role"], name)
                    if "fabric" in want:
                        self.assertEqual(c["fabric"], want["fabric"], name)
                    extra = [f["status"] + ": " + f["detail"] for f in c["findings"]
                             if not any(matches(f, w) for w in want["findings"])]
                    missing = [w for w in want["findings"]
                               if not any(matches(f, w) for f in c["findings"])]
                    self.assertEqual((extra, missing), ([], []), name)


class RolesLive(unittest.TestCase):
    """`check` takes a pod's role from its --disaggregation-mode when its
    labels say only `worker` (issue 38 point 1), so the prefill/decode pair
    rules pair them."""

    def test_pair_from_args(self):
        from base import running
        scen = os.path.join(ROOT, "tests", "cluster", "scenarios", "roles-worker-args.yaml")
        with running(scen) as c:
            rc, out, err = run(["check", "--kubeconfig", c.kubeconfig, "-n", "demo",
                                "-o", "json"])
        doc = json.loads(out)
        roles = {p["role"]: p for p in doc["pods"]}
        self.assertEqual(set(roles), {"prefill", "decode"}, out)
        self.assertEqual(rc, 2, err)
        pd = [c for c in roles["decode"]["checks"] if c["name"] == "fw-pd-parallel"]
        self.assertEqual([c["status"] for c in pd], ["fail"], roles["decode"]["checks"])
        self.assertIn("prefill 3", pd[0]["detail"])
        self.assertIn("decode 2", pd[0]["detail"])


def mooncake_nvlink(pool):
    """nvlink-domain-two as SGLang on Mooncake; pool: the
    SGLANG_MOONCAKE_CUSTOM_MEM_POOL value, or None."""
    scen = os.path.join(ROOT, "tests", "cluster", "scenarios")
    with open(os.path.join(scen, "nvlink-domain-two.yaml")) as f:
        doc = yaml.safe_load(f)
    for p in doc["pods"]:
        role = p["labels"]["nvidia.com/dynamo-sub-component-type"]
        for k in ("profile", "logs"):
            p[k] = os.path.normpath(os.path.join(scen, p[k]))
        p["containers"][0]["image"] = "nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.3.0"
        c = p["spec"]["containers"][0]
        c["command"] = ["python3", "-m", "dynamo.sglang"]
        c["args"] = ["--model-path", "deepseek-ai/DeepSeek-V4.1-Flash", "--disaggregation-mode", role]
        if pool:
            p["env"] = dict(p.get("env") or {}, SGLANG_MOONCAKE_CUSTOM_MEM_POOL=pool)
            c["env"] = [{"name": "SGLANG_MOONCAKE_CUSTOM_MEM_POOL", "value": pool}]
    return doc


class MooncakeNvlinkCase:  # mixin of an E2ECase
    POOL = None
    CHECK = ["-n", "demo"]
    TMP = "mcnvl-"

    @classmethod
    def scenario(cls):
        return cls.write_scenario(mooncake_nvlink(cls.POOL))

    def lines(self):
        return [f for f in self.doc["verdict"]["findings"]
                if f["name"] == "pair-consistency" and "NVLink domain" in f["detail"]]


class MooncakeNvlink(MooncakeNvlinkCase, E2ECase):
    POOL = "NVLINK"

    def test_pair_fails(self):
        self.assertEqual(self.doc["verdict"]["status"], "NOT READY", self.doc["verdict"])
        lines = self.lines()
        self.assertEqual(len(lines), 1, self.doc["verdict"]["findings"])
        self.assertEqual(lines[0]["status"], "fail")
        self.assertIn("Mooncake", lines[0]["detail"])
        self.assertIn("dc6e40c4-d722-4357-9ba6-5291dd461278", lines[0]["detail"])
        self.assertIn("5b1f7a2e-3c4d-4e8f-9a0b-1c2d3e4f5a6b", lines[0]["detail"])


class MooncakeRdma(MooncakeNvlinkCase, E2ECase):
    def test_no_pair_line(self):
        self.assertEqual(self.lines(), [], self.doc["verdict"]["findings"])


if __name__ == "__main__":
    unittest.main()
