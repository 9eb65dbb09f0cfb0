#!/usr/bin/python3
"""Exec credential plugins as client-go runs them (issue 13): an interactive
login has no time limit (a device-code login longer than the 60 s a
non-interactive plugin gets succeeds), a credential past its
expirationTimestamp is fetched again before the next request, and a client
certificate in the kubeconfig means the plugin never runs.  Each plugin
counts its runs in a file."""
import json
import os
import subprocess
import unittest

import yaml

from base import E2ECase
from plugin import PLUGIN, plugin_env, run

HERE = os.path.dirname(os.path.abspath(__file__))

SCENARIO = os.path.join(HERE, "scenarios", "frontdoor.yaml")
# Past the 60 s bound a non-interactive plugin gets (src/kube/config/auth.c
# DEFAULT_PLUGIN_TIMEOUT_MS, no flag sets it): an interactive login that
# outlasts it shows that it has none.  No more than that: the test sleeps it.
LOGIN_SECONDS = int(os.environ.get("DI_TEST_LOGIN_SECONDS", "65"))


class ExecPlugin(E2ECase):
    SCENARIO = SCENARIO
    TMP = "fd-exec-"

    def kubeconfig(self, name, sleep=0, expiry=None, user_extra=None, cluster=None):
        c = cluster or self.c
        count = os.path.join(self.tmp, name + ".count")
        cred = {"token": c.token("admin")}
        if expiry:
            cred["expirationTimestamp"] = expiry
        doc = json.dumps({"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
                          "status": cred})
        script = os.path.join(self.tmp, name + ".sh")
        with open(script, "w") as f:
            f.write("#!/bin/sh\necho run >> '%s'\nsleep %d\ncat <<'EOF'\n%s\nEOF\n" % (count, sleep, doc))
        os.chmod(script, 0o755)
        kc = json.loads(json.dumps(c.kc))
        user = {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": script,
                         "interactiveMode": "IfAvailable"}}
        user.update(user_extra or {})
        kc["users"] = [{"name": "admin", "user": user}]
        kc["contexts"] = [{"name": "c", "context": {"cluster": "fakecluster", "user": "admin", "namespace": "fd"}}]
        kc["current-context"] = "c"
        path = os.path.join(self.tmp, name + ".kubeconfig")
        with open(path, "w") as f:
            yaml.safe_dump(kc, f)
        return path, count

    @staticmethod
    def runs(count):
        if not os.path.exists(count):
            return 0
        with open(count) as f:
            return len(f.read().split())

    def test_slow_interactive_login_succeeds(self):
        # the test cluster's own slow login (users[].exec.loginSeconds)
        sc = self.write_scenario({"namespace": "fd", "pods": [{"name": "w-prefill-0", "node": "gpu-a1", "labels": {
            "nvidia.com/dynamo-component-type": "prefill"}}], "users": [{
                "name": "sso", "allow": ["list-pods"],
                "exec": {"token": "sso-token", "loginSeconds": LOGIN_SECONDS}}]}, "slow.yaml")
        c = self.new_cluster(sc, latency=0)
        master, slave = os.openpty()   # stdin a terminal: an interactive login
        try:
            p = subprocess.run([PLUGIN, "pods", "--kubeconfig", c.kubeconfig, "--context", "fakecluster-sso"],
                               stdin=slave, capture_output=True, env=plugin_env(), timeout=LOGIN_SECONDS + 120)
            log = c.log()
        finally:
            os.close(slave)
            os.close(master)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(b"w-prefill-0", p.stdout)
        self.assertIn(b"enter ABCD-EFGH", p.stderr)   # the plugin's prompt reached the terminal side
        self.assertEqual([q["user"] for q in log], ["sso"])

    def test_expired_credential_is_fetched_again(self):
        kc, count = self.kubeconfig("expired", expiry="2001-02-03T04:05:06Z")
        rc, out, err = run(["pods", "--kubeconfig", kc])
        self.assertEqual(rc, 0, err)
        # once before the first request, once more because it had expired
        self.assertEqual(self.runs(count), 2)
        kc, count = self.kubeconfig("fresh", expiry="2999-02-03T04:05:06Z")
        rc, out, err = run(["pods", "--kubeconfig", kc])
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.runs(count), 1)

    def test_client_certificate_skips_the_plugin(self):
        # A certificate the server accepts (the test cluster's admin as a
        # clientCert user): the run goes through on it, and the plugin next
        # to it never ran.  (A certificate it refuses would only add the 10
        # transport retries of client-go, 1 s apart, to the same count.)
        sc = self.write_scenario({"namespace": "fd", "pods": [{"name": "w-prefill-0", "node": "gpu-a1", "labels": {
            "nvidia.com/dynamo-component-type": "prefill"}}],
            "users": [{"name": "admin", "clientCert": True}]}, "cert.yaml")
        c = self.new_cluster(sc)
        crt, key = c.cert_files("admin")
        kc, count = self.kubeconfig("cert", user_extra={"client-certificate": crt, "client-key": key},
                                    cluster=c)
        rc, out, err = run(["pods", "--kubeconfig", kc])
        log = c.log()
        self.assertEqual(rc, 0, err)
        self.assertIn("w-prefill-0", out)
        self.assertEqual([q["user"] for q in log], ["admin"])
        self.assertEqual(self.runs(count), 0)


if __name__ == "__main__":
    unittest.main()
