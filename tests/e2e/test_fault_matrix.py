#!/usr/bin/python3
"""The fault matrix through `check -o json`: every way the API server, the
network, a pod or the credentials can misbehave.  Each test asserts that the
affected pods are error rows (probed=false) with a clear reason, that the
other pods are judged as usual, that the exit code follows product.md
(1 only when the run as a whole failed: no usable pod list, no credentials,
no TLS; otherwise the verdict's 2/3) and that the run ends within its
deadline plus a margin.

Exec faults share one server (one targeted pod each, --fault NAME=POD);
list, auth and TLS faults use a small scenario.  The exec protocol details
of each fault are in test_exec.py (di_exec); here it is the product.
"""
import datetime
import json
import os
import signal
import socket
import ssl
import subprocess
import threading
import time
import unittest

import yaml

from base import E2ECase
from plugin import PLUGIN, plugin_env, run_timed as run

HERE = os.path.dirname(os.path.abspath(__file__))
MATRIX = os.path.join(HERE, "scenarios", "fault-matrix.yaml")
SMALL = os.path.join(HERE, "scenarios", "fault-small.yaml")
MARGIN = 10   # seconds on top of a deadline (ASan build, 2 cores, busy CI)




def pods_of(out):
    doc = json.loads(out)
    return doc, {p["name"]: p for p in doc["pods"]}


def write_kubeconfig(c, path, mutate):
    """A copy of the cluster's kubeconfig changed by mutate(dict)."""
    with open(c.kubeconfig) as f:
        kc = yaml.safe_load(f)
    mutate(kc)
    with open(path, "w") as f:
        yaml.safe_dump(kc, f)
    os.chmod(path, 0o600)
    return path


