#!/usr/bin/python3
"""check --transfer / nixl --transfer: a REAL ucx_perftest (Debian's
ucx-utils, shown in the pods by the tcp-ucx profile) between two test-cluster
pods, each in its own network namespace, over TCP on their eth0.

- it reports the transfer as working but on TCP: TRANSFER fail with the
  measured bandwidth (> 0), verdict NOT READY;
- nothing it started is left running in either pod afterwards: after a
  normal run, after its time limit, and after SIGINT mid-transfer (every
  process it starts carries DI_TRANSFER=<token> in its environment; the
  host's /proc is searched for that token);
- the only execs besides the probe are the two fixed scripts, with
  arguments the plugin generated (token, port, sizes, seconds) or validated
  (the server pod's IP): no user text;
- a pod without ucx_perftest gives TRANSFER skipped (never a pass);
- without --transfer nothing of this runs and the column is absent.
"""
import json
import os
import re
import signal
import subprocess
import time
import unittest

from base import ROOT, E2ECase
from plugin import PLUGIN, plugin_env, run, script_sha256


def script(name):
    with open(os.path.join(ROOT, "src", "probe", name)) as f:
        return f.read()


PROBE = script("probe.sh")
# Scripts travel on stdin (src/probe/invoke.h); the test cluster logs the
# sha256 of what each exec got there.
PROBE_CMD = ["sh", "-s"]
PERFTEST, CLEANUP = script_sha256("xfer_perftest.sh"), script_sha256("xfer_cleanup.sh")
HEX16 = re.compile(r"^[0-9a-f]{16}$")
NUM = re.compile(r"^[0-9]+$")
HAVE_UCX = os.path.exists("/usr/bin/ucx_perftest") and \
    (os.path.exists("/usr/sbin/ip") or os.path.exists("/sbin/ip"))




def marked(token):
    """Host pids whose environment carries DI_TRANSFER=token (the pods'
    processes are host processes too)."""
    want = b"DI_TRANSFER=" + token.encode()
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/environ" % d, "rb") as f:
                if want in f.read().split(b"\0"):
                    found.append(int(d))
        except OSError:
            pass
    return found


def settled(token, grace=10.0):
    """marked(token) once the processes a cleanup just killed have had
    GRACE seconds to die: a SIGKILLed process can still show its environ
    until the kernel is next scheduled for it, so an empty answer may lag
    the cleanup on a loaded machine.  What is asserted is that nothing is
    LEFT running, not how fast it stops."""
    deadline = time.monotonic() + grace
    found = marked(token)
    while found and time.monotonic() < deadline:
        time.sleep(0.2)
        found = marked(token)
    return found


def running_tokens():
    found = set()
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/environ" % d, "rb") as f:
                    for kv in f.read().split(b"\0"):
                        if kv.startswith(b"DI_TRANSFER="):
                            found.add(kv[12:].decode())
            except OSError:
                pass
    return found


def transfer_execs(reqs):
    return [q for q in reqs if q["path"].endswith("/exec") and q.get("command") != PROBE_CMD]


def token(cmd):
    """sh -s -- server|client TOKEN ..., or sh -s -- TOKEN (cleanup)."""
    return cmd[4] if cmd[3] in ("server", "client") else cmd[3]


def tokens(reqs):
    return sorted(set(token(q["command"]) for q in transfer_execs(reqs)))


def checks(doc, pod):
    return [c for p in doc["pods"] if p["name"] == pod for c in p["checks"] if c["family"] == "TRANSFER"]


class WithCluster(E2ECase):
    @classmethod
    def fixture(cls):
        cls.kc = ["--kubeconfig", cls.c.kubeconfig]


