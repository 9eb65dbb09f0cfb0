"""Conformance with the real kubectl (v1.32) against --mode v5."""
import json
import os
import subprocess
import unittest

import fc


@unittest.skipUnless(os.path.exists(fc.KUBECTL), "kubectl not installed")
class TestKubectlV5(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = fc.Cluster("basic.yaml", mode="v5")

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()

    def test_version_raw(self):
        rc, out, err = self.c.kubectl("get", "--raw", "/version")
        self.assertEqual(rc, 0, err)
        self.assertTrue(json.loads(out)["gitVersion"].startswith("v1.3"))

    def test_get_pods_table(self):
        rc, out, err = self.c.kubectl("get", "pods", "-n", "demo")
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertEqual(lines[0].split(), ["NAME", "READY", "STATUS", "RESTARTS", "AGE"])
        names = [l.split()[0] for l in lines[1:]]
        self.assertEqual(names, sorted(names))
        self.assertIn("qwen-prefill-0", names)
        self.assertIn("pending-0", out)
        self.assertNotIn("privileged-0", names)

    def test_get_pods_label_json(self):
        rc, out, err = self.c.kubectl("get", "pods", "-l", "nvidia.com/dynamo-component-type=prefill", "-o", "json")
        self.assertEqual(rc, 0, err)
        items = json.loads(out)["items"]
        self.assertEqual([i["metadata"]["name"] for i in items], ["qwen-prefill-0"])
        p = items[0]
        self.assertEqual(p["kind"], "Pod")
        self.assertEqual(p["spec"]["nodeName"], "gpu-a1")
        self.assertEqual(p["status"]["phase"], "Running")
        self.assertEqual(p["status"]["containerStatuses"][0]["name"], "main")
        self.assertIn("running", p["status"]["containerStatuses"][0]["state"])

    def test_exec_exit3(self):
        rc, out, err = self.c.kubectl("exec", "qwen-prefill-0", "-c", "main", "--",
                                      "sh", "-c", "echo out; echo err >&2; exit 3")
        self.assertEqual(rc, 3, err)
        self.assertEqual(out, "out\n")
        self.assertIn("err", err)
        self.assertIn("command terminated with exit code 3", err)
        recs = [r for r in self.c.log() if r["path"].endswith("/exec") and r["status"] == 101]
        self.assertTrue(any(r.get("subprotocol") == "v5.channel.k8s.io" and r.get("exit_code") == 3 for r in recs))

    def test_exec_stdin_v5_close(self):
        e = dict(os.environ, KUBECONFIG=self.c.kubeconfig, HOME=self.c.home)
        r = subprocess.run([fc.KUBECTL, "exec", "-i", "qwen-prefill-0", "--", "cat"], input=b"abc\ndef\n",
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, b"abc\ndef\n")

    def test_exec_missing_container(self):
        rc, out, err = self.c.kubectl("exec", "qwen-prefill-0", "-c", "nope", "--", "true")
        self.assertEqual(rc, 1)
        self.assertIn("Error from server (BadRequest): container nope is not valid for pod qwen-prefill-0", err)

    def test_exec_missing_pod(self):
        rc, out, err = self.c.kubectl("exec", "nopod", "--", "true")
        self.assertEqual(rc, 1)
        self.assertIn('Error from server (NotFound): pods "nopod" not found', err)

    def test_exec_forbidden_viewer(self):
        rc, out, err = self.c.kubectl("exec", "qwen-prefill-0", "--", "true", context="fakecluster-viewer")
        self.assertEqual(rc, 1)
        self.assertIn('Error from server (Forbidden): pods "qwen-prefill-0" is forbidden: User "viewer" cannot '
                      'create resource "pods/exec" in API group "" in the namespace "demo"', err)

    def test_exec_container_not_running(self):
        rc, out, err = self.c.kubectl("exec", "crashing-0", "--", "true")
        self.assertEqual(rc, 1)
        self.assertIn('Internal error occurred: unable to upgrade connection: container not found ("main")', err)

    def test_exec_default_container_annotation(self):
        rc, out, err = self.c.kubectl("exec", "two-containers", "--", "true")
        self.assertEqual(rc, 0, err)
        recs = [r for r in self.c.log() if "/two-containers/exec" in r["path"] and r["status"] == 101]
        self.assertEqual(recs[-1]["container"], "sidecar")

    def test_viewer_can_list_not_logs(self):
        rc, out, err = self.c.kubectl("get", "pods", context="fakecluster-viewer")
        self.assertEqual(rc, 0, err)
        rc, out, err = self.c.kubectl("logs", "qwen-prefill-0", context="fakecluster-viewer")
        self.assertEqual(rc, 1)
        self.assertIn('cannot get resource "pods/log"', err)

    def test_logs(self):
        rc, out, err = self.c.kubectl("logs", "qwen-prefill-0", "--tail=1")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, "line 3 serving\n")

    def test_exec_plugin_users(self):
        for ctx in ("fakecluster-plugin-user", "fakecluster-plugin-beta"):
            rc, out, err = self.c.kubectl("get", "pods", "-o", "name", context=ctx)
            self.assertEqual(rc, 0, ctx + err)
            self.assertIn("pod/qwen-prefill-0", out)
        rc, out, err = self.c.kubectl("exec", "qwen-decode-0", "--", "echo", "hi", context="fakecluster-plugin-user")
        self.assertEqual((rc, out), (0, "hi\n"), err)
        users = {r["user"] for r in self.c.log()}
        self.assertIn("plugin-user", users)
        self.assertIn("plugin-beta", users)
        kc = self.c.kc
        u = {x["name"]: x["user"] for x in kc["users"]}
        self.assertEqual(u["plugin-user"]["exec"]["interactiveMode"], "Never")
        self.assertEqual(u["plugin-beta"]["exec"]["apiVersion"], "client.authentication.k8s.io/v1beta1")

    def test_client_cert_user(self):
        rc, out, err = self.c.kubectl("get", "pods", "-o", "name", context="fakecluster-cert-user")
        self.assertEqual(rc, 0, err)
        self.assertIn("cert-user", {r["user"] for r in self.c.log()})

    def test_kubeconfig_layout(self):
        kc = self.c.kc
        self.assertEqual(kc["current-context"], "fakecluster")
        ctx = {c["name"]: c["context"] for c in kc["contexts"]}
        self.assertEqual(ctx["fakecluster"], {"cluster": "fakecluster", "user": "admin", "namespace": "demo"})
        for u in ("viewer", "plugin-user", "plugin-beta", "cert-user"):
            self.assertEqual(ctx["fakecluster-" + u]["user"], u)
        self.assertEqual(kc["clusters"][0]["name"], "fakecluster")
        self.assertEqual(kc["clusters"][0]["cluster"]["server"], self.c.url)


if __name__ == "__main__":
    unittest.main()
