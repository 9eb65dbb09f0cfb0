"""--mode v4: kubectl 1.32 (v5-only offer -> bare 403 -> SPDY POST fallback)
and python3-kubernetes (v4.channel.k8s.io over WebSocket)."""
import os
import unittest

import fc

try:
    from kubernetes import client as kclient, config as kconfig
    from kubernetes.stream import stream
    from kubernetes.client.rest import ApiException
except ImportError:  # pragma: no cover
    kclient = None


@unittest.skipUnless(os.path.exists(fc.KUBECTL), "kubectl not installed")
class TestKubectlV4(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = fc.Cluster("basic.yaml", mode="v4")

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()

    def test_fallback_403_then_post(self):
        rc, out, err = self.c.kubectl("exec", "qwen-prefill-0", "-c", "main", "--", "sh", "-c", "exit 3")
        self.assertNotEqual(rc, 0)
        self.assertIn("SPDY", err)
        recs = [r for r in self.c.log() if r["path"] == "/api/v1/namespaces/demo/pods/qwen-prefill-0/exec"]
        self.assertEqual([(r["method"], r["status"]) for r in recs][:2], [("GET", 403), ("POST", 405)])
        self.assertEqual(recs[0]["bytes"], 0)

    def test_get_pods(self):
        rc, out, err = self.c.kubectl("get", "pods", "-o", "name")
        self.assertEqual(rc, 0, err)
        self.assertIn("pod/qwen-decode-0", out)
        rc, out, err = self.c.kubectl("version", "-o", "json")
        self.assertIn('"gitVersion": "v1.20.2"', out)


@unittest.skipIf(kclient is None, "python3-kubernetes not installed")
class TestPythonClientV4(unittest.TestCase):
    mode = "v4"

    @classmethod
    def setUpClass(cls):
        cls.c = fc.Cluster("basic.yaml", mode=cls.mode)

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()

    def api(self, context=None):
        cfg = kclient.Configuration()
        kconfig.load_kube_config(config_file=self.c.kubeconfig, context=context, client_configuration=cfg)
        return kclient.CoreV1Api(kclient.ApiClient(cfg))

    def run_exec(self, pod, argv, container="main", context=None, ns="demo"):
        r = stream(self.api(context).connect_get_namespaced_pod_exec, pod, ns, command=argv,
                   container=container, stderr=True, stdin=False, stdout=True, tty=False,
                   _preload_content=False)
        r.run_forever(timeout=20)
        out, err, rc = r.read_stdout(), r.read_stderr(), r.returncode
        r.close()
        return out, err, rc

    def test_stdout_stderr_exit3(self):
        out, err, rc = self.run_exec("qwen-prefill-0", ["sh", "-c", "echo out; echo err >&2; exit 3"])
        self.assertEqual((out, err, rc), ("out\n", "err\n", 3))
        recs = [r for r in self.c.log() if r["status"] == 101]
        self.assertEqual(recs[-1]["subprotocol"], "v4.channel.k8s.io")

    def test_exit0_and_arg_with_spaces(self):
        out, err, rc = self.run_exec("qwen-decode-0", ["printf", "%s|", "a b", "c&d"])
        self.assertEqual((out, rc), ("a b|c&d|", 0))

    def expect_error(self, status, **kw):
        with self.assertRaises(ApiException) as cm:
            stream(self.api(kw.pop("context", None)).connect_get_namespaced_pod_exec, kw["pod"], "demo",
                   command=["true"], container=kw.get("container", "main"), stderr=True, stdin=False,
                   stdout=True, tty=False, _preload_content=False)
        self.assertIn("Handshake status %d" % status, str(cm.exception))

    def test_missing_container(self):
        self.expect_error(400, pod="qwen-prefill-0", container="nope")
        recs = [r for r in self.c.log() if "/qwen-prefill-0/exec" in r["path"]]
        self.assertEqual(recs[-1]["status"], 400)

    def test_missing_pod(self):
        self.expect_error(404, pod="nopod")

    def test_forbidden(self):
        self.expect_error(403, pod="qwen-prefill-0", context="fakecluster-viewer")
        rec = [r for r in self.c.log() if r["user"] == "viewer"][-1]
        self.assertEqual((rec["method"], rec["status"]), ("GET", 403))

    def test_list_pods(self):
        pods = self.api().list_namespaced_pod("demo", label_selector="nvidia.com/dynamo-graph-deployment-name=qwen")
        self.assertEqual([p.metadata.name for p in pods.items], ["qwen-decode-0", "qwen-frontend-0", "qwen-prefill-0"])


class TestPythonClientV5Mode(TestPythonClientV4):
    """In v5 mode a v4-only offer takes the legacy path (same answers)."""
    mode = "v5"


if __name__ == "__main__":
    unittest.main()
