#!/usr/bin/python3
"""End to end against a real Kubernetes (v1.20.2 kube-apiserver, kubelet,
containerd, runc) brought up by up.sh: the plugin binary and the test-only
exec driver, then the test cluster's v4 mode compared with the real server.

Environment: DI_RC_STATE (up.sh's state dir), DI_PLUGIN (the binary,
default ./kubectl-dynamo_interconnect), DI_EXEC (default build/tools/di_exec).
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

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


# ---------------------------------------------------------------- plugin
class TestPods(unittest.TestCase):
    def test_pods_lists_workers(self):
        rc, out, err = plugin("pods", "-n", NS)
        self.assertEqual(rc, 0, err)
        rows = [line.split() for line in out.splitlines()]
        self.assertEqual(rows[0], ["POD", "ROLE", "NODE", "CONTAINER", "STATUS", "AGE"])
        got = {r[0]: r for r in rows[1:]}
        self.assertEqual(sorted(got), sorted([TOOLS, PLAIN, TWO, PENDING]), out)
        self.assertEqual(got[TOOLS][1:3], ["prefill", NODE])
        self.assertEqual(got[TOOLS][4], "Running")
        self.assertEqual(got[PLAIN][1], "decode")
        self.assertEqual(got[TWO][1], "decode")
        self.assertEqual(got[PENDING][1], "decode")
        self.assertIn("Pending", got[PENDING], out)
        self.assertNotIn("frontend", out)

    def test_selector(self):
        rc, out, err = plugin("pods", "-n", NS, "-l", "nvidia.com/dynamo-component-type=prefill")
        self.assertEqual(rc, 0, err)
        self.assertEqual([line.split()[0] for line in out.splitlines()[1:]], [TOOLS])

    def test_all_namespaces(self):
        rc, out, err = plugin("pods", "-A")
        self.assertEqual(rc, 0, err)
        self.assertIn(TOOLS, out)

    def test_missing_namespace_is_empty(self):
        rc, out, err = plugin("pods", "-n", "no-such-namespace")
        self.assertEqual(rc, 0, err)
        self.assertNotIn(TOOLS, out)

    def test_auth_forms(self):
        for ctx in ("admin-cert", "admin-certdata", "exec-token", "exec-tokenfile", "exec-plugin",
                    "list-only", "create-only"):
            rc, out, err = plugin("pods", context=ctx)
            self.assertEqual(rc, 0, (ctx, err))
            self.assertIn(TOOLS, out, ctx)

    def test_bad_token_401(self):
        rc, out, err = plugin("pods", context="bad-token")
        self.assertEqual(rc, 1, (out, err))
        self.assertRegex(err, "(?i)unauthori[sz]ed|401", err)


class TestCheck(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rc, out, cls.err = plugin("check", "-n", NS, "-o", "json", timeout=300)
        cls.out = out
        cls.doc = json.loads(out) if out.strip().startswith("{") else None
        rc, cls.table, err = plugin("check", "-n", NS, timeout=300)
        sys.stderr.write("\n--- check -n %s against the real cluster (exit %d) ---\n%s%s---\n"
                         % (NS, rc, cls.table, err))

    def pod(self, name):
        for p in self.doc["pods"]:
            if p["name"] == name:
                return p
        self.fail("no %s in %s" % (name, [p["name"] for p in self.doc["pods"]]))

    def check(self, pod, name):
        for c in self.pod(pod)["checks"]:
            if c["name"] == name:
                return c
        self.fail("no check %s for %s" % (name, pod))

    def test_document(self):
        self.assertIsNotNone(self.doc, (self.rc, self.err, self.out[:2000]))
        self.assertEqual(self.doc["kind"], "InterconnectReport")
        v = self.doc["verdict"]
        self.assertEqual(self.rc, v["exitCode"], self.err)
        self.assertIn(v["status"], ("NOT READY", "UNVERIFIED"))
        names = sorted(p["name"] for p in self.doc["pods"])
        self.assertEqual(names, sorted([TOOLS, PLAIN, TWO, PENDING]))
        self.assertEqual(self.pod(TOOLS)["role"], "prefill")
        self.assertEqual(self.pod(PLAIN)["role"], "decode")

    def test_real_exec_probed(self):
        for name in (TOOLS, PLAIN, TWO):
            p = self.pod(name)
            self.assertTrue(p["probed"], p)
            self.assertIsNone(p["error"], p)
            self.assertEqual(p["phase"], "Running")
        self.assertFalse(self.pod(PENDING)["probed"])

    def test_stub_tools_give_a_real_verdict(self):
        p = self.pod(TOOLS)
        self.assertIn(p["verdict"], ("READY", "NOT READY", "UNVERIFIED"))
        for name in ("ucx-version", "nvlink-links"):
            self.assertIn(self.check(TOOLS, name)["status"], ("ok", "warn", "fail"), name)
        oks = [c["name"] for c in p["checks"] if c["status"] == "ok"]
        self.assertTrue(oks, p)

    def test_toolless_skipped_never_ok(self):
        for name in NEED_TOOLS:
            c = self.check(PLAIN, name)
            self.assertEqual(c["status"], "skipped", c)
        self.assertNotEqual(self.pod(PLAIN)["verdict"], "READY")


    def test_log_evidence_from_the_kubelet(self):
        ok = self.check(TOOLS, "logs-nixl")
        self.assertEqual(ok["status"], "ok", ok)
        self.assertIn('"NIXL INFO Backend UCX was instantiated"', ok["detail"])
        self.assertEqual(self.check(TOOLS, "logs-ucx")["status"], "ok")
        bad = self.check(PLAIN, "logs-nixl")
        self.assertEqual(bad["status"], "fail", bad)
        self.assertIn("falling back to TCP transport", bad["detail"])
        # The secret on its own line and inside the quoted line never shows.
        for text in (self.out, self.table):
            self.assertNotIn("hf_realclusterCanary0042", text)

    def test_log_read_forbidden_is_a_visible_skip(self):
        # di-exec may exec but not read pods/log (manifests/rbac.yaml).
        rc, out, err = plugin("check", "-n", NS, "-o", "json", context="exec-token", timeout=300)
        doc = json.loads(out)
        pods = {p["name"]: p for p in doc["pods"]}
        c = [c for c in pods[TOOLS]["checks"] if c["name"] == "logs-read"][0]
        self.assertEqual(c["status"], "skipped", c)
        self.assertIn("forbidden", c["detail"].lower())
        self.assertIn("pods/log", c["remedy"])
        self.assertFalse([c for c in pods[TOOLS]["checks"] if c["name"] == "logs-nixl"])


class TestFrontDoor(unittest.TestCase):
    """Issue 13 against the real server: impersonation (di-admin is in
    system:masters, so it may impersonate) reaches pod lists and exec; the
    probe runs from stdin over v4 on the real kubelet (TestCheck shows the
    probe report too); a server URL with a path, through `kubectl proxy
    --api-prefix=/k8s/clusters/x/`, keeps that path on every request."""

    def pods_of(self, out):
        return {p["name"]: p for p in json.loads(out)["pods"]}

    def test_impersonation_reaches_exec(self):
        rc, out, err = plugin("check", "-n", NS, "-o", "json", "--logs=false", "--as", "di-list",
                              timeout=300)
        p = self.pods_of(out)[TOOLS]
        self.assertFalse(p["probed"], p)
        self.assertIn('User "di-list" cannot get resource "pods/exec"', p["error"])
        rc, out, err = plugin("check", "-n", NS, "-o", "json", "--logs=false", "--as", "di-exec",
                              timeout=300)
        p = self.pods_of(out)[TOOLS]
        self.assertTrue(p["probed"], p)

    def test_impersonation_refused_user(self):
        rc, out, err = plugin("pods", "-n", NS, "--as", "di-nobody")
        self.assertNotEqual(rc, 0)
        self.assertIn('User "di-nobody" cannot list resource "pods"', err)
        # a user that may not impersonate is refused by the impersonation filter
        rc, out, err = plugin("pods", "-n", NS, "--as", "di-admin", context="exec-token")
        self.assertNotEqual(rc, 0)
        self.assertIn("cannot impersonate", err)

    def test_path_prefix_through_kubectl_proxy(self):
        p = subprocess.Popen(["kubectl", "--kubeconfig", KC, "proxy", "--port=0",
                              "--api-prefix=/k8s/clusters/x/", "--reject-paths=^/never-rejected$"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env())
        try:
            line = p.stdout.readline().decode()
            m = re.search(r"127\.0\.0\.1:(\d+)", line)
            self.assertTrue(m, line)
            d = tempfile.mkdtemp(prefix="di-proxy-")
            kc = os.path.join(d, "kubeconfig")
            with open(kc, "w") as f:
                f.write("apiVersion: v1\nkind: Config\ncurrent-context: p\n"
                        "clusters:\n- name: p\n  cluster: {server: 'http://127.0.0.1:%s/k8s/clusters/x/'}\n"
                        "users:\n- name: u\n  user: {}\n"
                        "contexts:\n- name: p\n  context: {cluster: p, user: u, namespace: %s}\n"
                        % (m.group(1), NS))
            q = subprocess.run([PLUGIN, "check", "-o", "json", "--logs=false", "--kubeconfig", kc],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env(), timeout=300)
            pods = self.pods_of(q.stdout.decode())
            self.assertTrue(pods[TOOLS]["probed"], (pods[TOOLS], q.stderr.decode()))
        finally:
            p.terminate()
            p.communicate(timeout=30)


# ---------------------------------------------------------------- exec
class TestExec(unittest.TestCase):
    def test_streams_and_v4(self):
        r = di(["sh", "-c", "echo out-1; echo err-1 >&2; echo out-2"])
        self.assertEqual((r["outcome"], r["exitCode"], r["protocol"], r["httpStatus"]),
                         ("success", 0, 4, 101), r)
        self.assertEqual((r["stdout"], r["stderr"]), ("out-1\nout-2\n", "err-1\n"))

    def test_exit_codes(self):
        r = di(["sh", "-c", "echo before; echo oops >&2; exit 3"])
        self.assertEqual((r["outcome"], r["exitCode"], r["stdout"], r["stderr"]),
                         ("exit-code", 3, "before\n", "oops\n"), r)
        self.assertEqual(di(["sh", "-c", "exit 255"])["exitCode"], 255)

    def test_killed_137(self):
        r = di(["sh", "-c", "kill -9 $$"])
        self.assertEqual((r["outcome"], r["exitCode"]), ("exit-code", 137), r)

    def test_missing_executable(self):
        r = di(["no-such-binary-xyz"])
        self.assertEqual(r["outcome"], "failed", r)
        self.assertIn("executable file not found", r["message"], r)
        self.assertEqual(r["httpStatus"], 101)

    def test_large_output(self):
        n = 1000000
        r = di(["sh", "-c", "head -c %d /dev/zero | tr '\\0' x" % n])
        self.assertEqual((r["outcome"], r["stdoutBytes"]), ("success", n), r["message"])
        self.assertEqual(r["stdout"], "x" * n)

    def test_two_containers(self):
        r = di(["cat", "/proc/1/cmdline"], pod=TWO, container="sidecar")
        self.assertEqual(r["outcome"], "success", r)
        r = di(["true"], pod=TWO)
        self.assertEqual((r["outcome"], r["httpStatus"]), ("error", 400), r)

    def test_missing_container(self):
        r = di(["true"], container="nope")
        self.assertEqual((r["outcome"], r["httpStatus"]), ("error", 400), r)
        self.assertIn("container nope is not valid for pod %s" % TOOLS, r["message"])

    def test_missing_pod(self):
        r = di(["true"], pod="no-such-pod")
        self.assertEqual((r["outcome"], r["httpStatus"]), ("error", 404), r)
        self.assertIn('pods "no-such-pod" not found', r["message"])

    def test_auth_forms_exec(self):
        for ctx in ("admin-cert", "admin-certdata", "exec-token", "exec-tokenfile", "exec-plugin"):
            r = di(["echo", "hi"], context=ctx)
            self.assertEqual((r["outcome"], r["stdout"]), ("success", "hi\n"), (ctx, r))

    def test_bad_token_401(self):
        r = di(["true"], context="bad-token")
        self.assertEqual((r["outcome"], r["httpStatus"]), ("error", 401), r)

    def test_no_exec_right_403(self):
        r = di(["true"], context="list-only")
        self.assertEqual((r["outcome"], r["httpStatus"]), ("error", 403), r)
        self.assertIn("pods/exec", r["message"])
        rc, out, err = plugin("check", "-n", NS, context="list-only")
        self.assertNotEqual(rc, 0)
        self.assertIn("pods/exec", out + err)

    def test_create_only_403(self):
        # A WebSocket exec is a GET: v1.20 checks "get" on pods/exec.
        r = di(["true"], context="create-only")
        self.assertEqual((r["outcome"], r["httpStatus"]), ("error", 403), r)
        self.assertIn("cannot get resource", r["message"])


# ------------------------------------------------- test cluster vs real
def norm(b):
    """Bodies with names and users replaced, for comparing the two servers."""
    s = b.decode(errors="replace") if isinstance(b, bytes) else b
    for a, z in ((TOOLS, "POD"), ("qwen-prefill-0", "POD"), (NS, "NS"), ("demo", "NS"),
                 ("di-list", "USER"), ("viewer", "USER")):
        s = s.replace(a, z)
    return s


class TestCompare(unittest.TestCase):
    """Same raw requests to the real server and to `fakecluster --mode v4`."""

    @classmethod
    def setUpClass(cls):
        cls.real = Real()
        cls.fake = fc.Cluster("basic.yaml", mode="v4")

    @classmethod
    def tearDownClass(cls):
        cls.fake.stop()
        cls.fake.cleanup()
        if DIFFS:
            sys.stderr.write("\n--- differences: test cluster (v4 mode) vs real v1.20.2 ---\n")
            for d in DIFFS:
                sys.stderr.write("  " + d + "\n")

    def both(self, argv, **kw):
        user = kw.pop("user", "admin")
        out = []
        for c, ns, pod in ((self.real, NS, TOOLS), (self.fake, "demo", "qwen-prefill-0")):
            p = fc.exec_path(ns, pod, argv, container=kw.get("container"),
                             stdout=kw.get("stdout", True), stderr=kw.get("stderr", True))
            if kw.get("pod") is not None:
                p = p.replace("/pods/%s/" % pod, "/pods/%s/" % kw["pod"])
            out.append(fc.ws_exec(c, p, protocols=kw.get("protocols", "v5.channel.k8s.io,v4.channel.k8s.io"),
                                  token=user))
        return out

    def same(self, what, real, fake):
        if real != fake:
            DIFFS.append("%s: real %r, test cluster %r" % (what, real, fake))
        self.assertEqual(real, fake, what)

    def test_protocol_and_first_frame(self):
        r, f = self.both(["sh", "-c", "echo hi"])
        self.same("101 protocol", r.response.header("Sec-WebSocket-Protocol"),
                  f.response.header("Sec-WebSocket-Protocol"))
        self.assertEqual(r.response.header("Sec-WebSocket-Protocol"), "v4.channel.k8s.io")
        self.same("first frame", r.frames[0].payload, f.frames[0].payload)
        self.same("close frame", r.frames[-1].opcode == 8 and r.frames[-1].payload[:2],
                  f.frames[-1].opcode == 8 and f.frames[-1].payload[:2])

    def test_status_exit_3(self):
        r, f = self.both(["sh", "-c", "exit 3"])
        self.same("status exit 3", norm(fc.decode_exec(r)[3]), norm(fc.decode_exec(f)[3]))

    def test_status_success(self):
        r, f = self.both(["true"])
        self.same("status success", fc.decode_exec(r)[3], fc.decode_exec(f)[3])

    def test_status_missing_executable(self):
        r, f = self.both(["no-such-binary-xyz"])
        def status(x):   # the exec id is random on both sides
            return re.sub(r'exec \\"[0-9a-f]{64}\\"', 'exec \\"ID\\"',
                          fc.decode_exec(x)[3].decode())
        self.same("status missing executable", status(r), status(f))
        self.assertEqual(json.loads(status(r))["reason"], "InternalError")

    def test_stderr_only_first_frame(self):
        r, f = self.both(["sh", "-c", "echo e >&2"], stdout=False)
        self.same("stderr-only first frame", r.frames[0].payload, f.frames[0].payload)

    def test_no_subprotocol_no_status(self):
        r, f = self.both(["true"], protocols=None)
        self.same("no subprotocol: status", r.response.status, f.response.status)
        self.same("no subprotocol: protocol", r.response.header("Sec-WebSocket-Protocol"),
                  f.response.header("Sec-WebSocket-Protocol"))
        self.same("no subprotocol: channels", sorted(k for k, v in fc.decode_exec(r).items() if v),
                  sorted(k for k, v in fc.decode_exec(f).items() if v))

    def test_pod_lists(self):
        for what, path in (("missing namespace", "/api/v1/namespaces/no-such-ns/pods"),
                           ("no match", "/api/v1/namespaces/%s/pods?labelSelector=x%%3Dnomatch")):
            rr = self.real.request(path % NS if "%s" in path else path)
            rf = self.fake.request(path % "demo" if "%s" in path else path)
            self.same(what + " status", rr.status, rf.status)
            jr, jf = json.loads(rr.body), json.loads(rf.body)
            self.same(what + " items", jr.get("items"), jf.get("items"))
            self.same(what + " kind", jr.get("kind"), jf.get("kind"))
        rr = self.real.request("/api/v1/namespaces/%s/pods" % NS)
        rf = self.fake.request("/api/v1/namespaces/demo/pods")
        ir, i_f = json.loads(rr.body)["items"][0], json.loads(rf.body)["items"][0]
        self.same("list items carry kind", "kind" in ir, "kind" in i_f)

    def test_status_killed(self):
        r, f = self.both(["sh", "-c", "kill -9 $$"])
        self.same("status killed", norm(fc.decode_exec(r)[3]), norm(fc.decode_exec(f)[3]))

    def test_frame_sizes(self):
        # How a stream is cut into messages depends on pipe timing (the
        # real kubelet sent 16385- and 32769-byte frames for the same
        # command on different runs), so only the protocol is compared:
        # the channel order, the bytes, one status message, the close, and
        # the 32 KiB + channel-byte upper bound (docs/exec-protocol.md 3).
        n = 70000
        r, f = self.both(["sh", "-c", "head -c %d /dev/zero | tr '\\0' x" % n])

        def data(x):
            return [fr.payload for fr in x.frames if fr.opcode == 2]

        def channel_runs(x):  # [1, 1, 1, 3] -> [1, 3]
            runs = []
            for p in data(x):
                if not runs or runs[-1] != p[:1]:
                    runs.append(p[:1])
            return runs

        for name, x in (("real", r), ("test cluster", f)):
            out = [p for p in data(x) if p[:1] == b"\x01"]
            self.assertEqual(b"".join(p[1:] for p in out), b"x" * n, name + ": stdout bytes")
            self.assertLessEqual(max(len(p) for p in out), 32 * 1024 + 1, name + ": frame bound")
            self.assertEqual(sum(p[:1] == b"\x03" for p in data(x)), 1, name + ": one status message")
            self.assertEqual(x.frames[-1].opcode, 8, name + ": ends with a Close")
        self.same("70000-byte stdout: channel order", channel_runs(r), channel_runs(f))
        self.assertEqual(channel_runs(r), [b"\x01", b"\x03"])
        self.same("70000-byte stdout: status", fc.decode_exec(r)[3], fc.decode_exec(f)[3])
        self.same("70000-byte stdout: close code", r.frames[-1].payload[:2], f.frames[-1].payload[:2])

    def test_v5_only_bare_403(self):
        r, f = self.both(["true"], protocols="v5.channel.k8s.io")
        self.same("v5-only status", r.response.status, f.response.status)
        self.same("v5-only body", r.response.body, f.response.body)
        self.same("v5-only Connection", r.response.header("Connection"), f.response.header("Connection"))

    def test_missing_container_400(self):
        r, f = self.both(["true"], container="nope")
        self.same("missing container status", r.response.status, f.response.status)
        self.same("missing container body", norm(r.response.body), norm(f.response.body))

    def test_missing_pod_404(self):
        r, f = self.both(["true"], pod="no-such-pod")
        self.same("missing pod status", r.response.status, f.response.status)
        self.same("missing pod body", norm(r.response.body), norm(f.response.body))

    def test_forbidden_403(self):
        r, f = self.both(["true"], user="viewer")
        self.same("no exec right status", r.response.status, f.response.status)
        self.same("no exec right body", norm(r.response.body), norm(f.response.body))

    def test_bad_token_401(self):
        r, f = self.both(["true"], user="not-a-valid-token")
        self.same("bad token status", r.response.status, f.response.status)
        self.same("bad token body", r.response.body, f.response.body)

    def test_no_streams_400(self):
        r, f = self.both(["true"], stdout=False, stderr=False)
        self.same("no streams status", r.response.status, f.response.status)
        self.same("no streams body", r.response.body, f.response.body)
        self.same("no streams content-type", r.response.header("Content-Type"),
                  f.response.header("Content-Type"))


# ---- issue 27: the plugin as a real Job, in-cluster (deploy/cronjob.yaml) ----
JOB_NS = "dynamo-interconnect"
VERDICT_CELL = {"READY": "Ready", "NOT READY": "NotReady", "UNVERIFIED": "Unverified"}


def api(method, path, body=None, timeout=20):
    """The admin's request to the real server: (status, body bytes)."""
    import ssl
    import urllib.error
    import urllib.request
    real = Real()
    ctx = ssl.create_default_context(cafile=real.cafile)
    r = urllib.request.Request(real.url + path, method=method,
                               data=json.dumps(body).encode() if body is not None else None,
                               headers={"Content-Type": "application/json",
                                        "Authorization": "Bearer " + real.token("admin")})
    try:
        with urllib.request.urlopen(r, context=ctx, timeout=timeout) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def wait_for(what, fn, secs):
    import time
    end = time.time() + secs
    while time.time() < end:
        v = fn()
        if v:
            return v
        time.sleep(0.5)
    raise AssertionError("%s: not after %s s" % (what, secs))


