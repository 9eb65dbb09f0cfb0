#!/usr/bin/python3
"""Connections and trust (issue 16): the pod list and every pods/log GET
ride kept-alive connections from one shared cache (only the exec upgrades
open their own), and the kubeconfig's CA, parsed once into a shared store,
is still the whole trust: every certificate of a bundle counts, a wrong CA
or one that holds no certificate fails the connection.

The connection count is read from the system calls (strace -f -e connect),
not from any timing.

Environment: DI_PLUGIN (the binary; default ./kubectl-dynamo_interconnect).
"""
import base64
import json
import os
import re
import shutil
import subprocess
import unittest

import yaml

from base import E2ECase
from plugin import PLUGIN, plugin_env, run

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "scenarios", "logs.yaml")


def openssl_ca(d, cn):
    key, crt = os.path.join(d, cn + ".key"), os.path.join(d, cn + ".crt")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=" + cn,
                    "-keyout", key, "-out", crt, "-days", "1"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(crt, "rb") as f:
        return f.read()


class TestConnections(E2ECase):
    SCENARIO = SCENARIO
    TMP = "e2e-connreuse-"

    def records(self):
        with open(self.c.logpath) as f:
            return [json.loads(line) for line in f if line.strip()]

    @unittest.skipUnless(shutil.which("strace"), "needs strace")
    def test_log_reads_reuse_connections(self):
        before = len(self.records())
        trace = os.path.join(self.tmp, "connect.trace")
        p = subprocess.run(["strace", "-f", "-qq", "-e", "trace=connect", "-o", trace, PLUGIN,
                            "check", "--kubeconfig", self.c.kubeconfig, "-n", "demo", "-l", "case=healthy",
                            "--parallel", "1", "-o", "json"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120,
                           # LeakSanitizer cannot run under ptrace (the ASan pass of make test)
                           env=plugin_env({"ASAN_OPTIONS": ":".join(
                               x for x in (os.environ.get("ASAN_OPTIONS"), "detect_leaks=0") if x)}))
        self.assertIn(p.returncode, (0, 2, 3), p.stderr)
        recs = self.records()[before:]
        execs = sum(1 for r in recs if r.get("path", "").endswith("/exec"))
        logs = sum(1 for r in recs if r.get("path", "").endswith("/log"))
        lists = sum(1 for r in recs if r.get("path", "").endswith("/pods"))
        self.assertEqual((execs, logs, lists), (2, 2, 1), recs)
        port = "sin_port=htons(%d)" % self.c.port
        with open(trace) as f:
            connects = [l for l in f if "connect(" in l and port in l]
        # One per exec upgrade (CONNECT_ONLY is never shared) plus one
        # for the list and both log reads; without the shared cache each
        # GET opened its own: 5.
        self.assertEqual(len(connects), execs + 1, "".join(connects))

    def kubeconfig_with_ca(self, name, pem):
        with open(self.c.kubeconfig) as f:
            kc = yaml.safe_load(f)
        for cl in kc["clusters"]:
            cl["cluster"].pop("certificate-authority", None)
            cl["cluster"]["certificate-authority-data"] = base64.b64encode(pem).decode()
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            yaml.safe_dump(kc, f)
        return path

    def pods(self, kc):
        return run(["pods", "--kubeconfig", kc, "-n", "demo"])

    def test_every_certificate_of_a_bundle_is_trusted(self):
        with open(self.c.cafile, "rb") as f:
            right = f.read()
        other = openssl_ca(self.tmp, "bundle-other")
        rc, out, err = self.pods(self.kubeconfig_with_ca("bundle.kc", other + b"\n" + right))
        self.assertEqual(rc, 0, err)
        self.assertIn("lg-prefill-0", out)

    def test_wrong_ca_fails(self):
        rc, out, err = self.pods(self.kubeconfig_with_ca("wrong.kc", openssl_ca(self.tmp, "wrong")))
        self.assertNotEqual(rc, 0)
        self.assertTrue(err.startswith("Unable to connect to the server: tls: failed to verify certificate"), err)
        self.assertEqual(out, "")

    def test_ca_without_certificate_fails(self):
        rc, out, err = self.pods(self.kubeconfig_with_ca("empty.kc", b"not a certificate\n"))
        self.assertNotEqual(rc, 0)
        self.assertTrue(re.match(r"^(error: |Unable to connect to the server: ).*", err), err)
        self.assertEqual(out, "")


if __name__ == "__main__":
    unittest.main()