def openssl(*args, cwd):
    subprocess.run(["openssl"] + list(args), cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


# --- exec faults: one server, one pod per fault -----------------------------

EXEC_FAULTS = {
    # pod: (fault, words the reason must contain)
    "f-hang": ("exec-hang", "timed out"),
    "f-drop": ("exec-drop-mid-frame", "connection closed"),
    "f-unoffered": ("exec-unoffered-protocol", "v9.channel.k8s.io"),
    "f-badaccept": ("exec-bad-accept", "Sec-WebSocket-Accept"),
    "f-masked": ("exec-masked-frame", "masked frame"),
    "f-reserved": ("exec-reserved-opcode", "reserved opcode"),
    "f-huge": ("exec-huge-length", "64-bit frame length"),
    "f-orphan": ("exec-orphan-continuation", "continuation frame"),
    "f-garbage": ("exec-garbage-status", "invalid JSON"),
    "f-nostatus": ("exec-no-status", "without an exec status"),
    "f-oversized": ("exec-oversized-output", "MiB cap"),
    "f-deleted": ("pod-deleted", 'pods "f-deleted" not found'),
    "f-429": ("exec-429", "TooManyRequests"),
}
PROBE_TIMEOUT = 5


class TestExecFaultMatrix(E2ECase):
    """All exec faults at once: each pod its own answer, within the deadline."""
    SCENARIO = MATRIX
    FAULTS = ["%s=%s" % (f, pod) for pod, (f, _) in EXEC_FAULTS.items()] + ["exec-no-close=f-noclose"]
    ENV = {"FAKECLUSTER_OVERSIZED_BYTES": str(40 << 20)}

    @classmethod
    def fixture(cls):
        cls.rc, cls.out, cls.err, cls.took = run(
            ["check", "-n", "faults", "-l", "", "--probe-timeout", "%ds" % PROBE_TIMEOUT,
             "-o", "json", "--kubeconfig", cls.c.kubeconfig])
        cls.doc, cls.by = pods_of(cls.out)

    def test_ends_within_the_probe_deadline(self):
        self.assertLess(self.took, PROBE_TIMEOUT + MARGIN)

    def test_exit_code_is_the_verdict(self):
        self.assertIn(self.rc, (2, 3), self.err)
        self.assertEqual(self.rc, self.doc["verdict"]["exitCode"])
        self.assertNotEqual(self.doc["verdict"]["status"], "READY")

    def test_unaffected_pods_are_judged(self):
        for name in ("normal-0", "normal-1", "f-sidecar-down"):
            p = self.by[name]
            self.assertTrue(p["probed"], p["error"])
            self.assertTrue(p["checks"])
        # the same profile, the same judgement
        strip = lambda p: [(c["name"], c["status"]) for c in p["checks"]]
        self.assertEqual(strip(self.by["normal-0"]), strip(self.by["normal-1"]))

    def test_close_without_close_frame_is_accepted(self):
        # The status arrived; a TCP close instead of a Close frame loses nothing.
        self.assertTrue(self.by["f-noclose"]["probed"], self.by["f-noclose"]["error"])

    def _fault(self, pod):
        p = self.by[pod]
        self.assertFalse(p["probed"], pod)
        self.assertEqual(p["verdict"], "UNVERIFIED")
        want = EXEC_FAULTS[pod][1]
        if pod == "f-429":
            # Retried on Retry-After until the probe deadline; on a loaded
            # machine the last try may be the one cut by the deadline.
            self.assertTrue(want in p["error"] or "timed out" in p["error"], p["error"])
        else:
            self.assertIn(want, p["error"])
        self.assertNotIn("\n", p["error"])


for _pod in EXEC_FAULTS:
    setattr(TestExecFaultMatrix, "test_" + _pod.replace("-", "_"),
            (lambda pod: lambda self: self._fault(pod))(_pod))


# --- list faults ------------------------------------------------------------

class ListFault(E2ECase):
    SCENARIO = SMALL

    def check(self, *extra, kubeconfig=None, timeout=120):
        return run(["check", "-n", "faults", "-l", "", "--probe-timeout", "10s", "-o", "json",
                    "--kubeconfig", kubeconfig or self.c.kubeconfig] + list(extra),
                   timeout=timeout)

    def assertJudged(self, rc, out, err):
        self.assertIn(rc, (2, 3), err)
        doc, by = pods_of(out)
        self.assertEqual(rc, doc["verdict"]["exitCode"])
        self.assertTrue(by["normal-0"]["probed"], by["normal-0"]["error"])
        self.assertTrue(by["normal-1"]["probed"], by["normal-1"]["error"])
        return doc, by

    def assertRunError(self, rc, out, err, *words):
        self.assertEqual(rc, 1, err)
        self.assertEqual(out, "")
        self.assertTrue(err.strip(), "says why")
        self.assertNotIn("Traceback", err)
        for w in words:
            self.assertIn(w, err)

    def list_requests(self):
        return [q for q in self.c.log() if q["path"].endswith("/pods")]


class TestList429(ListFault):
    # gzip-always too: both must end in a normal, judged run
    FAULTS = ("list-429=2", "list-gzip-always")

    def test_retried_after_retry_after(self):
        rc, out, err, took = self.check()
        self.assertJudged(rc, out, err)
        self.assertEqual([q["status"] for q in self.list_requests()][:3], [429, 429, 200])
        self.assertGreaterEqual(took, 2, "Retry-After: 1 was honoured")


class TestList500(ListFault):
    FAULTS = ("list-500",)

    def test_whole_run_error(self):
        rc, out, err, took = self.check()
        self.assertRunError(rc, out, err, "InternalError")
        self.assertLess(took, MARGIN)


class TestList503(ListFault):
    FAULTS = ("list-503",)

    def test_whole_run_error_after_retries(self):
        rc, out, err, took = self.check()
        self.assertRunError(rc, out, err, "ServiceUnavailable")
        self.assertGreater(len(self.list_requests()), 1, "retried")
        self.assertLess(took, 30 + MARGIN)


class TestListTruncated(ListFault):
    FAULTS = ("list-truncated",)

    def test_whole_run_error(self):
        rc, out, err, took = self.check()
        self.assertRunError(rc, out, err)
        self.assertLess(took, MARGIN)


class TestListEndlessContinue(ListFault):
    FAULTS = ("list-endless-continue",)

    def test_whole_run_error(self):
        rc, out, err, took = self.check("--chunk-size", "1", timeout=60)
        self.assertRunError(rc, out, err, "does not advance")
        self.assertLess(took, 30 + MARGIN)

    def test_whole_run_deadline_bounds_it(self):
        rc, out, err, took = self.check("--chunk-size", "1", "--timeout", "2s", timeout=60)
        self.assertEqual(rc, 1)
        self.assertLess(took, 2 + MARGIN)


class TestTokenExpire(ListFault):
    FAULTS = ("token-expire=2",)

    def test_plugin_rerun_on_401(self):
        # Each token serves 2 requests here: the workers' log reads would
        # use up the fresh tokens the execs are retried with.
        rc, out, err, _ = self.check("--context", "fakecluster-plugin-user", "--logs=false")
        self.assertJudged(rc, out, err)
        self.assertIn(401, [q["status"] for q in self.c.log()])

    def test_static_token_stays_expired(self):
        rc, out, err, _ = self.check()
        # The list may or may not have been the first request: either a
        # whole-run 401 error or error rows, never a crash or a hang.
        if rc == 1:
            self.assertIn("Unauthorized", err)
        else:
            # The token serves 2 requests: the list, then whichever exec
            # reaches the server first (the execs run in parallel, so which
            # pod that is varies). Every later exec must fail Unauthorized.
            doc, by = pods_of(out)
            probed = [n for n, p in by.items() if p["probed"]]
            refused = [n for n, p in by.items()
                       if not p["probed"] and "Unauthorized" in (p["error"] or "")]
            self.assertLessEqual(len(probed), 1, probed)
            self.assertTrue(refused, by)


class ContainerNotRunning:
    def test_named_container_not_running(self):
        rc, out, err, _ = self.check("-c", "sidecar")
        doc, by = pods_of(out)
        p = by["f-sidecar-down"]
        self.assertFalse(p["probed"])
        self.assertIn("not running", p["error"])
        self.assertIn(rc, (2, 3))


class TestContainerNotRunningV4(ContainerNotRunning, ListFault):
    MODE = "v4"


# --- credentials and TLS ----------------------------------------------------

class TestAuthAndTLS(ContainerNotRunning, ListFault):
    """(v5 server: also the container-not-running case in v5 mode)"""
    TMP = "di-faults-"

    def plugin_kubeconfig(self, name, script):
        path = os.path.join(self.tmp, name + ".sh")
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + script)
        os.chmod(path, 0o755)

        def mutate(kc):
            for u in kc["users"]:
                if u["name"] == "admin":
                    u["user"] = {"exec": {"apiVersion": "client.authentication.k8s.io/v1",
                                          "command": path, "interactiveMode": "Never"}}
        return write_kubeconfig(self.c, os.path.join(self.tmp, name + ".kc"), mutate)

    def test_plugin_fails(self):
        kc = self.plugin_kubeconfig("fails", "echo 'no credentials here' >&2; exit 3\n")
        rc, out, err, took = self.check(kubeconfig=kc)
        self.assertRunError(rc, out, err, "exit code 3")
        self.assertLess(took, MARGIN)

    def test_plugin_prints_garbage(self):
        kc = self.plugin_kubeconfig("garbage", "echo '{not an ExecCredential'\n")
        rc, out, err, took = self.check(kubeconfig=kc)
        self.assertRunError(rc, out, err)
        self.assertLess(took, MARGIN)

    def test_plugin_hangs_bounded_by_timeout(self):
        kc = self.plugin_kubeconfig("hangs", "exec sleep 600\n")
        rc, out, err, took = self.check("--timeout", "2s", kubeconfig=kc, timeout=60)
        self.assertRunError(rc, out, err, "--timeout")
        self.assertLess(took, 2 + MARGIN)

    def test_wrong_server_name(self):
        rc, out, err, took = self.check("--tls-server-name", "wrong.example")
        self.assertRunError(rc, out, err, "certificate")
        self.assertLess(took, MARGIN)

    def test_unknown_ca(self):
        d = os.path.join(self.tmp, "otherca")
        os.mkdir(d)
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key",
                "-out", "ca.crt", "-days", "2", "-subj", "/CN=other-ca", cwd=d)
        path = os.path.join(d, "ca.crt")
        kc = write_kubeconfig(self.c, os.path.join(self.tmp, "otherca.kc"), lambda kc: [
            cl["cluster"].pop("certificate-authority-data") and
            cl["cluster"].__setitem__("certificate-authority", path) for cl in kc["clusters"]])
        rc, out, err, took = self.check(kubeconfig=kc)
        self.assertRunError(rc, out, err, "certificate")
        self.assertLess(took, MARGIN)

    def test_expired_certificate(self):
        d = os.path.join(self.tmp, "expired")
        os.mkdir(d)
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key",
                "-out", "ca.crt", "-days", "30", "-subj", "/CN=test-ca",
                "-addext", "basicConstraints=critical,CA:TRUE", cwd=d)
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "srv.key", "-out", "srv.csr",
                "-subj", "/CN=127.0.0.1", cwd=d)
        with open(os.path.join(d, "ext"), "w") as f:
            f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
        with open(os.path.join(d, "ca.cnf"), "w") as f:
            f.write("[ca]\ndefault_ca=c\n[c]\ndatabase=index.txt\nnew_certs_dir=.\n"
                    "serial=serial\ndefault_md=sha256\npolicy=p\ncopy_extensions=copy\n"
                    "[p]\ncommonName=supplied\n")
        open(os.path.join(d, "index.txt"), "w").close()
        with open(os.path.join(d, "serial"), "w") as f:
            f.write("01\n")
        openssl("ca", "-batch", "-config", "ca.cnf", "-cert", "ca.crt", "-keyfile", "ca.key",
                "-in", "srv.csr", "-out", "srv.crt", "-extfile", "ext",
                "-startdate", "20200101000000Z", "-enddate", "20200201000000Z", cwd=d)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(os.path.join(d, "srv.crt"), os.path.join(d, "srv.key"))
        ls = socket.socket()
        ls.bind(("127.0.0.1", 0))
        ls.listen(4)
        port = ls.getsockname()[1]
        stop = threading.Event()

        def serve():
            ls.settimeout(0.2)
            while not stop.is_set():
                try:
                    s, _ = ls.accept()
                except OSError:
                    continue
                try:
                    s.settimeout(5)
                    ctx.wrap_socket(s, server_side=True).close()
                except (OSError, ssl.SSLError):
                    pass
                finally:
                    s.close()
        t = threading.Thread(target=serve, daemon=True)
        t.start()
        try:
            with open(os.path.join(d, "ca.crt"), "rb") as f:
                import base64
                ca = base64.b64encode(f.read()).decode()

            def mutate(kc):
                for cl in kc["clusters"]:
                    cl["cluster"]["server"] = "https://127.0.0.1:%d" % port
                    cl["cluster"]["certificate-authority-data"] = ca
            kc = write_kubeconfig(self.c, os.path.join(self.tmp, "expired.kc"), mutate)
            rc, out, err, took = self.check(kubeconfig=kc)
        finally:
            stop.set()
            t.join()
            ls.close()
        self.assertRunError(rc, out, err, "expired")
        self.assertLess(took, MARGIN)


