#!/usr/bin/python3
"""End to end against a real Kubernetes (v1.20.2 kube-apiserver, kubelet,
containerd, runc) brought up by up.sh: the plugin binary and the test-only
exec driver, then the test cluster's v4 mode compared with the real server;
the API objects (DGDs, the in-cluster Job) are test_real_api.py, run from
here too (run.sh runs this file); what both share is real.py.

Environment: DI_RC_STATE (up.sh's state dir), DI_PLUGIN (the binary,
default ./kubectl-dynamo_interconnect), DI_EXEC (default build/tools/di_exec).
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from real import (DIFFS, KC, NEED_TOOLS, NODE, NS, PENDING, PLAIN, PLUGIN, Real,  # noqa: E402
                  TOOLS, TWO, di, env, fc, plugin)
from test_real_api import TestDgd, TestInClusterJob  # noqa: E402,F401  (run from here)


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


if __name__ == "__main__":
    unittest.main(verbosity=2)
