#!/usr/bin/python3
"""In-cluster mode (docs/kubeconfig.md section 6): no kubeconfig, the
service account's token, CA and namespace files, KUBERNETES_SERVICE_HOST and
_PORT, as rest.InClusterConfig; the token file is re-read on client-go's
period (transport/token_source.go) and after a 401, so a token the kubelet
rotates mid-run is picked up.

Environment: DI_PLUGIN (the binary).
"""
import json
import os
import shutil
import unittest

from base import E2ECase, check_json
from plugin import run


class InClusterCase(E2ECase):
    SCENARIO = "healthy-ib.yaml"
    TMP = "e2e-incluster-"

    def sa_dir(self, c, name, token):
        """A service-account directory for server c holding token."""
        sa = os.path.join(self.tmp, name)
        os.makedirs(sa, exist_ok=True)
        with open(os.path.join(sa, "token"), "w") as f:
            f.write(token + "\n")
        shutil.copy(c.cafile, os.path.join(sa, "ca.crt"))
        with open(os.path.join(sa, "namespace"), "w") as f:
            f.write("demo\n")
        return sa

    def env(self, c, sa, **more):
        env = {"KUBERNETES_SERVICE_HOST": "127.0.0.1", "KUBERNETES_SERVICE_PORT": str(c.port),
               "DI_SERVICEACCOUNT_DIR": sa, "HOME": sa}
        env.update(more)
        return env

    @staticmethod
    def verdicts(out):
        doc = json.loads(out)
        return sorted((p["name"], json.dumps(p["verdict"], sort_keys=True)) for p in doc["pods"])


class TestInClusterCheck(InClusterCase):
    def test_same_report_as_kubeconfig(self):
        """The namespace comes from the namespace file (no -n), the CA from
        ca.crt: the report equals the kubeconfig one."""
        sa = self.sa_dir(self.c, "sa", self.c.token())
        rc, out, err = run(["check", "-o", "json"], env=self.env(self.c, sa), timeout=300)
        self.assertIn(rc, (0, 1, 2), err)
        rc2, out2, err2 = check_json(self.c, "-n", "demo", timeout=300)
        self.assertEqual(rc, rc2, (err, err2))
        self.assertEqual(self.verdicts(out), self.verdicts(out2))
        self.assertTrue(self.verdicts(out))

    def test_wrong_ca_refused(self):
        sa = self.sa_dir(self.c, "sa-badca", self.c.token())
        os.unlink(os.path.join(sa, "ca.crt"))   # system roots only
        rc, out, err = run(["pods"], env=self.env(self.c, sa))
        self.assertNotEqual(rc, 0)
        self.assertIn("certificate", err)


class TestTokenRotation(InClusterCase):
    SCENARIO = None

    def rotated_run(self, period_ms):
        """check on a server whose token rotates on each use of the newest
        (fault token-rotate); the generations the server saw and the 401s."""
        token_path = os.path.join(self.tmp, "sa-rot-%s" % period_ms, "token")
        os.makedirs(os.path.dirname(token_path), exist_ok=True)
        c = self.new_cluster("healthy-ib.yaml", faults=["token-rotate=" + token_path])
        sa = self.sa_dir(c, "sa-rot-%s" % period_ms, c.token() + ".1")
        env = self.env(c, sa)
        if period_ms is not None:
            env["DI_TOKEN_FILE_PERIOD_MS"] = str(period_ms)
        rc, out, err = run(["check", "-o", "json"], env=env, timeout=300)
        seen = [r for r in c.log() if r.get("path", "").startswith("/api/")]
        gens = {r["token_gen"] for r in seen if "token_gen" in r}
        return rc, out, err, gens, [r for r in seen if r.get("status") == 401]

    def test_rotated_token_is_used(self):
        """With a short period the file is re-read before requests: every
        new generation is taken up without a 401."""
        rc, out, err, gens, unauth = self.rotated_run(1)
        self.assertIn(rc, (0, 1, 2), err)
        self.assertTrue(self.verdicts(out), err)
        self.assertGreaterEqual(len(gens), 3, gens)
        self.assertEqual(unauth, [])

    def test_default_period_keeps_token(self):
        """client-go's 50 s: a short run keeps the token read at start (the
        server still accepts it: only the newest was used)."""
        rc, out, err, gens, unauth = self.rotated_run(None)
        self.assertIn(rc, (0, 1, 2), err)
        self.assertEqual(gens, {1})
        self.assertEqual(unauth, [])


if __name__ == "__main__":
    unittest.main()
