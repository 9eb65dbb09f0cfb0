#!/usr/bin/python3
"""Issue 44 point 5: `check --suggest-env` prints, per DynamoGraphDeployment
component whose pods have a suggested value, a `kubectl patch --type=json`
line computed from the env list read from the DGD: `replace` at the index
of a variable the list has, `add .../-` for a new one, `test` ops first so
a DGD changed since it was read is refused.  The printed line is run with
the real kubectl (`--local -f`, offline) against the DGD the cluster
served, and the patched env is checked.

Expected, written before the tool ran: on nicgpu-hgx-h200-all (both pods
suggest the 8 rails for UCX_NET_DEVICES, test_nicgpu.py):
- v1beta1, prefill's main container (the second, after a sidecar) has
  [A=1, UCX_NET_DEVICES=all, C=3]: UCX_NET_DEVICES replaced at index 1, A
  and C kept, the sidecar untouched; decode's main has [B=2]: the rails
  appended after B.
- v1alpha1, prefill's service envs [UCX_NET_DEVICES=all]: replaced; decode
  has no envs: the list is made with the one entry.
- The same patch on a DGD whose prefill env was reordered since, or whose
  components were swapped, is refused by kubectl (exit 1, "test failed")."""
import copy
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "cluster"))
from fc import Cluster  # noqa: E402

from plugin import run  # noqa: E402
from test_nicsel import result, suggestion  # noqa: E402

SCENARIOS = os.path.join(ROOT, "tests", "cluster", "scenarios")
KUBECTL = shutil.which("kubectl")


def env(*pairs):
    return [{"name": n, "value": v} for n, v in pairs]


BETA = {
    "apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
    "metadata": {"name": "qwen", "namespace": "demo"},
    "spec": {"components": [
        {"name": "VllmPrefillWorker", "type": "prefill", "replicas": 1,
         "podTemplate": {"spec": {"containers": [
             {"name": "sidecar", "env": env(("UCX_NET_DEVICES", "sidecar"))},
             {"name": "main", "env": env(("A", "1"), ("UCX_NET_DEVICES", "all"), ("C", "3"))}]}}},
        {"name": "VllmDecodeWorker", "type": "decode", "replicas": 1,
         "podTemplate": {"spec": {"containers": [{"name": "main", "env": env(("B", "2"))}]}}}]}}

ALPHA = {
    "apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment",
    "metadata": {"name": "qwen", "namespace": "demo"},
    "spec": {"services": {
        "VllmPrefillWorker": {"componentType": "worker", "subComponentType": "prefill",
                              "replicas": 1, "envs": env(("UCX_NET_DEVICES", "all"))},
        "VllmDecodeWorker": {"componentType": "worker", "subComponentType": "decode",
                             "replicas": 1}}}}


def scenario(tmp, dgd):
    with open(os.path.join(SCENARIOS, "nicgpu-hgx-h200-all.yaml")) as f:
        sc = yaml.safe_load(f)
    for p in sc["pods"]:
        p["profile"] = os.path.normpath(os.path.join(SCENARIOS, p["profile"]))
        p["logs"] = os.path.join(SCENARIOS, p["logs"])
    sc["dynamoGraphDeployments"] = [dgd]
    path = os.path.join(tmp, "sc.yaml")
    with open(path, "w") as f:
        yaml.safe_dump(sc, f)
    return path


def patch_lines(out):
    return [l for l in out.splitlines() if l.startswith("kubectl patch ")]


