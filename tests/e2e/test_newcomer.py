#!/usr/bin/python3
"""The first hour of a new user (issue 44): errors before work, only real
findings, and the words a newcomer reads first.  Each test asserts what the
user sees (exit code, the error line, the table's cells), never timing."""
import json
import os
import re
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "cluster"))
from fc import Cluster  # noqa: E402

from plugin import PLUGIN, invoke_stdin, plugin_env, run, script_sha256  # noqa: E402

FAMILY_START = 3    # POD ROLE NODE, then the family columns


class TestErrorsBeforeWork(unittest.TestCase):
    """Issue 44 point 3."""

    @classmethod
    def setUpClass(cls):
        cls.c = Cluster("basic.yaml")

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()

    def kc(self):
        return ["--kubeconfig", self.c.kubeconfig]

    def requests(self, what):
        return [r for r in self.c.log() if what in r.get("path", "")]

    def test_missing_container_is_an_error(self):
        # kube-apiserver pkg/registry/core/pod/strategy.go (ExecLocation,
        # LogLocation): "container %s is not valid for pod %s", 400.
        rc, out, err = run(["check", "-l", "app=multi", "-c", "nope"] + self.kc())
        self.assertEqual(rc, 1, out + err)
        self.assertEqual(out, "")
        self.assertIn("error: container nope is not valid for pod two-containers", err)
        self.assertIn("main, sidecar", err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)

    def test_missing_container_execs_nothing(self):
        before = len(self.requests("/exec"))
        run(["check", "-l", "app=multi", "-c", "nope"] + self.kc())
        self.assertEqual(len(self.requests("/exec")), before)

    def test_bad_pushgateway_refused_before_any_request(self):
        before = len(self.c.log())
        for url in ("ftp://gw:9091", "gw:9091", "http://", "http://gw:9091/x?y"):
            rc, out, err = run(["check", "--pushgateway", url] + self.kc())
            self.assertEqual(rc, 1, (url, out, err))
            self.assertTrue(err.startswith("error: --pushgateway"), (url, err))
            self.assertEqual(len(err.strip().splitlines()), 1, (url, err))
        self.assertEqual(len(self.c.log()), before, "a request was made")

    def test_unprobed_pod_shows_dashes_and_why(self):
        rc, out, err = run(["check", "-l", "app=pending"] + self.kc())
        self.assertEqual(rc, 3, out + err)
        lines = out.splitlines()
        cells = lines[1].split()
        self.assertEqual(cells[0], "pending-0")
        # Every family cell is "-"; the last cell is the verdict.
        self.assertTrue(all(c == "-" for c in cells[FAMILY_START:-1]), lines[:2])
        self.assertEqual(cells[-1], "Unverified")
        why = [l for l in lines if "not probed" in l and "pending-0" in l]
        self.assertEqual(len(why), 1, out)
        self.assertIn("Pending", why[0])

    def test_no_fail_cell_without_a_finding(self):
        rc, out, err = run(["check", "-A", "-l", "app in (pending,multi,crashing)"] + self.kc())
        lines = out.splitlines()
        rows = []
        for l in lines[1:]:
            if not l.strip():
                break
            rows.append(l.split())
        header = lines[0].split()
        for r in rows:
            for h, cell in zip(header, r):
                if cell in ("fail", "warn"):
                    self.assertTrue(re.search(r"^%s .*%s" % (cell, re.escape(r[1])), out, re.M),
                                    "%s %s of %s has no finding line:\n%s" % (h, cell, r[1], out))


if __name__ == "__main__":
    unittest.main()


class TestProbeInPlainSight(unittest.TestCase):
    """Issue 44 point 9: the probe a reviewer is asked to grant pods/exec for."""

    def test_probe_script_is_the_stdin_byte_for_byte(self):
        p = subprocess.run([PLUGIN, "probe-script"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=plugin_env())
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(ROOT, "src", "probe", "probe.sh"), "rb") as f:
            # The bytes each exec's stdin carries (test_frontdoor compares
            # the same with what the test cluster's exec received).
            self.assertEqual(p.stdout, invoke_stdin(f.read()))
        self.assertEqual(p.stderr, b"")

    def test_version_shows_its_sha256(self):
        digest = script_sha256("probe.sh")
        rc, out, err = run(["version"])
        self.assertEqual(rc, 0, err)
        self.assertIn("probe script sha256 " + digest, out)
        rc, out, err = run(["version", "-o", "json"])
        self.assertEqual(json.loads(out)["clientVersion"]["probeScriptSHA256"], digest)

    def test_probe_script_takes_no_argument(self):
        rc, out, err = run(["probe-script", "extra"])
        self.assertEqual(rc, 1)
        self.assertTrue(err.startswith("error: "), err)

    def test_readme_links_it(self):
        with open(os.path.join(ROOT, "README.md")) as f:
            readme = f.read()
        para = [p for p in readme.split("\n\n") if "read-only" in p.lower() and "pods/exec" in p]
        self.assertTrue(para, "no read-only paragraph naming pods/exec")
        self.assertIn("probe-script", "".join(para))
