#!/usr/bin/python3
"""`env` on Dynamo's disaggregated recipes as they are today (issue 38 point
6): tests/fixtures/recipes/today-2026-12-07/, copied verbatim from
ai-dynamo/dynamo (tests/fixtures/SOURCES.md), judged against expected.yaml
there, which was written from reading each recipe against the sources before
the tool was run.  Every finding the tool gives must be listed there and
every listed one given: a finding a recipe author should not act on fails
this test.  No cluster needed for that; RolesLive runs `check` on the test
cluster's roles-worker-args scenario (pods labelled `worker` only, the role
in their args).
"""
import json
import os
import unittest

import yaml

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


if __name__ == "__main__":
    unittest.main()