def apply(line, obj, tmp):
    """kubectl's answer to the printed line on obj offline: (rc, obj, err)."""
    argv = shlex.split(line)
    self_p = argv[argv.index("-p") + 1]
    self_t = argv[argv.index("--type=json")]
    path = os.path.join(tmp, "dgd.yaml")
    with open(path, "w") as f:
        yaml.safe_dump(obj, f)
    p = subprocess.run([KUBECTL, "patch", "--local", "-f", path, self_t, "-p", self_p, "-o", "json"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    return p.returncode, json.loads(p.stdout) if p.returncode == 0 else None, p.stderr.decode()


def names_values(lst):
    return [(e["name"], e.get("value")) for e in lst or []]


class PatchCase:
    DGD = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="di-patch-")
        cls.c = Cluster(scenario(cls.tmp, cls.DGD))
        kc = ["--kubeconfig", cls.c.kubeconfig, "-n", "demo"]
        doc = json.loads(run(["check", "-o", "json"] + kc, timeout=300)[1])
        cls.rails = {p["name"]: suggestion(result(p)) for p in doc["pods"]}
        cls.rc, cls.out, cls.err = run(["check", "--suggest-env"] + kc, timeout=300)

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def rail(self):
        vals = set(self.rails.values())
        self.assertEqual(len(vals), 1, self.rails)
        return vals.pop()

    def lines(self):
        got = patch_lines(self.out)
        self.assertEqual(len(got), 2, self.out)   # one per component
        for l in got:
            self.assertIn("dynamographdeployments.%s.nvidia.com qwen -n demo --type=json -p '"
                          % self.DGD["apiVersion"].split("/")[1], l)
        return got

    def patched(self):
        obj = copy.deepcopy(self.DGD)
        for l in self.lines():
            rc, obj, err = apply(l, obj, self.tmp)
            self.assertEqual(rc, 0, (l, err))
        return obj

    def test_test_ops_come_first(self):
        for l in self.lines():
            ops = json.loads(shlex.split(l)[-1])
            self.assertEqual(ops[0]["op"], "test", ops)
            changed = [i for i, o in enumerate(ops) if o["op"] != "test"]
            for i in changed:
                if ops[i]["op"] == "replace":
                    self.assertEqual(ops[i - 1], {"op": "test", "path": ops[i]["path"] + "/name",
                                                  "value": ops[i]["value"]["name"]})


@unittest.skipUnless(KUBECTL, "kubectl is not installed")
class TestPatchBeta(PatchCase, unittest.TestCase):
    DGD = BETA

    def test_patched_env(self):
        obj = self.patched()
        pre, dec = obj["spec"]["components"]
        r = self.rail()
        self.assertEqual(names_values(pre["podTemplate"]["spec"]["containers"][1]["env"]),
                         [("A", "1"), ("UCX_NET_DEVICES", r), ("C", "3")])
        self.assertEqual(pre["podTemplate"]["spec"]["containers"][0],
                         BETA["spec"]["components"][0]["podTemplate"]["spec"]["containers"][0])
        self.assertEqual(names_values(dec["podTemplate"]["spec"]["containers"][0]["env"]),
                         [("B", "2"), ("UCX_NET_DEVICES", r)])

    def test_changed_dgd_is_refused(self):
        moved = copy.deepcopy(BETA)
        e = moved["spec"]["components"][0]["podTemplate"]["spec"]["containers"][1]["env"]
        e.insert(0, e.pop())                           # C=3 now first
        swapped = copy.deepcopy(BETA)
        swapped["spec"]["components"].reverse()
        pre, dec = self.lines()
        for obj, line in ((moved, pre), (swapped, pre), (swapped, dec)):
            rc, _, err = apply(line, obj, self.tmp)
            self.assertEqual(rc, 1, line)
            self.assertIn("test failed", err)

    def test_append_keeps_an_entry_added_since(self):
        # RFC 6902 cannot test that an index is absent: an entry added
        # since is kept, the suggestion goes after it (nothing clobbered).
        grown = copy.deepcopy(BETA)
        grown["spec"]["components"][1]["podTemplate"]["spec"]["containers"][0]["env"].append(
            {"name": "D", "value": "4"})
        rc, obj, err = apply(self.lines()[1], grown, self.tmp)
        self.assertEqual(rc, 0, err)
        self.assertEqual(names_values(obj["spec"]["components"][1]["podTemplate"]["spec"][
            "containers"][0]["env"]), [("B", "2"), ("D", "4"), ("UCX_NET_DEVICES", self.rail())])


@unittest.skipUnless(KUBECTL, "kubectl is not installed")
class TestPatchAlpha(PatchCase, unittest.TestCase):
    DGD = ALPHA

    def test_service_remade_is_refused(self):
        remade = copy.deepcopy(ALPHA)
        remade["spec"]["services"]["VllmDecodeWorker"]["componentType"] = "frontend"
        line = [l for l in self.lines() if "/VllmDecodeWorker/" in l][0]
        rc, _, err = apply(line, remade, self.tmp)
        self.assertEqual(rc, 1, err)
        self.assertIn("test failed", err)

    def test_patched_env(self):
        obj = self.patched()
        svcs = obj["spec"]["services"]
        r = self.rail()
        self.assertEqual(names_values(svcs["VllmPrefillWorker"]["envs"]), [("UCX_NET_DEVICES", r)])
        self.assertEqual(names_values(svcs["VllmDecodeWorker"]["envs"]), [("UCX_NET_DEVICES", r)])


class TestNoDgdNoPatch(unittest.TestCase):
    def test_demo_has_no_dgd(self):
        c = Cluster("demo.yaml")
        try:
            out = run(["check", "--suggest-env", "-n", "demo", "--kubeconfig", c.kubeconfig])[1]
        finally:
            c.cleanup()
        self.assertEqual(patch_lines(out), [])
        self.assertNotIn("JSON patch", out)


if __name__ == "__main__":
    unittest.main()
