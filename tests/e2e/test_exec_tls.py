#!/usr/bin/python3
"""The exec connections' own TLS (issue 16 item 3, src/kube/tls/tlsconn.c): one
shared TLS context whose session cache makes N execs cost one full
handshake, and everything curl did for the server's TLS still holds on the
exec path: tls-server-name (sent as SNI, checked against the certificate),
insecure-skip-tls-verify, client-certificate authentication.

Handshakes are counted by the test cluster (its --log records carry `tls`:
full or resumed, and `sni`; tests/cluster/fc_tls.py), never timed.  The
cases where only the exec connection could fail (a wrong CA, a name or IP
mismatch, an expired certificate, a server that hangs or drops, an HTTPS
proxy) are in tests/unit/test_tlsconn.c, against an in-process server.

Environment: DI_PLUGIN (the binary; default ./kubectl-dynamo_interconnect).
"""
import json
import os
import unittest

import yaml

from base import ROOT, E2ECase
from plugin import run

PODS = 12
NS = "tls"


def scenario_doc(n=PODS):
    """The scenario of n pods with canned exec output (no sandboxes:
    --latency-ms 0), and a client-certificate user."""
    profile = os.path.join(ROOT, "tests", "cluster", "profiles", "canned")
    pods = [{"name": "tls-%s-%d" % ("prefill" if i % 2 == 0 else "decode", i),
             "node": "gpu-%d" % (i // 2), "profile": profile,
             "labels": {"nvidia.com/dynamo-component-type": "prefill" if i % 2 == 0 else "decode"}}
            for i in range(n)]
    users = [{"name": "cert-user", "clientCert": True,
              "allow": ["list-pods", "get-pods", "exec", "logs", "list-namespaces"]}]
    return {"namespace": NS, "pods": pods, "users": users}


class TestExecTls(E2ECase):
    SCENARIO = scenario_doc()
    TMP = "e2e-exec-tls-"
    LATENCY = 0

    def kubeconfig(self, name, change):
        with open(self.c.kubeconfig) as f:
            kc = yaml.safe_load(f)
        for cl in kc["clusters"]:
            change(cl["cluster"])
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            yaml.safe_dump(kc, f)
        return path

    def check(self, kc, *extra):
        """Runs check on every pod; returns the exec records of this run."""
        before = len(self.c.log())
        rc, out, err = run(["check", "--kubeconfig", kc, "-n", NS, "-l", "", "--parallel", str(PODS),
                            "--logs=false", "-o", "json"] + list(extra))
        # The canned output is not a probe report: every pod is judged
        # unprobed, which is beside the point here; the exec itself ran.
        self.assertIn(rc, (0, 2, 3), err)
        self.assertEqual(len(json.loads(out)["pods"]), PODS, out[-500:])
        execs = [r for r in self.c.log()[before:] if r.get("path", "").endswith("/exec")]
        self.assertEqual(len(execs), PODS, execs)
        self.assertEqual([r["status"] for r in execs], [101] * PODS, execs)
        self.assertEqual([r.get("end") for r in execs], ["ok"] * PODS, execs)
        return execs

    def test_execs_resume_one_session(self):
        # All PODS execs start at once (--parallel PODS): the first primes
        # the shared context's session cache, the others resume it.  With
        # curl's context per connection every exec of the first batch made
        # a full handshake.
        execs = self.check(self.c.kubeconfig)
        kinds = [r.get("tls") for r in execs]
        self.assertEqual(kinds.count("full"), 1, kinds)
        self.assertEqual(kinds.count("resumed"), PODS - 1, kinds)

    def test_tls_server_name_is_the_exec_sni(self):
        # The server is 127.0.0.1: without tls-server-name no SNI goes out
        # (an IP is never sent); with it, the name is sent and is the one
        # checked (the certificate holds DNS:localhost).
        execs = self.check(self.c.kubeconfig)
        self.assertEqual([r.get("sni") for r in execs], [None] * PODS)
        kc = self.kubeconfig("sni.kc", lambda cl: cl.__setitem__("tls-server-name", "localhost"))
        execs = self.check(kc)
        self.assertEqual([r.get("sni") for r in execs], ["localhost"] * PODS)

    def test_tls_server_name_not_in_the_certificate_fails(self):
        kc = self.kubeconfig("badname.kc", lambda cl: cl.__setitem__("tls-server-name", "kubernetes.example"))
        rc, out, err = run(["check", "--kubeconfig", kc, "-n", NS, "-l", "", "--logs=false"])
        self.assertEqual(rc, 1, err)
        self.assertTrue(err.startswith("Unable to connect to the server: tls: failed to verify certificate"), err)

    def test_insecure_skip_tls_verify(self):
        def insecure(cl):
            cl.pop("certificate-authority-data", None)
            cl["insecure-skip-tls-verify"] = True
        self.check(self.kubeconfig("insecure.kc", insecure))

    def test_client_certificate_authenticates_the_exec(self):
        execs = self.check(self.c.kubeconfig, "--context", "fakecluster-cert-user")
        self.assertEqual({r["user"] for r in execs}, {"cert-user"})


class TestExecTlsStall(E2ECase):
    """A server that accepts the exec connections but never answers their
    ClientHello (fault tls-stall: the first connection, the pod list's, is
    served).  Each exec ends with one clear line, never a hang."""

    TMP = "e2e-exec-tls-stall-"

    def setUp(self):
        # One server per test: the fault counts connections from its start.
        self.c = self.new_cluster(self.write_scenario(scenario_doc(3)), latency=0, faults=["tls-stall=1"])

    def errors(self, *flags):
        rc, out, err = run(["check", "--kubeconfig", self.c.kubeconfig, "-n", NS, "-l", "",
                            "--logs=false", "-o", "json"] + list(flags))
        self.assertIn(rc, (2, 3), err)
        pods = json.loads(out)["pods"]
        self.assertEqual(len(pods), 3, out[-500:])
        self.assertFalse(any(p["probed"] for p in pods), pods)
        return {p["error"] for p in pods}

    def test_probe_timeout_during_the_handshake(self):
        self.assertEqual(self.errors("--probe-timeout", "2s"),
                         {"timed out after 2s waiting for the TLS handshake"})

    def test_connect_timeout_covers_the_handshake(self):
        # --request-timeout under curl's 15 s bounds connecting, TLS
        # included, as curl's CURLOPT_CONNECTTIMEOUT did; worded as kubectl.
        self.assertEqual(self.errors("--request-timeout", "1s", "--probe-timeout", "60s"),
                         {"Unable to connect to the server: net/http: TLS handshake timeout"})


if __name__ == "__main__":
    unittest.main()
