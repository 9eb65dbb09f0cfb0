#!/usr/bin/python3
"""Secrets canary: a kubeconfig token, a client key, an exec-plugin token,
pod env vars named like secrets (HF_TOKEN, AWS_SECRET_ACCESS_KEY), a value
of an envFrom Secret, transport-prefixed variables whose value comes from a
Secret, and a recipe with a Secret document all carry unique canary
strings.  Every subcommand, with every output format and -v 9, runs in an
empty working directory with an empty HOME; no canary may appear on stdout,
stderr or in any file written there.
"""
import base64
import os
import subprocess
import unittest

from base import E2ECase
from plugin import PLUGIN

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "scenarios", "canary.yaml")
RECIPE = os.path.join(HERE, "scenarios", "canary-recipe")

# Every canary contains this marker, so a single search finds any of them
# (and a partial leak, e.g. a masked prefix, still shows the marker).
CANARIES = [
    "CANARYkubeconfigtoken8d1f", "CANARYexecplugintoken3a6c",
    "hf_CANARYhftoken7f3a91", "CANARYawssecret2b8e44", "CANARYawskeyid91c0",
    "CANARYenvfromsecret5d2a", "CANARYucxfromsecret0e77", "CANARYucxnetdevsecret11aa", "CANARYnixlsecretkeyref4c19",
    "hf_CANARYrecipesecret61be", "CANARYrecipeb64secret77", "Q0FOQVJZcmVjaXBlYjY0c2VjcmV0Nzc",
    "hf_CANARYrecipeargs93d0",
]
FORMATS = {"check": ["table", "wide", "json", "yaml"], "pods": ["table", "wide", "json", "yaml"],
           "node": ["table", "json", "yaml"], "nixl": ["table", "json", "yaml"],
           "env": ["table", "json", "yaml"]}


class TestCanary(E2ECase):
    SCENARIO = SCENARIO
    TMP = "di-canary-"    # the working directory of every run

    @classmethod
    def fixture(cls):
        cls.home = os.path.join(cls.tmp, "home")
        os.mkdir(cls.home)
        # the client key: the base64 lines of the PEM body are canaries too
        key = base64.b64decode(cls.c.users["cert-user"]["client-key-data"]).decode()
        cls.key_lines = [l for l in key.splitlines() if l and not l.startswith("-----")]
        cls.canaries = CANARIES + cls.key_lines + [cls.c.users["cert-user"]["client-key-data"][:40]]
        cls.outputs = []

    def run_all(self, argvs):
        e = dict(os.environ, HOME=self.home)
        e.pop("KUBECONFIG", None)
        for argv in argvs:
            p = subprocess.run([PLUGIN] + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=e, cwd=self.tmp, timeout=120)
            self.outputs.append((argv, p.returncode, p.stdout.decode(errors="replace"),
                                 p.stderr.decode(errors="replace")))

    def assertNoCanary(self):
        for argv, rc, out, err in self.outputs:
            self.assertIn(rc, (0, 1, 2, 3), (argv, err[-2000:]))
            for name, text in (("stdout", out), ("stderr", err)):
                self.assertNotIn("CANARY", text, (argv, name))
                for k in self.key_lines:
                    self.assertNotIn(k, text, (argv, name, "client key"))
        for d, _, files in os.walk(self.tmp):
            for f in files:
                with open(os.path.join(d, f), "rb") as fh:
                    data = fh.read()
                for k in ["CANARY"] + self.key_lines:
                    self.assertNotIn(k.encode(), data, os.path.join(d, f))

    def test_every_subcommand_every_format(self):
        kc = ["--kubeconfig", self.c.kubeconfig]
        argvs = []
        for ctx in ([], ["--context", "fakecluster-plugin-user"], ["--context", "fakecluster-cert-user"]):
            for v in ([], ["-v", "9"]):
                for fmt in FORMATS["check"]:
                    argvs.append(["check", "-o", fmt] + v + ctx + kc)
                for fmt in FORMATS["pods"]:
                    argvs.append(["pods", "-o", fmt] + v + ctx + kc)
                for fmt in FORMATS["node"]:
                    argvs.append(["node", "--pod", "canary-prefill-0", "-o", fmt] + v + ctx + kc)
                for fmt in FORMATS["nixl"]:
                    argvs.append(["nixl", "--pod", "canary-prefill-0", "-o", fmt] + v + ctx + kc)
        for v in ([], ["-v", "9"]):
            for fmt in FORMATS["env"]:
                argvs.append(["env", RECIPE, "-o", fmt] + v)
        self.run_all(argvs)
        # the runs did reach the pods (or the test proves nothing)
        probed = [o for o in self.outputs if o[0][:3] == ["check", "-o", "json"]]
        self.assertTrue(probed and '"probed":\ttrue' in probed[0][2].replace(": ", ":\t"),
                        probed and probed[0][3])
        verbose = [o for o in self.outputs if "-v" in o[0] and o[0][0] == "check"]
        self.assertTrue(any("Authorization: Bearer" in o[3] for o in verbose),
                        "-v 9 logs the (masked) header, so the test looks where a leak would be")
        self.assertNoCanary()


if __name__ == "__main__":
    unittest.main()
