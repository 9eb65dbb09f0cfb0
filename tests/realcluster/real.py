"""What the real-cluster tests share (test_real.py, test_real_api.py): the
state up.sh left (kubeconfig, server, tokens), the plugin and the test-only
exec driver run against it, and the real server shaped like the test
cluster's fc.Cluster.

Environment: DI_RC_STATE (up.sh's state dir), DI_PLUGIN (the binary,
default ./kubectl-dynamo_interconnect), DI_EXEC (default build/tools/di_exec).
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(ROOT, "tests", "cluster"))
import fc  # noqa: E402  (raw HTTPS / WebSocket helpers of the test cluster's tests)

ST = os.environ.get("DI_RC_STATE", "/var/tmp/dynamo-interconnect-realcluster")
KC = os.path.join(ST, "kubeconfig")
PLUGIN = os.environ.get("DI_PLUGIN") or os.path.join(ROOT, "kubectl-dynamo_interconnect")
DI_EXEC = os.environ.get("DI_EXEC") or os.path.join(ROOT, "build", "tools", "di_exec")
NS = "dynamo-e2e"
TOOLS = "vllm-prefill-tools"
PLAIN = "vllm-decode-plain"
TWO = "vllm-decode-two"
PENDING = "vllm-decode-pending"
NODE = "localhost"
# Checks whose only evidence is a tool (as in tests/e2e/test_check.py).
NEED_TOOLS = ["ucx-version", "ucx-rdma", "ucx-cuda", "gpudirect-ucx-md", "limits-gpus",
              "nvlink-links", "nvlink-fabric", "gpudirect-affinity", "rdma-verbs"]
DIFFS = []      # differences from the test cluster, printed at the end


def env():
    e = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    e["HOME"] = tempfile.gettempdir()
    return e


def plugin(*argv, context=None, timeout=120):
    cmd = [PLUGIN, argv[0], "--kubeconfig", KC] + (["--context", context] if context else []) \
        + list(argv[1:])
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env(),
                       timeout=timeout)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def di(argv, pod=TOOLS, container=None, context=None, ns=NS, timeout_ms=20000, kubeconfig=KC):
    cmd = [DI_EXEC, "--kubeconfig", kubeconfig, "-n", ns, "--timeout-ms", str(timeout_ms)]
    if context:
        cmd += ["--context", context]
    if container:
        cmd += ["-c", container]
    cmd += [pod, "--"] + list(argv)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env(),
                       timeout=timeout_ms / 1000.0 + 30)
    if p.returncode != 0:
        raise AssertionError("di_exec rc %d: %s" % (p.returncode, p.stderr.decode()[-2000:]))
    return json.loads(p.stdout.decode().splitlines()[0])


class Real:
    """The real server, shaped like fc.Cluster for fc.ws_exec / fc.request."""
    def __init__(self):
        with open(os.path.join(ST, "server")) as f:
            self.url = f.read().strip()
        self.port = int(self.url.rsplit(":", 1)[1])
        self.cafile = os.path.join(ST, "pki", "ca.crt")
        self.users = {}
        with open(os.path.join(ST, "tokens.csv")) as f:
            for line in f:
                tok, user = line.split(",")[:2]
                self.users[user.replace("di-", "")] = {"token": tok}
        self.users["viewer"] = self.users["list"]

    def token(self, user="admin"):
        return self.users[user]["token"]

    def cert_files(self, user):
        return (os.path.join(ST, "pki", "admin.crt"), os.path.join(ST, "pki", "admin.key"))

    connect = fc.Cluster.connect
    request = fc.Cluster.request
    get_json = fc.Cluster.get_json
