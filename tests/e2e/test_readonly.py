#!/usr/bin/python3
"""Read-only proof: every subcommand, with ordinary and hostile arguments
(names and selectors with quotes, semicolons, `$(...)`, spaces, -c values),
runs against the test cluster with --log, and every request it made is a GET
to an allowed path (pods list/get, pods/log, namespaces, the pods/exec
upgrade), and every exec command is exactly the constant ["sh", "-s"] with
stdin=true, and the bytes the command got on its stdin are the embedded
probe, src/probe/probe.sh byte for byte, in the fixed wrapper of
src/probe/invoke.h.  Nothing the user typed ever reaches a command line.  `env` reads files only: it makes no request.
"""
import hashlib
import os
import re
import subprocess
import tempfile
import unittest
import urllib.parse

from base import ROOT, E2ECase
from plugin import PLUGIN, invoke_stdin, run, script_bytes

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "scenarios", "readonly.yaml")
with open(os.path.join(ROOT, "src", "probe", "probe.sh"), "rb") as _f:
    PROBE_BYTES = _f.read()
PROBE = PROBE_BYTES.decode()
PROBE_STDIN = invoke_stdin(script_bytes("probe.sh"))  # as embedded: comment lines dropped

SEG = r"[^/?]+"
ALLOWED = [re.compile("^%s$" % p) for p in (
    r"/api/v1/pods",
    r"/api/v1/namespaces",
    r"/api/v1/namespaces/%s" % SEG,
    r"/api/v1/namespaces/%s/pods" % SEG,
    r"/api/v1/namespaces/%s/pods/%s" % (SEG, SEG),
    r"/api/v1/namespaces/%s/pods/%s/log" % (SEG, SEG),
    r"/api/v1/namespaces/%s/pods/%s/exec" % (SEG, SEG),
    # check LISTs the DynamoGraphDeployments (docs/checks.md P), GET only
    r"/apis/nvidia\.com/v1(beta1|alpha1)/namespaces/%s/dynamographdeployments" % SEG,
    r"/apis/nvidia\.com/v1(beta1|alpha1)/dynamographdeployments",
)]

HOSTILE = ['a"b', "x'; rm -rf / #", "$(touch /tmp/di-pwned)", "`id`", "a b", "a;b|c&d",
           "../../etc/passwd", "w-decode-0\nHost: evil", "%2e%2e", "-rf"]




class TestReadOnly(E2ECase):
    SCENARIO = SCENARIO

    @classmethod
    def fixture(cls):
        kc = ["--kubeconfig", cls.c.kubeconfig]
        base = [
            ["check"], ["check", "-A"], ["check", "-o", "json", "-n", "ro"],
            ["check", "-o", "wide", "-c", "main"], ["pods"], ["pods", "-A", "-o", "wide"],
            ["node", "--pod", "w-decode-0"], ["node", "--pod", "w-two", "-n", "other", "-c", "sidecar"],
            ["nixl", "--pod", "w-prefill-0"], ["nixl", "--pod", "w-decode-0", "-o", "json"],
            ["check", "-l", "nvidia.com/dynamo-component-type in (prefill, decode)"],
        ]
        hostile = []
        for h in HOSTILE:
            hostile += [["check", "-l", h], ["check", "-c", h], ["check", "-n", h],
                        ["pods", "-l", h], ["pods", "-n", h],
                        ["node", "--pod", h], ["node", "--pod", "w-decode-0", "-c", h],
                        ["nixl", "--pod", h], ["nixl", "--pod", "w-prefill-0", "-c", h]]
        hostile.append(["check", "-A", "-l", "app notin (a,b), !x, y!=z"])
        hostile.append(["check", "--field-selector", "metadata.name=$(id)"])
        cls.results = []
        for argv in base + hostile:
            argv = argv + kc
            cls.results.append((argv, run(argv)))
        cls.reqs = cls.c.log()

    def test_ran_and_probed(self):
        self.assertFalse(os.path.exists("/tmp/di-pwned"))
        for argv, (rc, out, err) in self.results:
            self.assertNotIn("Traceback", err)
            self.assertIn(rc, (0, 1, 2, 3), (argv, err))
        self.assertTrue(any(q["path"].endswith("/exec") for q in self.reqs))

    def test_only_gets_to_allowed_paths(self):
        self.assertTrue(self.reqs)
        for q in self.reqs:
            self.assertEqual(q["method"], "GET", q)
            path = q["path"]
            self.assertTrue(any(a.match(path) for a in ALLOWED), path)

    def test_exec_is_exactly_the_probe(self):
        execs = [q for q in self.reqs if q["path"].endswith("/exec")]
        self.assertTrue(execs)
        want = hashlib.sha256(PROBE_STDIN).hexdigest()
        ran = [q for q in execs if q.get("status") == 101 and q.get("end") == "ok"]
        self.assertTrue(ran)
        for q in execs:
            self.assertEqual(q.get("command"), ["sh", "-s"],
                             "exec of something other than the fixed probe command")
            query = urllib.parse.parse_qs(q["raw_query"], keep_blank_values=True)
            self.assertEqual(query["command"], ["sh", "-s"])
            self.assertEqual(query.get("stdin"), ["true"])
            self.assertNotIn("tty", query)
            self.assertEqual(set(query) - {"command", "container", "stdout", "stderr", "stdin", "tty"},
                             set(), query.keys())
        for q in ran:
            # what reached the shell is the embedded probe, nothing else
            self.assertEqual((q.get("stdin_bytes"), q.get("stdin_sha256")), (len(PROBE_STDIN), want), q)

    def test_hostile_text_never_in_a_command(self):
        for q in self.reqs:
            for cmd in [q.get("command") or []]:
                for h in HOSTILE:
                    for a in cmd:
                        if h not in PROBE:
                            self.assertNotIn(h, a)

    def test_env_makes_no_request(self):
        before = len(self.c.log())
        with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
            f.write("apiVersion: nvidia.com/v1alpha1\nkind: DynamoGraphDeployment\n"
                    "metadata: {name: x}\nspec: {services: {}}\n")
            f.flush()
            for fmt in ("table", "json", "yaml"):
                run(["env", f.name, "-o", fmt, "--kubeconfig", self.c.kubeconfig])
        self.assertEqual(len(self.c.log()), before)


if __name__ == "__main__":
    unittest.main()
