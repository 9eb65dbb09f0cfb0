#!/usr/bin/python3
"""`env RECIPE_PATH`: golden table and JSON output for chosen upstream recipes
(both schemas, anchors, flow style, shell args, EFA, MNNVL, agg with nothing
set), the whole fixtures tree, malformed files beside good ones, and the
promise that Secret data is never printed.  No cluster needed.

Regenerate the goldens with UPDATE_GOLDEN=1 (then read the diff).
"""
import json
import os
import subprocess
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from plugin import PLUGIN, run  # noqa: E402
GOLDEN = os.path.join(ROOT, "tests", "e2e", "golden", "env")
EXIT = {"READY": 0, "NOT READY": 2, "UNVERIFIED": 3}


def fixtures():
    d = os.path.join(ROOT, "tests", "fixtures", "recipes")
    return os.path.realpath(d) if os.path.isdir(d) else None


FIX = fixtures()

# name -> recipe (relative to the fixtures root, so outputs do not depend on
# where the tree lives)
CASES = {
    "v1alpha1-ib": "qwen3-32b-fp8/vllm/disagg/deploy.yaml",
    "v1beta1-graph-env": "nemotron-3-ultra/vllm/disagg-b200-agentic/deploy.yaml",
    "anchors": "kustomize/components/disagg-workers/rdma-defaults/patch-dgd.yaml",
    "flow-mnnvl": "qwen3.8-2.4t-a95b-fp8/sglang/disagg-gb200-chat/deploy.yaml",
    "shell-args": "glm-5.2/sglang/disagg-h200-agentic/deploy.yaml",
    "efa": "qwen3-32b/vllm/cloud-providers/deploy-aws-p5.48xlarge.yaml",
    "mnnvl-trtllm": "deepseek-r1/trtllm/disagg/wide_ep/gb200/deploy.yaml",
    "agg-nothing-set": "llama-3-70b/vllm/agg/deploy.yaml",
}




class TestEnvGolden(unittest.TestCase):
    def test_fixtures_present(self):
        # A missing fixtures tree must fail, not skip.
        self.assertIsNotNone(FIX, "tests/fixtures/recipes not found")

    def check_golden(self, name, text):
        path = os.path.join(GOLDEN, name)
        if os.environ.get("UPDATE_GOLDEN"):
            with open(path, "w") as f:
                f.write(text)
        with open(path) as f:
            self.assertEqual(text, f.read(), name)

    def test_goldens(self):
        self.assertIsNotNone(FIX)
        for name, rel in CASES.items():
            with self.subTest(name=name):
                rc, out, err = run(["env", rel], cwd=FIX)
                self.assertEqual(err, "")
                self.check_golden(name + ".txt", out + "exit: %d\n" % rc)
                rc2, js, err = run(["env", rel, "-o", "json"], cwd=FIX)
                self.assertEqual(rc, rc2)
                doc = json.loads(js)
                self.assertEqual(doc["kind"], "RecipeEnvReport")
                self.assertEqual(doc["verdict"]["exitCode"], rc)
                self.assertEqual(EXIT[doc["verdict"]["status"]], rc)
                for c in doc["components"]:
                    for k in ("file", "graph", "name", "role", "env", "findings"):
                        self.assertIn(k, c)
                    for f in c["findings"]:
                        self.assertIn(f["status"], ("ok", "warn", "fail"))
                        self.assertTrue(f["remedy"])
                self.check_golden(name + ".json", js)

    def test_yaml_output(self):
        rc, out, err = run(["env", CASES["v1alpha1-ib"], "-o", "yaml"], cwd=FIX)
        self.assertEqual(rc, 0, err)
        self.assertIn("kind: RecipeEnvReport", out)
        self.assertIn("UCX_IB_ADDR_TYPE", out)


