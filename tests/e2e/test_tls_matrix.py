#!/usr/bin/python3
"""TLS exactly as kubectl (issue 23): one matrix of server certificates and
TLS settings, each case run through /usr/bin/kubectl (v1.32: Go crypto/tls +
crypto/x509), the plugin's GET path (`pods`, libcurl) and its exec path
(`check`, the exec connection's own TLS, src/kube/tlsconn.c).  Both plugin
paths must accept or refuse as kubectl does, in kubectl's words, unless the
case is one of the documented decisions (docs/kubeconfig.md "TLS"), which is
then asserted as such: kubectl accepts, the plugin refuses with an error that
says what to change.

A TLS-terminating proxy (tests/cluster/tls_proxy.py) in front of the test
cluster presents each case's certificate.  For the exec path it serves a good
certificate to the first connection (the pod list) and the case's to the
next (the exec); the proxy's record of which connection carried which request
proves it.  Renegotiation cannot be started from Python's ssl module: it is
tested in tests/unit/test_tlspolicy.c.  Nothing here depends on timing.

Environment: DI_PLUGIN (the binary; default ./kubectl-dynamo_interconnect).
"""
import base64
import json
import os
import ssl
import subprocess
import unittest

import yaml

from base import ROOT, E2ECase
from plugin import run
from tls_proxy import Pki, Proxy  # (tests/cluster, on the path base sets)

KUBECTL = "/usr/bin/kubectl"
NS = "tlsm"
POD = "tlsm-prefill-0"
CONNECT = "Unable to connect to the server: "


def scenario_doc():
    profile = os.path.join(ROOT, "tests", "cluster", "profiles", "canned")
    pods = [{"name": POD, "node": "gpu-0", "profile": profile,
             "labels": {"nvidia.com/dynamo-component-type": "prefill"}}]
    return {"namespace": NS, "pods": pods}


def pem_b64(text):
    return base64.b64encode(text.encode()).decode()