# --- the whole-run deadline and signals -------------------------------------

class TestCancel(E2ECase):
    """--timeout and Ctrl-C stop a run that a hung exec would hold for the
    whole probe deadline, and print what finished."""
    SCENARIO = SMALL
    FAULTS = ["exec-hang=normal-1"]

    def argv(self, *extra):
        return [PLUGIN, "check", "-n", "faults", "-l", "", "--probe-timeout", "60s",
                "-o", "json", "--kubeconfig", self.c.kubeconfig] + list(extra)

    def assertPartial(self, out, reason):
        doc, by = pods_of(out)
        self.assertTrue(by["normal-0"]["probed"], by["normal-0"]["error"])
        self.assertFalse(by["normal-1"]["probed"])
        self.assertIn(reason, by["normal-1"]["error"])
        self.assertNotEqual(doc["verdict"]["exitCode"], 0)
        return doc

    def test_timeout(self):
        # normal-0 must finish inside the deadline even on a loaded CI machine
        rc, out, err, took = run(self.argv("--timeout", "6s")[1:])
        self.assertLess(took, 6 + MARGIN)
        doc = self.assertPartial(out, "--timeout")
        self.assertEqual(rc, doc["verdict"]["exitCode"])
        self.assertIn("warning: the run's --timeout passed", err)

    def test_bad_timeout(self):
        rc, out, err, _ = run(self.argv("--timeout", "soon")[1:])
        self.assertEqual(rc, 1)
        self.assertIn('invalid --timeout "soon"', err)

    def _signal(self, sig, reason):
        e = dict(os.environ, HOME="/nonexistent")
        e.pop("KUBECONFIG", None)
        def done():
            return sum(1 for q in self.c.log() if q["path"].endswith("/normal-0/exec")
                       and q.get("exit_code") is not None)
        before = done()
        p = subprocess.Popen(self.argv(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e)
        # wait until normal-0 has been probed (its exec is in the log)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and done() == before:
            time.sleep(0.1)
        time.sleep(1.0)
        p.send_signal(sig)
        out, err = p.communicate(timeout=30)
        # Prompt: communicate's 30 s is half the hung exec's 60 s, and the
        # reason below says the signal, not the deadline, ended it.
        doc = self.assertPartial(out.decode(), reason)
        self.assertEqual(p.returncode, doc["verdict"]["exitCode"])

    def test_sigint(self):
        self._signal(signal.SIGINT, "interrupted")

    def test_node_and_nixl_interrupted(self):
        # node --pod and nixl on the hung pod: Ctrl-C ends them at once
        # (the probe deadline is 60 s) with the pod's reason, not a kill.
        for sub in (["node", "--pod", "normal-1", "-o", "json"], ["nixl", "--pod", "normal-1"]):
            p = subprocess.Popen([PLUGIN] + sub + ["-n", "faults", "--kubeconfig", self.c.kubeconfig],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=plugin_env())
            time.sleep(2.0)
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=30)
            # prompt: within communicate's 30 s (the probe deadline is 60 s)
            self.assertNotEqual(p.returncode, -signal.SIGINT, sub)
            self.assertIn("interrupted", (out + err).decode(), sub)

    def test_sigterm(self):
        self._signal(signal.SIGTERM, "SIGTERM")


# Issue 12's hostile inputs (escapes, smuggled headers, envFrom Secrets,
# drip, continue loops, oversized pages, redirects): test_fault_hostile.py.


if __name__ == "__main__":
    unittest.main()