class TestCheckRecipe(unittest.TestCase):
    """check --recipe against the canary scenario: recipe vs pod spec vs the
    running process, drift as findings, and no Secret value anywhere."""

    def test_drift_and_canaries(self):
        from base import running
        scen = os.path.join(ROOT, "tests", "e2e", "scenarios")
        with running(os.path.join(scen, "canary.yaml")) as c:
            base = ["check", "--kubeconfig", c.kubeconfig,
                    "--recipe", os.path.join(scen, "canary-recipe")]
            rc, out, err = run(base)
            self.assertIn(rc, (2, 3), err)
            self.assertNotIn("CANARY", out + err)
            self.assertIn("Transport env: recipe", out)
            self.assertRegex(out, r"warn canary-prefill-0: VllmPrefillWorker: recipe sets "
                             r"UCX_RNDV_SCHEME=get_zcopy, the running process has it unset")
            self.assertIn("no component of graph canary with role decode", out)
            self.assertNotIn("NIXL_TELEMETRY", out)
            rc2, js, err = run(base + ["-o", "json"])
            self.assertEqual(rc, rc2)
            self.assertNotIn("CANARY", js + err)
            doc = json.loads(js)   # nothing appended to the document
            # Drift is in the report itself, per pod, like any check.
            drift = {p["name"]: [c for c in p["checks"] if c["name"] == "env-drift"]
                     for p in doc["pods"]}
            self.assertTrue(any("UCX_RNDV_SCHEME=get_zcopy" in c["detail"]
                                for c in drift["canary-prefill-0"]), drift)
            self.assertEqual(drift["canary-decode-0"][0]["status"], "warn")
            self.assertTrue(all(c["family"] == "ENV" for cs in drift.values() for c in cs))


class TestEnvTree(unittest.TestCase):
    def test_whole_tree(self):
        self.assertIsNotNone(FIX)
        t0 = time.monotonic()
        rc, out, err = run(["env", FIX, "-o", "json"])
        took = time.monotonic() - t0
        self.assertEqual(err, "")
        doc = json.loads(out)
        self.assertEqual(doc["errors"], [])
        self.assertGreaterEqual(doc["files"], 290)
        self.assertIn(rc, (2, 3))
        # Kustomize overlays are rendered (one FILE per overlay); their
        # patch files and included bases are not graphs of their own.
        files = {c["file"] for c in doc["components"]}
        self.assertFalse([f for f in files if f.endswith("patch-dgd.yaml")])
        self.assertFalse([f for f in files if "/kustomize/base" in f])
        self.assertEqual(len([f for f in files if "/kustomize/overlays/" in f]), 9)
        # A figure, not an assertion: speed is make bench's business.
        print("ok env over the fixtures tree: %d files, %d workers, %.2f s"
              % (doc["files"], len(doc["components"]), took))

    def test_bad_file_beside_good(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "a-bad.yaml"), "w") as f:
                f.write("kind: DynamoGraphDeployment\nspec:\n  services: [\n  x: {\n")
            with open(os.path.join(d, "b-bomb.yaml"), "w") as f:
                f.write("a: &a [x,x,x,x,x,x,x,x,x,x]\n")
                for i, c in enumerate("bcdefgh"):
                    prev = "abcdefgh"[i]
                    f.write("%s: &%s [%s]\n" % (c, c, ",".join(["*" + prev] * 10)))
            with open(os.path.join(d, "c-good.yaml"), "w") as f:
                f.write("kind: DynamoGraphDeployment\nmetadata: {name: g}\nspec:\n  services:\n"
                        "    w: {componentType: worker, extraPodSpec: {mainContainer: {env: "
                        "[{name: UCX_TLS, value: tcp}]}}}\n")
            rc, out, err = run(["env", d])
            self.assertEqual(rc, 1)
            lines = err.splitlines()
            self.assertEqual(len(lines), 2, err)
            self.assertRegex(lines[0], r"^error: .*a-bad\.yaml:\d+:\d+: ")
            self.assertRegex(lines[1], r"^error: .*b-bomb\.yaml:\d+:\d+: .*alias")
            self.assertIn("UCX_TLS=tcp", out)

    def test_secret_never_printed(self):
        canary = "CANARY-5f4dcc3b5aa765d61d8327deb882cf99"
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "s.yaml")
            with open(p, "w") as f:
                f.write("kind: Secret\nmetadata: {name: hf}\nstringData: {UCX_TLS: %s}\n---\n"
                        "kind: DynamoGraphDeployment\nmetadata: {name: g}\nspec:\n  services:\n"
                        "    w:\n      componentType: worker\n      envFromSecret: hf\n"
                        "      extraPodSpec: {mainContainer: {env: [\n"
                        "        {name: HF_TOKEN, value: %s},\n"
                        "        {name: UCX_TLS, valueFrom: {secretKeyRef: {name: hf, key: UCX_TLS}}}]}}\n"
                        % (canary, canary))
            for o in ("table", "json", "yaml"):
                rc, out, err = run(["env", p, "-o", o])
                self.assertNotIn(canary, out + err)
                self.assertIn("<from secret hf>", out)

    def test_usage_errors(self):
        rc, out, err = run(["env"])
        self.assertEqual(rc, 1)
        self.assertIn("RECIPE_PATH", err)
        rc, out, err = run(["env", "/nonexistent/recipe"])
        self.assertEqual(rc, 1)
        self.assertTrue(err.startswith("error: "))
        rc, out, err = run(["env", "x", "-o", "wide"])
        self.assertEqual(rc, 1)