@unittest.skipUnless(HAVE_UCX, "needs Debian's ucx-utils (/usr/bin/ucx_perftest) and iproute2")
class TestTransferTCP(WithCluster):
    SCENARIO = "transfer.yaml"

    def no_leftovers(self, since):
        reqs = self.c.log()[since:]
        toks = tokens(reqs)
        self.assertTrue(toks, "no transfer ran")
        for t in toks:
            self.assertEqual(settled(t), [], "processes of transfer %s still running" % t)
        return reqs

    def test_real_transfer_reports_tcp(self):
        n0 = len(self.c.log())
        rc, out, err = run(["check", "--transfer", "-o", "json"] + self.kc)
        self.assertEqual(rc, 2, err)
        doc = json.loads(out)
        self.assertEqual(doc["verdict"]["status"], "NOT READY")
        self.assertIn("transfer: running ucx_perftest server in decode pod qwen-decode-0, "
                      "client in prefill pod qwen-prefill-0", err)
        for pod in ("qwen-prefill-0", "qwen-decode-0"):
            (t,) = checks(doc, pod)
            self.assertEqual(t["status"], "fail", t)
            self.assertEqual(t["name"], "transfer")
            m = re.search(r"KV would move over TCP at ([0-9.]+) GB/s", t["detail"])
            self.assertTrue(m, t["detail"])
            self.assertGreater(float(m.group(1)), 0)
            self.assertIn("tcp/eth0", t["detail"])
            self.assertIn("400 Gb/s", t["detail"])
            self.assertTrue(t["remedy"])
        # one pair per node pair: decode-1 shares decode-0's node, not tested
        self.assertEqual(checks(doc, "qwen-decode-1"), [])
        reqs = self.no_leftovers(n0)
        # exactly server, client, and cleanup in both pods
        self.assertEqual(len(transfer_execs(reqs)), 4)

    def test_table_column(self):
        rc, out, err = run(["check", "--transfer", "-o", "wide"] + self.kc)
        self.assertEqual(rc, 2, err)
        head = out.splitlines()[0].split()
        self.assertIn("TRANSFER", head)
        rows = {ln.split()[0]: ln.split() for ln in out.splitlines()[1:4]}
        i = head.index("TRANSFER")
        self.assertEqual(rows["qwen-prefill-0"][i], "fail")
        self.assertEqual(rows["qwen-decode-1"][i], "-")
        self.assertIn("KV would move over TCP", out)

    def test_without_transfer_nothing_runs(self):
        n0 = len(self.c.log())
        rc, out, err = run(["check"] + self.kc)
        self.assertNotIn("TRANSFER", out.splitlines()[0])
        self.assertNotIn("transfer:", err)
        execs = [q for q in self.c.log()[n0:] if q["path"].endswith("/exec")]
        self.assertTrue(execs)
        for q in execs:
            self.assertEqual(q["command"], PROBE_CMD)
            self.assertEqual(q.get("stdin_sha256"), script_sha256("probe.sh"))

    def test_only_fixed_scripts_with_generated_args(self):
        n0 = len(self.c.log())
        hostile = "$(touch /tmp/di-xfer-pwned)"
        run(["check", "--transfer", "-l", "nvidia.com/dynamo-graph-deployment-name=qwen"] + self.kc)
        run(["nixl", "--transfer", "--pod", "qwen-prefill-0", "--peer", hostile] + self.kc)
        reqs = self.c.log()[n0:]
        self.assertFalse(os.path.exists("/tmp/di-xfer-pwned"))
        for q in reqs:
            self.assertEqual(q["method"], "GET")
        ips = {"10.88.0.3", "10.88.0.4", "10.88.0.5"}
        xs = transfer_execs(reqs)
        self.assertTrue(xs)
        for q in xs:
            cmd = q["command"]
            self.assertEqual(cmd[:3], ["sh", "-s", "--"])
            self.assertTrue(HEX16.match(token(cmd)), cmd)
            args = cmd[cmd.index(token(cmd)) + 1:]
            kind = q.get("stdin_sha256")
            if kind == PERFTEST and cmd[3] == "server":
                self.assertEqual(len(args), 2)
                self.assertTrue(all(NUM.match(a) for a in args), args)
            elif kind == PERFTEST:
                self.assertEqual(cmd[3], "client")
                self.assertEqual(len(args), 6)
                self.assertIn(args[0], ips)
                self.assertTrue(all(NUM.match(a) for a in args[1:4]), args)
                self.assertIn(args[4], ("host", "cuda"))
                self.assertTrue(NUM.match(args[5]))
            else:
                self.assertEqual(kind, CLEANUP, q)
                self.assertEqual(args, [])
            for a in cmd:
                self.assertNotIn(hostile, a)

    def test_nixl_transfer(self):
        n0 = len(self.c.log())
        rc, out, err = run(["nixl", "--transfer", "--pod", "qwen-decode-0", "--peer", "qwen-prefill-0"] + self.kc)
        self.assertEqual(rc, 2, err)
        self.assertRegex(out, r"Transfer: fail  KV would move over TCP at [0-9.]+ GB/s")
        # the decode pod is the server even when it is --pod
        self.assertIn("server in decode pod qwen-decode-0, client in prefill pod qwen-prefill-0", err)
        self.assertNotIn("Next:", out)
        self.no_leftovers(n0)


