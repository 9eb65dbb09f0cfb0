#!/usr/bin/python3
"""Hostile input ends safely (issue 12), through the product and the test
cluster: a server or a pod that sends terminal escapes, a kubeconfig whose
token smuggles a second request, envFrom Secrets, a server that drips,
loops its continue tokens, sends oversized pages or a redirect.  Each test
fails on the code before issue 12.  The classes are run from
test_fault_matrix.py (imported there), so the fault matrix holds them."""
import json
import os
import sys
import tempfile
import unittest

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "cluster"))
from fc import Cluster  # noqa: E402

from plugin import run_timed as run  # noqa: E402

SMALL = os.path.join(HERE, "scenarios", "fault-small.yaml")
SECRET = os.path.join(HERE, "scenarios", "hostile-secret.yaml")
MARGIN = 10


def mutated_kubeconfig(c, mutate):
    """A copy of the cluster's kubeconfig changed by mutate(dict)."""
    with open(c.kubeconfig) as f:
        kc = yaml.safe_load(f)
    mutate(kc)
    path = os.path.join(c.dir, "kubeconfig-%d" % id(mutate))
    with open(path, "w") as f:
        yaml.safe_dump(kc, f)
    os.chmod(path, 0o600)
    return path


def admin(kc):
    return [u for u in kc["users"] if u["name"] == "admin"][0]["user"]


class TestHeaderSmuggling(unittest.TestCase):
    """A CR/LF in a token or header value is refused before anything is sent."""

    @classmethod
    def setUpClass(cls):
        cls.c = Cluster(SMALL)

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()

    def assertRefused(self, argv, header, source):
        before = len(self.c.log())
        rc, out, err, _ = run(argv)
        self.assertEqual(rc, 1, err)
        self.assertIn('net/http: invalid header field value for "%s"' % header, err)
        self.assertIn(source, err)
        self.assertNotIn("DELETE", err)
        self.assertEqual(len(self.c.log()), before, "nothing reached the server")

    def test_token_in_kubeconfig(self):
        tok = self.c.token() + "\r\nDELETE /api/v1/namespaces/faults/pods/normal-0 HTTP/1.1\r\nX: y"
        kc = mutated_kubeconfig(self.c, lambda k: admin(k).update(token=tok))
        for sub in (["pods", "-n", "faults"], ["check", "-n", "faults", "-l", ""],
                    ["node", "--pod", "normal-0", "-n", "faults"]):
            self.assertRefused(sub + ["--kubeconfig", kc], "Authorization",
                               "users[].user.token")

    def test_token_flag(self):
        self.assertRefused(["pods", "-n", "faults", "--kubeconfig", self.c.kubeconfig,
                            "--token", "abc\nX-Evil: 1"], "Authorization", "--token")

    def test_impersonation(self):
        kc = mutated_kubeconfig(self.c, lambda k: admin(k).update(
            **{"as": "alice\r\nImpersonate-Group: system:masters"}))
        self.assertRefused(["pods", "-n", "faults", "--kubeconfig", kc],
                           "Impersonate-User", "users[].user.as")

    def test_proxy_credentials(self):
        def m(k):
            k["clusters"][0]["cluster"]["proxy-url"] = "http://u:p\r\nX: y@127.0.0.1:9"
        kc = mutated_kubeconfig(self.c, m)
        before = len(self.c.log())
        rc, _, err, _ = run(["pods", "-n", "faults", "--kubeconfig", kc])
        self.assertEqual(rc, 1, err)
        self.assertIn("net/url: invalid control character in URL", err)
        self.assertEqual(len(self.c.log()), before)


SENTINELS = ("SENTINELenvfromnoprefix4b1d", "SENTINELenvfromprefix77c2")


class TestEnvFromSecret(unittest.TestCase):
    """Variables from envFrom secretRef are <from secret NAME> everywhere."""

    @classmethod
    def setUpClass(cls):
        cls.c = Cluster(SECRET)

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()

    def test_every_subcommand_and_format(self):
        kc = ["-n", "hostile", "--kubeconfig", self.c.kubeconfig]
        runs = []
        for v in ([], ["-v", "9"]):
            for fmt in ("table", "wide", "json", "yaml"):
                runs.append(["check", "-o", fmt] + v + kc)
                runs.append(["pods", "-o", fmt] + v + kc)
            for fmt in ("table", "json", "yaml"):
                runs.append(["node", "--pod", "hs-prefill-0", "-o", fmt] + v + kc)
                runs.append(["nixl", "--pod", "hs-prefill-0", "-o", fmt] + v + kc)
        shown = ""
        for argv in runs:
            rc, out, err, _ = run(argv)
            if rc == 1 and "unable to match a printer" in err:
                continue   # a format this subcommand does not have
            self.assertIn(rc, (0, 2, 3), (argv, err[-1000:]))
            for s in SENTINELS:
                self.assertNotIn(s, out, argv)
                self.assertNotIn(s, err, argv)
            shown += out
        self.assertTrue(shown, "the runs printed something")
        # the plan and the reports did show the variables, redacted
        self.assertIn("UCX_SOCKADDR_AUTH='<from secret ucx-creds>'", shown)
        # envFrom with a prefix: the last source that matches names it
        self.assertIn("UCX_IB_SECRET_KEY='<from secret nixl-creds>'", shown)
        self.assertIn("UCX_IB_GID_INDEX='<from secret nixl-creds>'", shown)
        # a variable that env sets itself is shown as it is
        self.assertIn("UCX_NET_DEVICES='eth0'", shown)


if __name__ == "__main__":
    unittest.main()