KUST = "qwen3-32b/vllm/cloud-providers/kustomize"
OVERLAYS = ("aks-ib", "aws-p5.48xlarge", "gke-roce", "nebius-ib", "nscale-ib")


def workers(doc):
    return [c for c in doc["components"] if c["role"] in ("prefill", "decode", "worker")]


class TestEnvKustomize(unittest.TestCase):
    """`env` renders kustomize overlays as `kustomize build` would."""

    def test_overlay(self):
        self.assertIsNotNone(FIX)
        ov = os.path.join(FIX, KUST, "overlays", "aws-p5.48xlarge")
        rc, out, err = run(["env", ov, "-o", "json"])
        self.assertEqual(err, "")
        doc = json.loads(out)
        self.assertEqual(doc["errors"], [])
        ws = workers(doc)
        self.assertEqual(sorted(w["name"] for w in ws), ["DecodeWorker", "PrefillWorker"])
        for w in ws:
            self.assertEqual(w["file"], ov)
            self.assertEqual(w["graph"], "q32b-1p1d-cloud-provider")
            self.assertEqual(w["fabric"], "efa")   # aws-efa-p16d16 (recipes/kustomize)
            env = {e["name"]: e["value"] for e in w["env"]}
            self.assertEqual(env.get("FI_PROVIDER"), "efa")
        self.assertNotEqual(doc["verdict"]["status"], "UNVERIFIED")
        rc, out, err = run(["env", ov])
        self.assertEqual(len([ln for ln in out.splitlines() if ln.startswith(ov + " ")]), 2, out)

    def test_kustomize_root(self):
        self.assertIsNotNone(FIX)
        rc, out, err = run(["env", KUST], cwd=FIX)
        self.assertEqual(err, "")
        # FILE is relative to the directory argument (issue 44 point 10).
        rows = [ln.split() for ln in out.splitlines() if ln.startswith("overlays/") and "Worker" in ln]
        self.assertEqual(len(rows), 2 * len(OVERLAYS), out)
        self.assertEqual(sorted({r[0] for r in rows}),
                         ["overlays/" + o for o in OVERLAYS])
        self.assertNotIn("patch-dgd", out)
        self.assertNotIn("/base", out)

    def test_missing_components(self):
        # The overlays without the recipes' top-level kustomize/ directory
        # (copied alone): what they name is not there, and that is said.
        self.assertIsNotNone(FIX)
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(FIX, KUST)
            for dp, _, fs in os.walk(src):
                out_dir = os.path.join(d, os.path.relpath(dp, src))
                os.makedirs(out_dir, exist_ok=True)
                for f in fs:
                    with open(os.path.join(dp, f)) as i, open(os.path.join(out_dir, f), "w") as o:
                        o.write(i.read())
            rc, out, err = run(["env", d])
            self.assertEqual(err, "")
            self.assertEqual(rc, 3, out)   # warnings: nothing silently passes
            ov = "overlays/aws-p5.48xlarge"    # relative to the argument (issue 44 point 10)
            want = ("warn %s q32b-1p1d-cloud-provider/DecodeWorker: component "
                    "../../../../../../kustomize/components/aws-efa-p16d16 not found: "
                    "its patches are not applied" % ov)
            self.assertIn(want, out.splitlines())
            self.assertIn("kustomize build", out)   # the remedy
            rc, js, err = run(["env", d, "-o", "json"])
            doc = json.loads(js)
            for w in workers(doc):
                self.assertTrue(any("not found" in f["detail"] and f["status"] == "warn"
                                    for f in w["findings"]), w)

    def test_cycle(self):
        with tempfile.TemporaryDirectory() as d:
            for name, other in (("a", "b"), ("b", "a")):
                os.makedirs(os.path.join(d, name))
                with open(os.path.join(d, name, "kustomization.yaml"), "w") as f:
                    f.write("resources: [../%s]\n" % other)
            rc, out, err = run(["env", d])
            self.assertEqual(rc, 1)
            self.assertIn("kustomization cycle", err)


if __name__ == "__main__":
    unittest.main()