@unittest.skipUnless(HAVE_UCX, "needs Debian's ucx-utils (/usr/bin/ucx_perftest) and iproute2")
class TestTransferBroken(WithCluster):
    SCENARIO = "transfer-broken.yaml"

    def test_time_limit_and_missing_tool(self):
        n0 = len(self.c.log())
        t0 = time.monotonic()
        rc, out, err = run(["check", "--transfer", "--transfer-timeout", "3s", "-o", "json"] + self.kc)
        took = time.monotonic() - t0
        self.assertEqual(rc, 2, err)
        doc = json.loads(out)
        (stuck,) = checks(doc, "qwen-decode-stuck")
        self.assertEqual(stuck["status"], "fail")
        self.assertIn("did not complete: the time limit (3 s) passed", stuck["detail"])
        (notool,) = checks(doc, "qwen-decode-notool")
        self.assertEqual(notool["status"], "skipped")
        self.assertIn("ucx_perftest not found in pod qwen-decode-notool", notool["detail"])
        self.assertEqual([c["status"] for c in checks(doc, "qwen-prefill-0")], ["skipped", "fail"])
        self.assertLess(took, 60)
        for t in tokens(self.c.log()[n0:]):
            self.assertEqual(settled(t), [])

    def test_sigint_mid_transfer(self):
        n0 = len(self.c.log())
        p = subprocess.Popen([PLUGIN, "check", "--transfer", "--transfer-timeout", "40s", "-o", "json"] + self.kc,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=plugin_env())
        self.addCleanup(lambda: p.poll() is None and p.kill())
        self.addCleanup(p.stdout.close)
        self.addCleanup(p.stderr.close)
        err = b""
        deadline = time.monotonic() + 90
        while b"client in prefill pod qwen-prefill-0 (" not in err or b"qwen-decode-stuck" not in err:
            self.assertLess(time.monotonic(), deadline, err)
            line = p.stderr.readline()
            self.assertTrue(line, err)
            err += line
        time.sleep(1.5)
        # the log records an exec when it ends: find the running test's
        # token in the processes themselves
        toks = running_tokens()
        self.assertTrue(toks, "the transfer was not running when interrupted")
        t0 = time.monotonic()
        p.send_signal(signal.SIGINT)
        out, rest = p.communicate(timeout=60)
        self.assertLess(time.monotonic() - t0, 30)
        self.assertIn(p.returncode, (2, 3), rest)
        doc = json.loads(out)
        (stuck,) = checks(doc, "qwen-decode-stuck")
        self.assertEqual(stuck["status"], "fail")
        self.assertIn("did not complete: interrupted", stuck["detail"])
        for t in toks | set(tokens(self.c.log()[n0:])):
            self.assertEqual(settled(t), [], "left running after SIGINT")
        # the cleanup ran after the cancel: one per pod of the pair
        cleanups = [q for q in transfer_execs(self.c.log()[n0:]) if q.get("stdin_sha256") == CLEANUP]
        self.assertGreaterEqual(len(cleanups), 2)

    def test_run_timeout_mid_transfer(self):
        n0 = len(self.c.log())
        t0 = time.monotonic()
        rc, out, err = run(["check", "--transfer", "--transfer-timeout", "40s", "--timeout", "6s",
                            "-o", "json"] + self.kc)
        self.assertLess(time.monotonic() - t0, 30)
        self.assertIn(rc, (2, 3), err)
        self.assertIn("--timeout passed", err)
        (stuck,) = checks(json.loads(out), "qwen-decode-stuck")
        self.assertEqual(stuck["status"], "fail")
        self.assertIn("did not complete: the run's --timeout passed", stuck["detail"])
        toks = tokens(self.c.log()[n0:])
        self.assertTrue(toks)
        for t in toks:
            self.assertEqual(settled(t), [], "left running after --timeout")

    def test_nixl_peer_without_tool_is_skipped(self):
        rc, out, err = run(["nixl", "--transfer", "--pod", "qwen-prefill-0", "--peer", "qwen-decode-notool"] + self.kc)
        self.assertIn("Transfer: skipped  ucx_perftest not found in pod qwen-decode-notool", out)
        self.assertNotEqual(rc, 0)


if __name__ == "__main__":
    unittest.main()