def cronjob_objects():
    import yaml
    with open(os.path.join(ROOT, "deploy", "cronjob.yaml")) as f:
        return {o["kind"]: o for o in yaml.safe_load_all(f) if o}


def admin(method, path, body=None):
    """One request as di-admin (client certificate): (status, parsed body)."""
    import ssl
    import urllib.error
    import urllib.request
    with open(os.path.join(ST, "server")) as f:
        server = f.read().strip()
    ctx = ssl.create_default_context(cafile=os.path.join(ST, "pki", "ca.crt"))
    ctx.load_cert_chain(os.path.join(ST, "pki", "admin.crt"), os.path.join(ST, "pki", "admin.key"))
    data = json.dumps(body).encode() if body is not None else None
    r = urllib.request.Request(server + path, data=data, method=method,
                               headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(r, context=ctx, timeout=20) as resp:
            code, raw = resp.status, resp.read()
    except urllib.error.HTTPError as e:
        code, raw = e.code, e.read()
    try:
        return code, json.loads(raw.decode() or "null")
    except ValueError:
        return code, raw.decode(errors="replace")


CRD = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
DGD_NAME = "dynamographdeployments.nvidia.com"


def apply_crd(name):
    """Creates, or replaces, the DGD CRD from manifests/NAME and waits until
    its versions are served."""
    import yaml
    with open(os.path.join(HERE, "manifests", name)) as f:
        crd = yaml.safe_load(f)
    code, old = admin("GET", CRD + "/" + DGD_NAME)
    if code == 200:
        crd["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"]
        code, body = admin("PUT", CRD + "/" + DGD_NAME, crd)
    else:
        code, body = admin("POST", CRD, crd)
    if code not in (200, 201):
        raise AssertionError("CRD %s: %d %s" % (name, code, body))
    for v in crd["spec"]["versions"]:
        path = "/apis/nvidia.com/%s/namespaces/%s/dynamographdeployments" % (v["name"], NS)
        for _ in range(60):
            if admin("GET", path)[0] == 200:
                break
            time.sleep(0.5)
        else:
            raise AssertionError("%s not served" % path)


def put_dgd(version, obj):
    """Creates obj at nvidia.com/VERSION (deleting one of its name first),
    then sets its status through the status subresource, as the operator does."""
    base = "/apis/nvidia.com/%s/namespaces/%s/dynamographdeployments" % (version, NS)
    name = obj["metadata"]["name"]
    admin("DELETE", base + "/" + name)
    for _ in range(40):
        if admin("GET", base + "/" + name)[0] == 404:
            break
        time.sleep(0.25)
    status = obj.pop("status", None)
    code, made = admin("POST", base, obj)
    if code != 201:
        raise AssertionError("DGD %s/%s: %d %s" % (version, name, code, made))
    if status:
        made["status"] = status
        code, body = admin("PUT", base + "/" + name + "/status", made)
        if code != 200:
            raise AssertionError("DGD status: %d %s" % (code, body))


# The DGD "vllm" of the two labelled pods (manifests/pods.yaml.in): prefill
# (vllm-prefill-tools, worker hash h1, UCX_TLS and UCX_NET_DEVICES in its
# spec) and decode (vllm-decode-plain, hash h0, busybox: no UCX variable).
UCX_TLS = "rc,cuda_copy,cuda_ipc,gdr_copy"
ALPHA = {
    "apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment",
    "metadata": {"name": "vllm", "namespace": NS,
                 "annotations": {"nvidia.com/current-worker-hash": "h1"}},
    "spec": {"backendFramework": "vllm",
             "envs": [{"name": "UCX_TLS", "value": UCX_TLS}],
             "services": {
                 "Frontend": {"componentType": "frontend", "replicas": 1},
                 "prefill": {"componentType": "worker", "subComponentType": "prefill", "replicas": 1,
                             "envs": [{"name": "UCX_NET_DEVICES", "value": "mlx5_0:1"}]},
                 "decode": {"componentType": "worker", "subComponentType": "decode", "replicas": 1}}},
    "status": {"state": "successful", "conditions": [{
        "type": "Ready", "status": "True", "reason": "all_resources_are_ready", "message": "ok",
        "lastTransitionTime": "2026-12-04T00:00:00Z"}]}}
BETA = {
    "apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
    "metadata": {"name": "vllm", "namespace": NS,
                 "annotations": {"nvidia.com/current-worker-hash": "h1"}},
    "spec": {"backendFramework": "vllm",
             "env": [{"name": "UCX_TLS", "value": UCX_TLS}],
             "components": [
                 {"name": "prefill", "type": "prefill", "replicas": 1,
                  "podTemplate": {"spec": {"containers": [{"name": "main", "env": [
                      {"name": "UCX_NET_DEVICES", "value": "mlx5_0:1"}]}]}}},
                 {"name": "decode", "type": "decode", "replicas": 1},
                 {"name": "decode-extra", "type": "decode", "replicas": 1}]},
    "status": {"state": "pending", "components": {
        "decode-extra": {"componentKind": "Deployment", "replicas": 1, "updatedReplicas": 1}}}}


class TestDgd(unittest.TestCase):
    """check --dgd against DGD objects of both versions in the real API
    server, under the chart's CRD (reduced; manifests/dgd-crd-*.yaml).
    Expected, written before the tool ran on them:
    - v1alpha1 only served (the older chart): read at v1alpha1; one
      dgd-generation warn (vllm-decode-plain, h0 against h1), one dgd-env warn
      (vllm-decode-plain: UCX_TLS unset, the DGD's graph-wide value), nothing
      for vllm-prefill-tools (its process has both variables as stated), no
      dgd-component-pods; the exit code is the pods' own (-l of the graph).
    - both served (the current chart): read at v1beta1; the same two warns,
      and one dgd-component-pods fail (decode-extra has no pod): exit 2;
      -o json holds it with replicaStatus {replicas 1, updatedReplicas 1}."""

    @classmethod
    def setUpClass(cls):
        apply_crd("dgd-crd-v1alpha1.yaml")
        put_dgd("v1alpha1", json.loads(json.dumps(ALPHA)))
        cls.alpha = plugin("check", "-n", NS, "--dgd", "vllm", timeout=300)
        cls.labels = plugin("check", "-n", NS, "-l", "nvidia.com/dynamo-graph-deployment-name=vllm",
                            timeout=300)
        apply_crd("dgd-crd-v1beta1.yaml")
        put_dgd("v1beta1", json.loads(json.dumps(BETA)))
        cls.beta = plugin("check", "-n", NS, "--dgd", "vllm", timeout=300)
        cls.beta_json = plugin("check", "-n", NS, "--dgd", "vllm", "-o", "json", timeout=300)
        sys.stderr.write("\n--- check --dgd vllm (v1alpha1, then v1beta1) ---\n%s%s%s%s---\n"
                         % (cls.alpha[1], cls.alpha[2], cls.beta[1], cls.beta[2]))

    @classmethod
    def tearDownClass(cls):
        # Leaves the cluster as up.sh made it (no CRD) for the other tests.
        base = "/apis/nvidia.com/v1beta1/namespaces/%s/dynamographdeployments" % NS
        admin("DELETE", base + "/vllm")
        admin("DELETE", CRD + "/" + DGD_NAME)
        for _ in range(60):
            if admin("GET", base)[0] == 404 and admin("GET", CRD + "/" + DGD_NAME)[0] == 404:
                break
            time.sleep(0.5)

    @staticmethod
    def lines(out, word):
        return [l for l in out.splitlines() if word in l]

    def test_alpha(self):
        rc, out, err = self.alpha
        self.assertIn("DynamoGraphDeployment %s/vllm (v1alpha1, state successful, Ready True, "
                      "worker hash h1):" % NS, out)
        gen = self.lines(out, "dgd-generation")
        self.assertEqual(len(gen), 1, out)
        self.assertIn("vllm-decode-plain is of worker generation h0", gen[0])
        env = self.lines(out, "dgd-env")
        self.assertEqual(len(env), 1, out)
        self.assertIn("vllm-decode-plain: UCX_TLS is unset, the DGD says " + UCX_TLS, env[0])
        self.assertEqual(self.lines(out, "dgd-component-pods"), [], out)
        self.assertEqual(rc, self.labels[0], err + self.labels[2])

    def test_beta(self):
        rc, out, err = self.beta
        self.assertIn("DynamoGraphDeployment %s/vllm (v1beta1, state pending," % NS, out)
        self.assertEqual(len(self.lines(out, "dgd-generation")), 1, out)
        env = self.lines(out, "dgd-env")
        self.assertEqual(len(env), 1, out)
        self.assertIn("vllm-decode-plain: UCX_TLS is unset", env[0])
        comp = self.lines(out, "dgd-component-pods")
        self.assertEqual(len(comp), 1, out)
        self.assertIn("component decode-extra (type decode) has no running pod", comp[0])
        self.assertEqual(rc, 2, err)

    def test_beta_json(self):
        rc, out, err = self.beta_json
        self.assertEqual(rc, 2, err)
        d = json.loads(out)["dynamoGraphDeployments"][0]
        self.assertEqual((d["apiVersion"], d["state"], d["status"]),
                         ("nvidia.com/v1beta1", "pending", "fail"))
        comps = {c["name"]: c for c in d["components"]}
        self.assertEqual(comps["prefill"]["runningPods"], 1)
        self.assertEqual(comps["prefill"]["currentGenerationPods"], 1)
        self.assertEqual(comps["decode"]["currentGenerationPods"], 0)
        self.assertEqual(comps["decode-extra"]["replicaStatus"], {"replicas": 1,
                                                                  "updatedReplicas": 1})


class TestInClusterJob(unittest.TestCase):
    """deploy/cronjob.yaml's ServiceAccount, ClusterRole and binding, and its
    jobTemplate as a Job (v1.20 has no batch/v1 CronJob): the Job controller
    makes the pod, the ServiceAccount admission mounts the token the token
    controller made, the plugin (make image) runs in-cluster.  Test-only
    changes to the pod: nodeName (no scheduler), hostNetwork and
    KUBERNETES_SERVICE_HOST=127.0.0.1 (no kube-proxy: the service IP leads
    nowhere; the apiserver listens on the loopback), imagePullPolicy Never."""

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(os.path.join(ST, "plugin-image")):
            raise unittest.SkipTest("no plugin image imported (make image; run.sh passes it)")
        objs = cronjob_objects()
        cls.cron = objs["CronJob"]
        code, body = api("POST", "/api/v1/namespaces",
                         {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": JOB_NS}})
        assert code in (201, 409), body
        for kind, path in (("ServiceAccount", "/api/v1/namespaces/%s/serviceaccounts" % JOB_NS),
                           ("ClusterRole", "/apis/rbac.authorization.k8s.io/v1/clusterroles"),
                           ("ClusterRoleBinding",
                            "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings")):
            code, body = api("POST", path, objs[kind])
            assert code in (201, 409), (kind, body[:300])
        # the token controller's secret first: else the admission refuses the pod
        wait_for("the service account's token secret", lambda: json.loads(api(
            "GET", "/api/v1/namespaces/%s/serviceaccounts/dynamo-interconnect" % JOB_NS)[1])
            .get("secrets"), 60)
        spec = json.loads(json.dumps(cls.cron["spec"]["jobTemplate"]["spec"]))
        pod = spec["template"]["spec"]
        pod.update({"nodeName": NODE, "hostNetwork": True})
        c = pod["containers"][0]
        c["imagePullPolicy"] = "Never"
        c["env"] = [{"name": "KUBERNETES_SERVICE_HOST", "value": "127.0.0.1"},
                    {"name": "KUBERNETES_SERVICE_PORT", "value": str(Real().port)}]
        job = {"apiVersion": "batch/v1", "kind": "Job",
               "metadata": {"name": "di-incluster", "namespace": JOB_NS}, "spec": spec}
        code, body = api("POST", "/apis/batch/v1/namespaces/%s/jobs" % JOB_NS, job)
        assert code == 201, body[:500]

        def done():
            pods = json.loads(api("GET", "/api/v1/namespaces/%s/pods?labelSelector=job-name%%3D"
                                  "di-incluster" % JOB_NS)[1])["items"]
            ended = [p for p in pods if p["status"].get("phase") in ("Succeeded", "Failed")]
            return ended[0] if ended else None
        cls.pod = wait_for("the Job's pod to end", done, 240)
        code, body = api("GET", "/api/v1/namespaces/%s/pods/%s/log"
                         % (JOB_NS, cls.pod["metadata"]["name"]))
        assert code == 200, body[:300]
        cls.log = body.decode(errors="replace")
        sys.stderr.write("\n--- the in-cluster Job's log ---\n%s---\n" % cls.log)
        rc, out, err = plugin("check", "-A", "-o", "json", timeout=300)
        cls.outside_rc, cls.outside = rc, json.loads(out)

    def test_deploy_file(self):
        self.assertEqual(self.cron["spec"]["concurrencyPolicy"], "Forbid")
        c = self.cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]
        self.assertIn("limits", c["resources"])
        rules = cronjob_objects()["ClusterRole"]["rules"]
        verbs = {v for r in rules for v in r["verbs"]}
        self.assertEqual(verbs - {"get", "list", "create"}, set())
        self.assertEqual([r["resources"] for r in rules if "create" in r["verbs"]], [["pods/exec"]])

    def test_job_pod_ran_in_cluster(self):
        """The pod's exit code is the plugin's: the verdict's, as outside."""
        st = self.pod["status"]["containerStatuses"][0]["state"]["terminated"]
        self.assertEqual(st["exitCode"], self.outside_rc, self.log)
        self.assertEqual(self.pod["spec"]["serviceAccountName"], "dynamo-interconnect")

    def test_log_holds_the_report(self):
        """Every worker pod's row, with the verdict an admin's run gives."""
        lines = self.log.splitlines()
        head = lines[0].split()
        self.assertEqual(head[0], "NAMESPACE", self.log)
        col = head.index("VERDICT")
        rows = {l.split()[1]: l.split() for l in lines[1:] if l.startswith(NS + " ")}
        want = {p["name"]: VERDICT_CELL[p["verdict"]] for p in self.outside["pods"]}
        self.assertEqual(sorted(rows), sorted([TOOLS, PLAIN, TWO, PENDING]))
        self.assertEqual({n: r[col] for n, r in rows.items()}, want)
        status = self.outside["verdict"]["status"]
        self.assertTrue(any(status in l for l in lines), self.log)


if __name__ == "__main__":
    unittest.main(verbosity=2)