class TestTlsMatrix(E2ECase):
    SCENARIO = scenario_doc()
    TMP = "e2e-tls-matrix-"
    LATENCY = 0

    @classmethod
    def fixture(cls):
        cls.pki = Pki(cls.tmp)
        with open(cls.pki.ca) as f:
            cls.ca_pem = f.read()
        cls.good = cls.pki.leaf("good")
        cls.n = 0

    # ---- the three clients

    def kubeconfig(self, port, host="localhost", server_name=None, insecure=False, ca=None):
        with open(self.c.kubeconfig) as f:
            kc = yaml.safe_load(f)
        for cl in kc["clusters"]:
            c = cl["cluster"]
            c["server"] = "https://%s:%d" % (host, port)
            if insecure:
                c.pop("certificate-authority-data", None)
                c["insecure-skip-tls-verify"] = True
            else:
                c["certificate-authority-data"] = pem_b64(ca if ca is not None else self.ca_pem)
            if server_name:
                c["tls-server-name"] = server_name
        TestTlsMatrix.n += 1
        path = os.path.join(self.tmp, "kc-%d" % self.n)
        with open(path, "w") as f:
            yaml.safe_dump(kc, f)
        return path

    def kubectl(self, kc):
        """(accepted, the error line kubectl ends with)."""
        cache = os.path.join(self.tmp, "cache-%d" % self.n)
        p = subprocess.run([KUBECTL, "--kubeconfig", kc, "--cache-dir", cache, "get", "pods",
                            "-n", NS, "--request-timeout=30s"],
                           capture_output=True, text=True, timeout=120)
        lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
        return p.returncode == 0, lines[-1] if lines else ""

    def plugin_get(self, kc):
        rc, out, err = run(["pods", "--kubeconfig", kc, "-n", NS])
        return rc == 0, err.strip().splitlines()[-1] if err.strip() else ""

    def plugin_exec(self, kc, proxy):
        """(accepted, error) of the exec connection alone: the pod list
        went over the proxy's first connection (good certificate), the exec
        over the next (the case's)."""
        before = len(self.c.log())
        rc, out, err = run(["check", "--kubeconfig", kc, "-n", NS, "-l", "", "--logs=false",
                            "--parallel", "1", "-o", "json"])
        self.assertIn(rc, (0, 2, 3), err)
        conns = proxy.records()
        self.assertTrue(conns and conns[0]["good"] and conns[0]["request"], conns)
        self.assertIn("/namespaces/%s/pods" % NS, conns[0]["request"])
        self.assertTrue(len(conns) >= 2 and not conns[1]["good"], conns)
        self.assertFalse(any(c["request"] and "/exec" in c["request"] for c in conns[:1]), conns)
        execs = [r for r in self.c.log()[before:] if r.get("path", "").endswith("/exec")]
        pods = json.loads(out)["pods"]
        ok = len(execs) == 1 and execs[0]["status"] == 101
        if ok:
            self.assertTrue(conns[1]["request"] and "/exec" in conns[1]["request"], conns)
        return ok, pods[0].get("error") or ""

    # ---- one case

    def case(self, cert, host="localhost", server_name=None, insecure=False, ca=None,
             proxy_args=None, good=None):
        """{'kubectl': (ok, why), 'get': ..., 'exec': ..., 'snis': [...]}."""
        proxy_args = proxy_args or {}
        p = Proxy(self.c.port, cert, **proxy_args)
        try:
            kc = self.kubeconfig(p.port, host, server_name, insecure, ca)
            res = {"kubectl": self.kubectl(kc), "get": self.plugin_get(kc)}
            res["get_snis"] = [c["sni"] for c in p.records() if c["handshake"]]
        finally:
            p.stop()
        p = Proxy(self.c.port, cert, good=good or self.good, first_good=1, **proxy_args)
        try:
            kc = self.kubeconfig(p.port, host, server_name, insecure, ca)
            res["exec"] = self.plugin_exec(kc, p)
            res["exec_snis"] = [c["sni"] for c in p.records() if c["handshake"]]
        finally:
            p.stop()
        return res

    def agree(self, res, accepted, words=None):
        """kubectl accepted (or refused) as expected, and both plugin paths
        did the same; a refusal in kubectl's words (words: a part of them
        that must be there)."""
        k_ok, k_why = res["kubectl"]
        self.assertEqual(k_ok, accepted, res)
        self.assertEqual(res["get"][0], accepted, res)
        self.assertEqual(res["exec"][0], accepted, res)
        if accepted:
            return
        self.assertTrue(k_why.startswith(CONNECT), res)
        reason = k_why[len(CONNECT):]
        if words:
            self.assertIn(words, reason)
        self.assertEqual(res["get"][1], CONNECT + reason, res)
        self.assertIn(reason, res["exec"][1], res)

    def decision(self, res, words):
        """A documented decision: kubectl accepts, both plugin paths refuse
        with an error that says what to change."""
        self.assertTrue(res["kubectl"][0], res)
        self.assertFalse(res["get"][0], res)
        self.assertFalse(res["exec"][0], res)
        self.assertIn(words, res["get"][1])
        self.assertIn(words, res["exec"][1])

    # ---- the matrix

    def test_good_san_certificate(self):
        self.agree(self.case(self.good), True)

    def test_no_san_cn_only(self):
        cert = self.pki.leaf("nosan", san=None)
        self.agree(self.case(cert), False,
                   "x509: certificate relies on legacy Common Name field, use SANs instead")

    def test_cn_matches_but_sans_hold_only_an_ip(self):
        cert = self.pki.leaf("cnip", san="IP:127.0.0.1")
        self.agree(self.case(cert), False,
                   "x509: certificate is not valid for any names, but wanted to match localhost")

    def test_wrong_name(self):
        cert = self.pki.leaf("wrong", cn="other.example", san="DNS:other.example")
        self.agree(self.case(cert), False,
                   "x509: certificate is valid for other.example, not localhost")

    def test_ip_host_in_san(self):
        cert = self.pki.leaf("iponly", cn="api", san="IP:127.0.0.1")
        self.agree(self.case(cert, host="127.0.0.1"), True)

    def test_ip_host_not_in_san_even_as_cn(self):
        cert = self.pki.leaf("ipcn", cn="127.0.0.1", san="DNS:localhost")
        self.agree(self.case(cert, host="127.0.0.1"), False,
                   "x509: cannot validate certificate for 127.0.0.1 because it doesn't "
                   "contain any IP SANs")

    def test_tls11_max_server(self):
        res = self.case(self.good, proxy_args={"max_version": ssl.TLSVersion.TLSv1_1})
        self.agree(res, False, "tls: protocol version not supported")

    def test_insecure_sends_sni_for_a_name(self):
        res = self.case(self.pki.leaf("insecure-wrong", cn="x", san="DNS:other.example"),
                        insecure=True)
        self.agree(res, True)
        self.assertEqual(set(res["get_snis"]), {"localhost"}, res)
        self.assertEqual(set(res["exec_snis"]), {"localhost"}, res)

    def test_insecure_no_sni_for_an_ip(self):
        res = self.case(self.good, host="127.0.0.1", insecure=True)
        self.agree(res, True)
        self.assertEqual(set(res["get_snis"]), {None}, res)
        self.assertEqual(set(res["exec_snis"]), {None}, res)

    def test_trailing_dot_tls_server_name(self):
        res = self.case(self.good, host="127.0.0.1", server_name="localhost.")
        self.agree(res, True)
        self.assertEqual(set(res["get_snis"]), {"localhost"}, res)
        self.assertEqual(set(res["exec_snis"]), {"localhost"}, res)

    def test_ca_bundle_with_one_malformed_block(self):
        bad = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
        self.agree(self.case(self.good, ca=bad + self.ca_pem), True)

    def test_ca_with_no_certificate_that_parses(self):
        # client-go refuses to build the transport (rootCertPool): no
        # connection is made, the line is kubectl's.
        bad = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
        p = Proxy(self.c.port, self.good)
        try:
            kc = self.kubeconfig(p.port, ca=bad)
            want = ("error: unable to load root certificates: failed to parse certificate: "
                    "x509: malformed certificate")
            self.assertEqual(self.kubectl(kc), (False, want))
            self.assertEqual(self.plugin_get(kc), (False, want))
            rc, out, err = run(["check", "--kubeconfig", kc, "-n", NS, "-l", "", "--logs=false"])
            self.assertEqual((rc, err.strip()), (1, want))
            self.assertEqual(p.records(), [])
        finally:
            p.stop()

    def test_ecdsa_leaf(self):
        self.agree(self.case(self.pki.leaf("ecdsa", key="ec")), True)

    def test_ed25519_leaf(self):
        self.agree(self.case(self.pki.leaf("ed25519", key="ed25519")), True)

    def test_rsa2048_leaf(self):
        self.agree(self.case(self.pki.leaf("rsa2048", key="rsa:2048")), True)

    def test_rsa1024_leaf_is_a_decision(self):
        # kubectl accepts a 1024-bit RSA key; the plugin stays at OpenSSL's
        # security level 2 and says what to change.
        self.decision(self.case(self.pki.leaf("rsa1024", key="rsa:1024")),
                      "reissue it with an RSA key of 2048 bits or more")

    def test_rsa1024_leaf_under_insecure(self):
        # Nothing is verified: the key size buys nothing, as in Go.
        self.agree(self.case(self.pki.leaf("rsa1024i", key="rsa:1024"), insecure=True), True)

    def test_key_usage_without_digital_signature(self):
        # Go does not look at a server certificate's keyUsage; neither does
        # the policy, at TLS 1.3 (ECDSA, keyAgreement only) and at TLS 1.2
        # (RSA, keyEncipherment only).  A TLS 1.2 server whose ECDSA key may
        # not sign cannot make ECDHE-ECDSA: it refuses everyone alike.
        for key, ku, mx, ok in (("ec", "keyAgreement", None, True),
                                ("rsa:2048", "keyEncipherment", ssl.TLSVersion.TLSv1_2, True),
                                ("ec", "keyAgreement", ssl.TLSVersion.TLSv1_2, False)):
            with self.subTest(key=key, max_version=mx):
                cert = self.pki.leaf("ku-" + key.replace(":", ""), key=key, key_usage=ku)
                res = self.case(cert, proxy_args={"max_version": mx} if mx else None)
                self.agree(res, ok, None if ok else "remote error: tls: handshake failure")

    def test_single_label_wildcard_is_a_decision(self):
        cert = self.pki.leaf("wild", cn="w", san="DNS:*.test")
        good = self.pki.leaf("wild-good", cn="api.test", san="DNS:api.test")
        self.decision(self.case(cert, host="127.0.0.1", server_name="api.test", good=good),
                      "add the full name to the certificate's DNS SANs")

    def test_handshake_failure_alert_under_insecure(self):
        # The server offers only a cipher no client offers: its
        # handshake_failure alert is worded as Go words it, never as a
        # certificate problem.
        res = self.case(self.good, insecure=True, proxy_args={"ciphers": "ECDHE-ECDSA-ARIA128-GCM-SHA256"})
        self.agree(res, False, "remote error: tls: handshake failure")
        self.assertNotIn("verify", res["get"][1])


if __name__ == "__main__":
    unittest.main()
